#pragma once
// NixlConnector, scheduler side (vllm distributed/kv_transfer/kv_connector/v1/nixl/
// pull_scheduler.py NixlPullConnectorScheduler on base_scheduler.py
// NixlBaseConnectorScheduler).
//
// The same class plays both roles of a P/D pair, as upstream (the request's
// kv_transfer_params decide):
// - prefill (producer): a request sent with do_remote_decode that ends LENGTH_CAPPED or
//   STOPPED keeps its blocks (counted in KV usage) until the decoder has read them
//   (remote_read_done) or its lease (kv_lease_duration, renewed by the decoder's
//   heartbeats) runs out; request_finished returns where the blocks are;
// - decode (consumer): a request sent with do_remote_prefill treats the prompt beyond the
//   local prefix hit as external, waits in WAITING_FOR_REMOTE_KVS and pulls only the
//   unhashed blocks beyond the local hit (reqs_to_recv).
// Each schedule() builds the step's NixlConnectorMetadata (last_meta); the cluster carries
// out the pulls (take_transfers / on_transfer_finished). The remote is a cluster instance.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/vllm/connector/kv_connector.h"

namespace blis::vllm {

struct NixlConfig {
  std::int32_t instance = -1;  // this engine's cluster instance (the destination of pulls)
  std::int32_t block_size = 16;
  std::string engine_id = "blis";  // KVTransferConfig.engine_id
  // kv_connector_extra_config kv_lease_duration, seconds (base_scheduler.py: default 30).
  double kv_lease_duration = 30;
  std::int32_t tp_size = 1;  // parallel_config.tensor_parallel_size (returned to D)
};

// One reqs_to_recv entry of NixlConnectorMetadata.
struct NixlRecvMeta {
  std::string request_id;
  engine::RequestKey key = 0;
  ReqRef ref;
  std::vector<std::int32_t> local_block_ids;  // empty: only notifies P
  std::vector<std::int32_t> remote_block_ids;
  std::string remote_request_id;
};

// NixlConnectorMetadata as build_connector_meta fills it (nixl/metadata.py).
struct NixlMeta {
  std::vector<NixlRecvMeta> reqs_to_recv;
  std::vector<std::pair<std::string, SimTime>> reqs_to_send;  // request id -> deadline
  std::vector<std::string> reqs_in_batch;                     // insertion order (a set)
  std::vector<std::string> reqs_not_processed;                // insertion order (a set)
  // heartbeat_by_engine, when sent this step: remote engine -> its HeartbeatInfo.req_ids (a
  // set, in insertion order here), engines in the order the dict gained them.
  std::vector<std::pair<std::string, std::vector<std::string>>> heartbeat_by_engine;
  void clear();
};

class NixlConnector final : public KVConnector {
 public:
  explicit NixlConnector(const NixlConfig& cfg);

  metrics::ConnectorMetrics metrics_kind() const override {
    return metrics::ConnectorMetrics::kNixl;  // NixlPromMetrics
  }
  void on_new_request(const Request& r) override;
  MatchedTokens get_num_new_matched_tokens(const Request& r,
                                           std::int32_t num_local_computed) override;
  void update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                std::int32_t num_external_tokens) override;
  FinishedTransfer request_finished(Request& r, std::span<const std::int32_t> blocks) override;
  void build_connector_meta(const SchedulerOutput& out, const Scheduler& s) override;

  void take_transfers(std::vector<engine::TransferRequest>& out) override;
  TransferEffect on_transfer_finished(const engine::TransferRequest& t) override;
  // The worker's xfer_stats: vllm:nixl_num_failed_transfers, one per failed pull.
  void take_stats(metrics::KVConnectorStats& out) override;
  SimTime next_deadline() const override;
  void expire(SimTime now, std::vector<ReqRef>& out) override;
  ReqRef remote_read_done(engine::RequestKey key) override;
  void remote_heartbeat(engine::RequestKey key) override;

  // The metadata the last schedule() built (what the worker would receive).
  const NixlMeta& last_meta() const { return meta_; }
  // The held requests whose lease is out by `now` (what the worker's expiry check finds).
  void due_sends(SimTime now, std::vector<engine::RequestKey>& out) const;
  // The prefill-side request that holds `key`'s blocks, or {}.
  ReqRef held_ref(engine::RequestKey key) const;
  std::size_t num_held() const { return held_.size(); }
  std::size_t num_receiving() const { return recvs_.size(); }
  const NixlConfig& config() const { return cfg_; }

 private:
  struct Recv {
    std::uint64_t id = 0;
    ReqRef ref;
    std::string request_id;
    bool awaited = false;  // the scheduler waits for it (local targets to fill)
    std::vector<std::int32_t> local_block_ids;  // the blocks the read fills
  };
  struct Held {
    engine::RequestKey key = 0;
    ReqRef ref;
    SimTime deadline = 0;
  };
  struct Heartbeat {  // one entry of _heartbeat_req_engine
    std::string request_id, remote_engine_id, remote_request_id;
  };
  // _heartbeat_by_engine: remote engine -> remote request ids (a set; insertion order).
  using HeartbeatEngines = std::vector<std::pair<std::string, std::vector<std::string>>>;
  void queue_recv(const Request& r, std::vector<std::int32_t> local_blocks);
  void stop_heartbeat(const std::string& request_id);
  static void add_unique(std::vector<std::string>& v, const std::string& id);

  NixlConfig cfg_;
  SimTime lease_;
  SimTime heartbeat_interval_;
  SimTime last_heartbeat_ = 0;
  std::uint64_t next_id_ = 1;
  // Scheduler state for the next metadata (_reqs_need_recv, _reqs_need_send, ...).
  NixlMeta next_;
  NixlMeta meta_;
  std::vector<Heartbeat> heartbeats_;             // _heartbeat_req_engine, by local id
  HeartbeatEngines heartbeat_engines_;            // _heartbeat_by_engine
  std::vector<engine::TransferRequest> pending_;  // queued, not yet handed out
  std::vector<Recv> recvs_;                       // handed out, not finished
  std::int32_t failed_transfers_ = 0;             // since the last take_stats
  std::vector<Held> held_;                        // finished P requests keeping blocks
};

}  // namespace blis::vllm
