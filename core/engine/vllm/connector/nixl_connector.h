#pragma once
// NixlConnector, scheduler side (vllm distributed/kv_transfer/kv_connector/v1/
// nixl_connector.py NixlConnectorScheduler; spec vllm-metrics-connector-config.md §B.3-B.6).
//
// One class plays both roles of a P/D pair, as kv_role kv_both does upstream:
// - prefill (producer): a request sent with do_remote_decode ends LENGTH_CAPPED after its
//   one token; its blocks stay allocated (and counted in KV usage) until the decoder's
//   read-complete notice (remote_read_done) or the abort timeout;
// - decode (consumer): a request sent with do_remote_prefill treats the prompt beyond the
//   local prefix hit as external and loads it asynchronously: the cluster carries out the
//   pull (take_transfers / on_transfer_finished) and the scheduler promotes the request.
// Block ids and side channels are not modelled; the remote is a cluster instance index.

#include <cstdint>
#include <vector>

#include "engine/vllm/connector/kv_connector.h"

namespace blis::vllm {

// VLLM_NIXL_ABORT_REQUEST_TIMEOUT's default (vllm envs.py): 480 s.
inline constexpr SimTime kNixlAbortRequestTimeout = 480 * kMicrosPerSecond;

class NixlConnector final : public KVConnector {
 public:
  // `instance`: this engine's cluster instance (the destination of its pulls).
  NixlConnector(std::int32_t instance, std::int32_t block_size,
                SimTime abort_timeout = kNixlAbortRequestTimeout);

  MatchedTokens get_num_new_matched_tokens(const Request& r,
                                           std::int32_t num_local_computed) override;
  void update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                std::int32_t num_external_tokens) override;
  bool request_finished(Request& r, std::span<const std::int32_t> blocks) override;

  void take_transfers(std::vector<engine::TransferRequest>& out) override;
  TransferEffect on_transfer_finished(const engine::TransferRequest& t) override;
  SimTime next_deadline() const override;
  void expire(SimTime now, std::vector<ReqRef>& out) override;
  ReqRef remote_read_done(engine::RequestKey key) override;

  std::size_t num_held() const { return held_.size(); }
  std::size_t num_receiving() const { return recvs_.size(); }

 private:
  struct Recv {
    std::uint64_t id = 0;
    ReqRef ref;
    bool awaited = false;  // the scheduler waits for it (external tokens > 0)
  };
  struct Held {
    engine::RequestKey key = 0;
    ReqRef ref;
    SimTime deadline = 0;
  };
  void queue_recv(const Request& r, std::int32_t num_blocks, bool awaited);

  std::int32_t instance_;
  std::int32_t block_size_;
  SimTime abort_timeout_;
  std::uint64_t next_id_ = 1;
  std::vector<engine::TransferRequest> pending_;  // queued, not yet handed out
  std::vector<Recv> recvs_;                       // handed out, not finished
  std::vector<Held> held_;                        // finished P requests keeping blocks
};

}  // namespace blis::vllm
