#pragma once
// Scheduler (vllm v1/core/sched/scheduler.py): decides each step which requests run and how
// many tokens each computes (schedule), and applies the model's output (update_from_output).
// There are no prefill and decode phases: every request closes the gap between the tokens it
// knows (plus drafts and in-flight outputs) and the tokens whose KV it has computed.
// AsyncScheduler (async_scheduler.h) overrides the two hooks marked below.

#include <cstdint>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "engine/vllm/connector/kv_connector.h"
#include "engine/vllm/kv/kv_cache_manager.h"
#include "engine/vllm/request.h"
#include "engine/vllm/sched/request_queue.h"
#include "engine/vllm/sched/scheduler_output.h"
#include "engine/vllm/vllm_config.h"

namespace blis::vllm {

// Everything add_request needs to build a Request.
struct NewRequest {
  std::string request_id;
  engine::RequestKey key = 0;
  std::span<const std::int32_t> prompt_token_ids;
  std::int32_t max_tokens = 16;
  std::int32_t min_tokens = 0;
  std::int32_t eos_at_output = 0;
  std::int32_t eos_token_id = -1;                // SamplingParams.eos_token_id; -1 = none
  std::span<const std::int32_t> stop_token_ids;  // SamplingParams.stop_token_ids
  std::int32_t output_token_base = 0;
  std::int32_t priority = 0;
  double arrival_time = 0;
  std::int32_t lora_id = 0;
  bool has_cache_salt = false;
  std::uint64_t cache_salt = 0;
  bool skip_reading_prefix_cache = false;
  const engine::KvTransferParams* kv_transfer = nullptr;  // kv_transfer_params, if any
};

// vllm v1/metrics/stats.py SchedulerStats (the parts a simulator reports).
struct SchedulerStats {
  std::int32_t num_running_reqs = 0;
  std::int32_t num_waiting_reqs = 0;
  double kv_cache_usage = 0;
  PrefixCacheStats prefix_cache_stats;  // since the previous make_stats
  // vllm scheduler.py connector_prefix_cache_stats: tokens queried / supplied by the KV
  // connector (vllm:external_prefix_cache_*); only with a connector.
  bool has_connector_prefix_cache_stats = false;
  PrefixCacheStats connector_prefix_cache_stats;
};

class Scheduler {
 public:
  explicit Scheduler(const VllmConfig& cfg);
  virtual ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues a new request (WAITING). The prompt must be non-empty.
  ReqRef add_request(const NewRequest& nr);
  void schedule(SchedulerOutput& out);
  void update_from_output(const SchedulerOutput& out, const ModelRunnerOutput& mro,
                          UpdateResult& res);
  // Outside finish (abort): false if the request is unknown or already finished.
  bool finish_request(ReqRef ref, RequestStatus status);
  // Sync spec decode: the drafts proposed after a step (EngineCore.post_step ->
  // update_draft_token_ids). `drafts` holds one list per scheduled entry of `out`; without
  // it every request that sampled gets num_speculative_tokens drafts.
  void update_draft_token_ids(const SchedulerOutput& out, const ModelRunnerOutput* drafts);
  // Clears the prefix cache; with reset_running_requests, first preempts every running
  // request (their in-flight output is dropped).
  bool reset_prefix_cache(bool reset_running_requests);
  SchedulerStats make_stats();

  // KV connector hooks (P/D transfer, offloading): the connector is owned by the caller.
  void set_connector(KVConnector* connector);
  // Whether schedule() fills SchedulerOutput::num_common_prefix_blocks (default on). It walks
  // running[0]'s block table every step and only the conformance traces read it, so the
  // cluster turns it off; no scheduling decision depends on it.
  void set_report_common_prefix(bool on) { report_common_prefix_ = on; }
  // A connector's async load for this request landed (KVConnectorOutput.finished_recving).
  void finished_recving(ReqRef ref);
  // A connector finished sending a finished request's blocks (finished_sending): free them.
  void finished_sending(ReqRef ref);
  // KVConnectorOutput.invalid_block_ids reported with a transfer's end, between steps (an
  // async load that failed; scheduler_kv_failure.cpp). Call it before finished_recving of
  // the same load, as update_from_output handles invalid blocks first. Requests finished
  // with an error are reported by the next update_from_output (UpdateResult::errored).
  void report_invalid_blocks(std::span<const std::int32_t> invalid_block_ids);
  // Moves the FINISHED_ERROR outputs not yet reported to `out` (else the next
  // update_from_output reports them in UpdateResult::errored).
  void take_errored(std::vector<ErroredRequest>& out) {
    out.insert(out.end(), errored_.begin(), errored_.end());
    errored_.clear();
  }
  // Cumulative KV load failures: requests affected, and of them, finished with an error.
  std::uint64_t total_kv_load_failed_requests() const { return kv_load_failed_reqs_; }
  std::uint64_t total_kv_load_errored_requests() const { return kv_load_errored_reqs_; }

