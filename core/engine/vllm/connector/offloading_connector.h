#pragma once
// OffloadingConnector, scheduler side (vllm distributed/kv_transfer/kv_connector/v1/
// offloading/scheduler.py OffloadingConnectorScheduler, one full-attention KV group, with
// the CPU backend of v1/kv_offload/cpu): a CPU tier of KV chunks behind the GPU prefix
// cache.
//
// - lookup: the consecutive CPU hits beyond the GPU hit are loaded asynchronously (the
//   request waits in WAITING_FOR_REMOTE_KVS, like a NIXL pull); a request with jobs in
//   flight, or whose hit chunks another request is loading, is asked again later;
// - store: each step, the chunks of the scheduled requests that become full go to the CPU
//   tier (only prompt tokens unless offload_prompt_only is off);
// - request_finished never delays the free: a finished request's pending stores are
//   flushed (jobs_to_flush) when one of their GPU blocks is reallocated, and a preempted
//   request's stores are flushed at once.
// Each schedule() builds the step's OffloadingConnectorMetadata (last_meta). The cluster
// times loads and stores over the GPU's host link (take_transfers / on_transfer_finished).

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/vllm/connector/cpu_offloading_manager.h"
#include "engine/vllm/connector/kv_connector.h"
#include "engine/vllm/kv/vllm_block_hash.h"

namespace blis::vllm {

struct OffloadingConfig {
  std::int64_t num_cpu_blocks = 0;    // CPU tier capacity, in chunks
  std::int32_t gpu_block_size = 16;   // tokens per GPU (hash) block
  std::int32_t blocks_per_chunk = 1;  // GPU blocks per offloaded chunk
  // OffloadingSpec: kv_connector_extra_config offload_prompt_only, default True.
  bool offload_prompt_only = true;
  // _chunks_being_loaded exists only with GPU prefix caching.
  bool enable_prefix_caching = true;
  // CPUOffloadingSpec.get_manager: eviction_policy, store_threshold (cpu/spec.py).
  CpuOffloadingOptions cpu{};
  // vLLM walks two Python sets here: SchedulerOutput.finished_req_ids (_build_store_jobs
  // issues the finished requests' stores in its order) and a job's offload keys
  // (TransferJobStatus.keys: complete_store / complete_load make them evictable, so LRU, in
  // its order). true: CPython 3.11's orders with PYTHONHASHSEED=0 (util/python_set_order.h,
  // with vLLM's byte-exact block hashes, kv/vllm_block_hash.h), what the oracle traces ran;
  // false: finish order and chunk order.
  bool python_set_order = false;
};

// OffloadingConnectorMetadata as build_connector_meta fills it (offloading/common.py).
struct OffloadMeta {
  std::vector<std::pair<std::int64_t, std::string>> load_jobs;   // job id -> request id
  std::vector<std::pair<std::int64_t, std::string>> store_jobs;  // job id -> request id
  std::vector<std::int64_t> jobs_to_flush;                       // ascending
  void clear() {
    load_jobs.clear();
    store_jobs.clear();
    jobs_to_flush.clear();
  }
};

// The scheduler-side OffloadingConnectorStats since the last take (metrics.py names).
struct OffloadConnectorStats {
  std::int64_t allocation_failures = 0;     // vllm:kv_offload_allocation_failure
  std::vector<double> lookup_sync_delays;   // vllm:kv_offload_lookup_sync_delay_seconds
  std::vector<double> lookup_async_delays;  // vllm:kv_offload_lookup_async_delay_seconds
  CpuOffloadingStats cpu;                   // the manager's gauges and allocation sizes
};

class OffloadingConnector final : public KVConnector {
 public:
  explicit OffloadingConnector(const OffloadingConfig& cfg);

  metrics::ConnectorMetrics metrics_kind() const override {
    return metrics::ConnectorMetrics::kOffloading;  // OffloadPromMetrics (CPU spec)
  }
  // cpu/spec.py build_metric_definitions: stores_skipped with store_threshold >= 2.
  bool metrics_store_threshold() const override { return cfg_.cpu.store_threshold >= 2; }
  void on_new_request(const Request& r) override;
  MatchedTokens get_num_new_matched_tokens(const Request& r,
                                           std::int32_t num_local_computed) override;
  void update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                std::int32_t num_external_tokens) override;
  FinishedTransfer request_finished(Request& r, std::span<const std::int32_t> blocks) override;
  void build_connector_meta(const SchedulerOutput& out, const Scheduler& s) override;
  bool has_pending_push_work() const override { return !jobs_.empty(); }
  // offloading_connector.py: a dropped store is only a future cache miss.
  bool requires_kv_delivery() const override { return false; }

