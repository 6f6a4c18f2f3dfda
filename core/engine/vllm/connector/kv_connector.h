#pragma once
// KVConnector: the scheduler side of a KV connector (vllm distributed/kv_transfer/
// kv_connector/v1/base.py KVConnectorBase_V1), the hook through which P/D transfer (NIXL)
// and KV offloading plug into the scheduler (spec vllm-metrics-connector-config.md §B).
// The scheduler asks it how many tokens beyond the local prefix hit it can supply, tells it
// which blocks were allocated, and lets it keep a finished request's blocks until a
// transfer reports done (Scheduler::finished_recving / finished_sending).
//
// The second half of the interface is what vLLM's workers do for the connector, reduced to
// what the cluster must time: the transfers to carry out (take_transfers) and their ends
// (on_transfer_finished), plus deadlines the connector enforces by itself.

#include <cstdint>
#include <span>
#include <vector>

#include "engine/engine.h"
#include "engine/vllm/request.h"
#include "util/sim_time.h"

namespace blis::vllm {

struct SchedulerOutput;
class Scheduler;

// get_num_new_matched_tokens' answer.
struct MatchedTokens {
  bool decided = true;            // false = "ask again later" (None upstream)
  std::int32_t num_external = 0;  // tokens beyond the local hit the connector supplies
  bool load_async = false;        // loaded between steps (the request waits for it)
};

// What a finished transfer means for the scheduler (KVConnectorOutput's id sets).
struct TransferEffect {
  ReqRef finished_recving;  // index < 0: none
  ReqRef finished_sending;  // index < 0: none
};

class KVConnector {
 public:
  virtual ~KVConnector() = default;
  virtual MatchedTokens get_num_new_matched_tokens(const Request& r,
                                                   std::int32_t num_local_computed) = 0;
  // May update the request's kv_transfer_params (NIXL clears do_remote_prefill).
  virtual void update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                        std::int32_t num_external_tokens) = 0;
  // Called once when a request ends, before its blocks are freed. True = the connector keeps
  // the blocks until Scheduler::finished_sending(request).
  virtual bool request_finished(Request& r, std::span<const std::int32_t> blocks) = 0;
  // build_connector_meta: called at the end of every schedule() with its output (before
  // num_computed_tokens moves on: a scheduled entry computes num_computed_before + num_tokens).
  virtual void build_connector_meta(const SchedulerOutput& out, const Scheduler& s) {}

  // ---- the worker side, as the engine drives it ----
  // The engine's clock for the calls that follow (deadlines are stamped with it).
  void set_now(SimTime now) { now_ = now; }
  // Moves the transfers queued since the last call to `out`.
  virtual void take_transfers(std::vector<engine::TransferRequest>& out) {}
  // A transfer handed out by take_transfers finished.
  virtual TransferEffect on_transfer_finished(const engine::TransferRequest& t) { return {}; }
  // The earliest deadline the connector enforces by itself, or kSimTimeNever.
  virtual SimTime next_deadline() const { return kSimTimeNever; }
  // Requests whose held blocks fell due by `now` (appended to `out`).
  virtual void expire(SimTime now, std::vector<ReqRef>& out) {}
  // P side of a P/D pair: the remote reader of request `key` is done.
  virtual ReqRef remote_read_done(engine::RequestKey key) { return {}; }

 protected:
  SimTime now_ = 0;
};

}  // namespace blis::vllm