  // True while requests are unfinished or finished ids are still to be reported.
  bool has_requests() const;
  bool has_unfinished_requests() const;
  std::int32_t num_running() const { return static_cast<std::int32_t>(running_.size()); }
  std::int32_t num_waiting() const { return waiting_->size() + skipped_waiting_->size(); }
  const Request* find(ReqRef ref) const;
  Request* find(ReqRef ref);
  std::span<const std::int32_t> running() const { return running_; }
  const Request& slot(std::int32_t index) const { return reqs_[static_cast<std::size_t>(index)]; }
  const RequestQueue& waiting_queue() const { return *waiting_; }
  const RequestQueue& skipped_waiting_queue() const { return *skipped_waiting_; }
  const KVCacheManager& kv_cache_manager() const { return kv_; }
  // KV events of this scheduler's block pool (engine/kv_events.h); observation only.
  void set_kv_event_listener(engine::KvEventListener* l) { kv_.block_pool().set_event_listener(l); }
  const VllmConfig& config() const { return cfg_; }
  std::uint64_t total_preemptions() const { return total_preemptions_; }
  bool has_connector() const { return connector_ != nullptr; }
  const PrefixCacheStats& connector_prefix_cache_stats() const {
    return connector_stats_cumulative_;
  }

 protected:
  // vllm scheduler.py Scheduler._update_after_schedule (AsyncScheduler overrides it).
  virtual void update_after_schedule(SchedulerOutput& out);
  // vllm scheduler.py Scheduler._update_request_with_output: appends tokens one at a time,
  // stopping at the first that ends the request. Returns the number kept.
  virtual std::int32_t update_request_with_output(Request& r, const std::int32_t* tokens,
                                                  std::int32_t n, bool is_stale, bool& stopped);
  Request& req(std::int32_t index) { return reqs_[static_cast<std::size_t>(index)]; }
  KVCacheManager& kv() { return kv_; }

 private:
  // update_from_output: drops the requests that stopped this step from running / waiting.
  void remove_stopped_requests();
  void schedule_running(SchedulerOutput& out, std::int32_t& token_budget, bool& prefill_scheduled);
  void schedule_waiting(SchedulerOutput& out, std::int32_t& token_budget, bool prefill_scheduled);
  // One admission attempt of the waiting phase (scheduler_waiting.cpp), filled step by step.
  struct WaitingAdmission {
    bool did_lookup = false;  // a fresh prefix-cache lookup (nothing computed yet)
    std::int32_t num_local_computed = 0;
    std::int32_t num_external = 0;  // tokens the KV connector supplies
    bool load_async = false;        // the connector loads them asynchronously
    std::int32_t num_computed = 0;  // local + external
    std::int32_t n = 0;             // tokens scheduled this step
    bool pad_spec_decode = false;   // padded to the uniform spec-decode size
  };
  // The head must be skipped this step (parked async load, stale output, max_loras).
  bool skips_waiting_head(std::int32_t index);
  // The prefix-cache and connector lookup; false when the connector is undecided (skip).
  bool lookup_waiting(Request& r, WaitingAdmission& a);
  // The chunk size; false ends the waiting phase.
  bool size_waiting_chunk(const Request& r, std::int32_t token_budget, bool scheduled_running,
                          bool prefill_scheduled, WaitingAdmission& a) const;
  // Allocates the slots and records the connector's state and the prefix-cache stats; false
  // (no room) ends the waiting phase.
  bool allocate_waiting(Request& r, const WaitingAdmission& a);
  // Moves the request to running and emits its scheduled entry.
  void admit_waiting(SchedulerOutput& out, std::int32_t index, const WaitingAdmission& a,
                     std::int32_t& token_budget);
  // scheduler.py _handle_invalid_blocks / _update_requests_with_invalid_blocks
  // (scheduler_kv_failure.cpp): the affected slots to skip in this update (under "fail",
  // every affected one; they are then finished with FINISHED_ERROR).
  void handle_invalid_blocks(std::span<const std::int32_t> invalid, const SchedulerOutput* out,
                             std::vector<std::int32_t>& failed);
  std::int32_t update_requests_with_invalid_blocks(const std::vector<std::int32_t>& reqs,
                                                   std::span<const std::int32_t> invalid,
                                                   const SchedulerOutput* out, bool evict,
                                                   std::vector<std::int32_t>& affected,
                                                   std::vector<std::int32_t>& to_evict);
  // Finishes `slots` with FINISHED_ERROR (finish_requests) and queues their error outputs.
  void finish_with_error(const std::vector<std::int32_t>& slots);
  std::int32_t pick_priority_victim() const;
  void undo_scheduled(SchedulerOutput& out, std::int32_t victim, std::int32_t& token_budget);
  void preempt_request(std::int32_t index, bool drop_stale_output);
  void free_request(std::int32_t index, bool delay_free_blocks, UpdateResult* res);
  void free_request_blocks(std::int32_t index);
  void drain_deferred_frees();
  bool hashes_blocks() const { return cfg_.enable_prefix_caching || connector_ != nullptr; }
  RequestQueue& select_waiting_queue();
  bool try_promote_blocked(std::int32_t index);
  std::int32_t inflight_prefill_reserved_blocks() const;
  static void erase_value(std::vector<std::int32_t>& v, std::int32_t x);
  static void add_unique(std::vector<std::int32_t>& v, std::int32_t x);
  void remove_from_running(std::int32_t index);
  std::int32_t alloc_slot();
  void release_slot(std::int32_t index);