  void take_transfers(std::vector<engine::TransferRequest>& out) override;
  TransferEffect on_transfer_finished(const engine::TransferRequest& t) override;
  void on_step_output(std::vector<TransferEffect>& out) override;

  // update_connector_output for one completed job (the worker's completed_jobs).
  TransferEffect complete_job(std::int64_t job_id);
  const OffloadMeta& last_meta() const { return meta_; }
  // get_stats: the scheduler's and the manager's stats since the last call.
  OffloadConnectorStats take_offload_stats();
  // The same as the metrics' payload (offloading/metrics.py family names).
  void take_stats(metrics::KVConnectorStats& out) override;
  const CpuOffloadingManager& cpu() const { return cpu_; }
  std::size_t num_jobs() const { return jobs_.size(); }
  std::int32_t tokens_per_chunk() const { return tpc_; }

 private:
  struct Job {  // TransferJobStatus
    engine::RequestKey req = 0;
    bool is_store = false;
    std::vector<BlockHash> keys;
    std::vector<std::int32_t> deferred_fence_block_ids;
    std::vector<std::int64_t> key_py_hashes;  // hash() of each key (python_set_order)
  };
  struct ReqState {  // RequestOffloadState
    std::string request_id;
    ReqRef ref;
    std::vector<BlockHash> offload_keys;
    // kv_transfer_params max_offload_tokens (a non-negative int; unset: no cap).
    std::optional<std::int64_t> max_offload_tokens;
    // python_set_order: hash() of each offload key, from vLLM's chained block hashes (the
    // last one hashed and how many); given up (cleared, py_ok false) for a request with extra
    // keys (LoRA, cache salt).
    VllmHash py_last_block{};
    std::size_t py_num_blocks = 0;
    std::vector<std::int64_t> py_keys;
    bool py_ok = true;
    std::vector<std::int32_t> block_ids;
    std::int32_t next_stored_chunk_idx = 0;
    std::int32_t num_locally_computed_tokens = 0;
    std::vector<std::int64_t> transfer_jobs;  // ascending ids
    bool finished_signaled = false;
    bool deferred_lookup = false;
    SimTime deferred_lookup_start = 0;
    // Snapshot at request_finished: the Request may be gone by the next build.
    bool finished = false;
    bool aborted = false;
    std::int32_t num_tokens = 0;
    std::int32_t num_computed_tokens = 0;
    std::int32_t num_prompt_tokens = 0;
  };
  void update_offload_keys(ReqState& st, const Request& r) const;
  void update_py_keys(ReqState& st, const Request& r) const;
  void set_py_hashes(const ReqState& st, std::int32_t first_chunk, Job& job) const;
  std::int32_t storable_chunks(const ReqState& st, std::int32_t num_offloadable_tokens) const;
  std::int32_t offloadable_tokens(const ReqState& st, std::int32_t num_tokens_after_batch,
                                  std::int32_t num_tokens) const;
  std::int32_t lookup(ReqState& st, std::int32_t num_tokens, bool& deferred);
  void update_req_states(const SchedulerOutput& out, const Scheduler& s);
  void build_store_jobs(const SchedulerOutput& out, const Scheduler& s);
  void store_request(engine::RequestKey key, ReqState& st, std::int32_t num_tokens_after_batch,
                     std::int32_t num_tokens);
  void observe_async_delay(ReqState& st);
  void flush(std::int64_t job_id);
  std::int64_t new_job(Job job, std::int32_t num_gpu_blocks, engine::TransferKind kind);

  OffloadingConfig cfg_;
  std::int32_t tpc_;  // tokens per chunk
  CpuOffloadingManager cpu_;
  std::int64_t job_counter_ = 0;
  std::map<std::int64_t, Job> jobs_;
  std::map<engine::RequestKey, ReqState> reqs_;
  std::map<std::int32_t, std::vector<std::int64_t>> block_to_pending_jobs_;
  std::vector<std::pair<std::int64_t, std::string>> batch_load_jobs_;
  std::vector<std::int64_t> batch_jobs_to_flush_;
  std::vector<std::int32_t> batch_allocated_blocks_;
  std::vector<BlockHash> chunks_being_loaded_;
  OffloadMeta meta_;
  OffloadConnectorStats stats_;
  std::vector<std::int64_t> flushed_;  // flushed by the last build, done with its step
  std::vector<engine::TransferRequest> pending_;
  std::vector<BlockHash> scratch_, to_store_;
  std::vector<engine::RequestKey> finished_order_;  // build_store_jobs' finished requests
};

}  // namespace blis::vllm
