#pragma once
// KVConnector: the scheduler side of a KV connector (vllm distributed/kv_transfer/
// kv_connector/v1/base.py KVConnectorBase_V1), the hook through which P/D transfer (NIXL)
// and KV offloading plug into the scheduler (spec vllm-metrics-connector-config.md §B).
// The scheduler asks it how many tokens beyond the local prefix hit it can supply, tells it
// which blocks were allocated, lets it build each step's metadata for the worker, and lets
// it keep a finished request's blocks until a transfer reports done
// (Scheduler::finished_recving / finished_sending).
//
// The second half of the interface is what vLLM's workers do for the connector, reduced to
// what the cluster must time: the transfers to carry out (take_transfers) and their ends
// (on_transfer_finished), plus deadlines the connector enforces by itself. The conformance
// driver plays the worker from each step's metadata instead (conform_ext_connector.cpp).

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "engine/engine.h"
#include "engine/vllm/metrics/connector_stats.h"
#include "engine/vllm/request.h"
#include "util/sim_time.h"

namespace blis::vllm {

struct SchedulerOutput;
class Scheduler;
class BlockPool;

// get_num_new_matched_tokens' answer.
struct MatchedTokens {
  bool decided = true;            // false = "ask again later" (None upstream)
  std::int32_t num_external = 0;  // tokens beyond the local hit the connector supplies
  bool load_async = false;        // loaded between steps (the request waits for it)
};

// request_finished's answer: (delay_free_blocks, kv_transfer_params).
struct FinishedTransfer {
  bool delay_free = false;
  std::optional<engine::KvTransferParams> params;
};

// What a finished transfer means for the scheduler (KVConnectorOutput's id sets).
struct TransferEffect {
  ReqRef finished_recving;  // index < 0: none
  ReqRef finished_sending;  // index < 0: none
  // KVConnectorOutput.invalid_block_ids: blocks the load failed to fill (handled before
  // finished_recving, as update_from_output does).
  std::vector<std::int32_t> invalid_block_ids;
};

class KVConnector {
 public:
  virtual ~KVConnector() = default;
  // vllm scheduler.py Scheduler.__init__: connector.bind_gpu_block_pool(block_pool).
  void bind_gpu_block_pool(const BlockPool* pool) { block_pool_ = pool; }
  // Scheduler.add_request -> connector.on_new_request.
  virtual void on_new_request(const Request& r) {}
  // `num_local_computed` is block-aligned (the scheduler drops a sub-block tail first).
  virtual MatchedTokens get_num_new_matched_tokens(const Request& r,
                                                   std::int32_t num_local_computed) = 0;
  // May update the request's kv_transfer_params (NIXL clears do_remote_prefill).
  virtual void update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                        std::int32_t num_external_tokens) = 0;
  // Called once when a request ends, before its blocks are freed, with the blocks that cover
  // its computed tokens (Scheduler._connector_finished). delay_free = the connector keeps
  // the blocks until Scheduler::finished_sending(request).
  virtual FinishedTransfer request_finished(Request& r, std::span<const std::int32_t> blocks) = 0;
  // build_connector_meta: called at the end of every schedule() with its output (before
  // num_computed_tokens moves on: a scheduled entry computes num_computed_before + num_tokens).
  virtual void build_connector_meta(const SchedulerOutput& out, const Scheduler& s) {}
  // Which families KVConnectorProm registers for this connector class.
  virtual metrics::ConnectorMetrics metrics_kind() const {
    return metrics::ConnectorMetrics::kNone;
  }
  // The offloading connector's CPU spec registers vllm:kv_offload_stores_skipped too.
  virtual bool metrics_store_threshold() const { return false; }
  // get_kv_connector_stats: the scheduler-side stats since the last call, appended to `out`
  // (SchedulerStats.kv_connector_stats).
  virtual void take_stats(metrics::KVConnectorStats& out) {}
  // has_pending_push_work: the engine must keep stepping (offloading jobs in flight).
  virtual bool has_pending_push_work() const { return false; }
  // KVTransferConfig.kv_role: kv_both is consumer and producer.
  void set_kv_role(bool consumer, bool producer) {
    kv_consumer_ = consumer;
    kv_producer_ = producer;
  }
  bool is_kv_consumer() const { return kv_consumer_; }
  // base.py requires_kv_delivery: a producer's preempted request drops its in-flight
  // output (its hand-off lost the blocks); best-effort caches (offloading) say no.
  virtual bool requires_kv_delivery() const { return kv_producer_; }

  // ---- the worker side, as the engine drives it ----
  // The engine's clock for the calls that follow (deadlines are stamped with it).
  void set_now(SimTime now) { now_ = now; }
  // Moves the transfers queued since the last call to `out`.
  virtual void take_transfers(std::vector<engine::TransferRequest>& out) {}
  // A transfer handed out by take_transfers finished.
  virtual TransferEffect on_transfer_finished(const engine::TransferRequest& t) { return {}; }
  // The step's output was applied: transfers the worker waited for within the step (the
  // offloading connector's jobs_to_flush) are done; their effects are appended to `out`.
  virtual void on_step_output(std::vector<TransferEffect>& out) {}
  // The earliest deadline the connector enforces by itself, or kSimTimeNever.
  virtual SimTime next_deadline() const { return kSimTimeNever; }
  // Requests whose held blocks fell due by `now` (appended to `out`).
  virtual void expire(SimTime now, std::vector<ReqRef>& out) {}
  // P side of a P/D pair: the remote reader of request `key` is done.
  virtual ReqRef remote_read_done(engine::RequestKey key) { return {}; }
  // P side of a P/D pair: the decoder renewed the lease of request `key`'s blocks.
  virtual void remote_heartbeat(engine::RequestKey key) {}

 protected:
  SimTime now_ = 0;
  const BlockPool* block_pool_ = nullptr;
  bool kv_consumer_ = true;
  bool kv_producer_ = true;
};

}  // namespace blis::vllm