  VllmConfig cfg_;
  KVCacheManager kv_;
  std::vector<Request> reqs_;       // slot table (the requests dict)
  std::vector<std::uint8_t> live_;  // slot in use
  std::vector<std::int32_t> free_slots_;
  std::int32_t num_live_ = 0;
  std::vector<std::int32_t> running_;
  std::unique_ptr<RequestQueue> waiting_;
  std::unique_ptr<RequestQueue> skipped_waiting_;
  std::unique_ptr<RequestQueue> step_skipped_;
  std::vector<engine::RequestKey> finished_req_ids_;
  KVConnector* connector_ = nullptr;
  bool report_common_prefix_ = true;
  PrefixCacheStats connector_stats_;             // since the previous make_stats
  PrefixCacheStats connector_stats_cumulative_;  // since the start
  std::vector<std::int32_t> finished_recving_;   // slots whose async KV load landed
  std::vector<std::int32_t> failed_recving_;     // failed_recving_kv_req_ids (recompute)
  std::vector<ErroredRequest> errored_;          // FINISHED_ERROR outputs still to report
  std::vector<std::int32_t> kv_failed_scratch_;
  std::uint64_t kv_load_failed_reqs_ = 0;
  std::uint64_t kv_load_errored_reqs_ = 0;
  std::vector<std::int32_t> inflight_prefills_;  // still prefilling (async-load reservations)
  std::vector<std::int32_t> delayed_free_;       // finished, blocks kept for the connector
  // defer_block_free (async with a consumer connector): scheduled / processed KV-writing
  // steps, each request's last scheduled step, and the frees waiting for a step.
  struct DeferredFree {
    std::uint64_t fence = 0;
    std::vector<std::int32_t> blocks;
  };
  bool defer_block_free_ = false;
  std::uint64_t sched_step_seq_ = 0;
  std::uint64_t processed_step_seq_ = 0;
  std::vector<std::uint64_t> last_sched_seq_;  // by slot
  std::deque<DeferredFree> deferred_frees_;
  std::uint64_t total_preemptions_ = 0;
  std::uint64_t next_step_id_ = 0;
  // Per-step scratch, kept to avoid allocation.
  std::vector<std::int32_t> hits_;
  std::vector<std::int32_t> scheduled_loras_;
  std::vector<std::int32_t> stopped_running_;
  std::vector<std::int32_t> stopped_preempted_;
  std::vector<std::int32_t> to_release_;
};

// The scheduler class vLLM picks (config/scheduler.py get_scheduler_cls): AsyncScheduler
// with async_scheduling, else Scheduler.
std::unique_ptr<Scheduler> make_scheduler(const VllmConfig& cfg);

}  // namespace blis::vllm
