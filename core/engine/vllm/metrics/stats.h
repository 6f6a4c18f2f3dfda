#pragma once
// The records vLLM's frontend turns into metrics (vllm/v1/metrics/stats.py), as plain
// structs the engine fills each step without allocating: vectors are cleared and reused,
// and requests are named by dense integer handles, never by strings.
//
//   SchedulerStats   - the scheduler's snapshot at the end of a step (Scheduler.make_stats)
//   EngineCoreOutput - one request's share of a step's outputs (v1/engine EngineCoreOutput)
//   EngineCoreEvent  - QUEUED / SCHEDULED / PREEMPTED with the engine timestamp
//   EngineCoreOutputs- one batch: outputs + events + optional SchedulerStats + timestamp
//   IterationStats   - what the frontend derives from one batch (IterationStats)

#include <cstdint>
#include <vector>

#include "engine/vllm/finish_reason.h"
#include "engine/vllm/metrics/connector_stats.h"
#include "util/sim_time.h"

namespace blis::vllm::metrics {

// Index of a request in the engine's request table; the recorder keeps per-request state
// in a vector indexed by it. Handles may be reused after the request finished.
using RequestHandle = std::int32_t;

// stats.py BaseCacheStats / PrefixCacheStats: token lookups of one step. Requests that
// were preempted before are counted apart (PrefixCacheStats.record(..., preempted)).
struct PrefixCacheStats {
  bool reset = false;  // reset_prefix_cache ran before this step
  std::int64_t requests = 0;
  std::int64_t queries = 0;  // tokens looked up
  std::int64_t hits = 0;     // tokens found
  std::int64_t preempted_requests = 0;
  std::int64_t preempted_queries = 0;
  std::int64_t preempted_hits = 0;

  // stats.py PrefixCacheStats.record: one request's lookup.
  void record(std::int64_t num_tokens, std::int64_t num_hits, bool preempted);
  void clear() { *this = PrefixCacheStats{}; }
};

// vllm/v1/spec_decode/metrics.py SpecDecodingStats.
struct SpecDecodingStats {
  std::int32_t num_spec_tokens = 0;
  std::int64_t num_drafts = 0;
  std::int64_t num_draft_tokens = 0;
  std::int64_t num_accepted_tokens = 0;
  std::vector<std::int64_t> num_accepted_tokens_per_pos;  // size num_spec_tokens
  std::vector<std::int64_t> num_draft_tokens_per_pos;     // size num_spec_tokens

  // SpecDecodingStats.new: zeroes the counters for k positions (keeps capacity).
  void reset(std::int32_t num_spec_tokens);
  // SpecDecodingStats.observe_draft: one request verified `num_draft_tokens` drafts and
  // accepted the first `num_accepted_tokens` of them (0 <= accepted <= k).
  void observe_draft(std::int32_t num_draft_tokens, std::int32_t num_accepted_tokens);
};

// stats.py SchedulerStats, reduced to what the vllm:* families read.
struct SchedulerStats {
  std::int32_t num_running_reqs = 0;
  // Requests waiting for capacity (the waiting queue) and requests deferred by a transient
  // constraint (LoRA budget, remote KV, blocked status: the scheduler's skipped_waiting
  // queue). vllm:num_requests_waiting is their sum.
  std::int32_t num_waiting_reqs = 0;
  std::int32_t num_skipped_waiting_reqs = 0;
  double kv_cache_usage = 0;  // BlockPool.get_usage(), 0..1
  PrefixCacheStats prefix_cache_stats;
  bool has_connector_prefix_cache_stats = false;  // a KV connector is configured
  PrefixCacheStats connector_prefix_cache_stats;
  bool has_spec_decoding_stats = false;
  SpecDecodingStats spec_decoding_stats;
  // The KV connector's observations of the step (empty: none).
  KVConnectorStats kv_connector_stats;

  // Resets to an empty snapshot, keeping the per-position vector's capacity.
  void clear();
};

// vllm/v1/engine EngineCoreEventType.
enum class EngineCoreEventType : std::uint8_t { kQueued = 1, kScheduled = 2, kPreempted = 3 };

struct EngineCoreEvent {
  RequestHandle request = -1;
  EngineCoreEventType type = EngineCoreEventType::kQueued;
  SimTime timestamp = 0;  // engine clock when it happened
};

// One request's output in a step. The engine sends one only when the step produced tokens
// for the request or finished it (Scheduler.update_from_output creates no EngineCoreOutput
// for a prefill chunk that samples nothing).
struct EngineCoreOutput {
  RequestHandle request = -1;
  std::int32_t num_new_tokens = 0;  // len(new_token_ids); with spec decode accepted + 1
  FinishReason finish_reason = FinishReason::kNone;
  // PrefillStats (stats.py), set by Scheduler.schedule at the request's first admission and
  // carried by its first output: prompt tokens skipped thanks to the local prefix cache and a
  // KV connector (Request.num_cached_tokens), and of those the ones a connector supplied
  // (num_external_computed_tokens). Read only with the request's first output.
  std::int32_t num_cached_tokens = 0;
  std::int32_t num_external_computed_tokens = 0;
};

// One EngineCoreOutputs batch as the frontend receives it.
struct EngineCoreOutputs {
  // EngineCoreOutputs.timestamp (engine clock) and, in a simulation, also the frontend's
  // time.time() when it builds IterationStats: one instant.
  SimTime timestamp = 0;
  std::vector<EngineCoreOutput> outputs;
  // Events since the previous batch, in the order they happened. vLLM stores them on the
  // request and ships them with that request's next output (Request.take_events); the
  // recorder does the same buffering, so the engine may append them as they happen.
  std::vector<EngineCoreEvent> events;
  bool has_scheduler_stats = false;
  SchedulerStats scheduler_stats;

  // Empties the batch for reuse without releasing memory.
  void clear();
};

// What the frontend knows about a request when it arrives (OutputProcessor.add_request).
struct RequestInfo {
  SimTime arrival_time = 0;
  std::int32_t num_prompt_tokens = 0;
  std::int32_t max_tokens = 0;  // SamplingParams.max_tokens; 0 = not set (None)
  // Parallel sampling: the n of the parent request and a dense parent handle shared by its
  // n children (-1 for a plain request, n = 1).
  std::int32_t n = 1;
  std::int32_t parent = -1;
};

// stats.py RequestStateStats. As upstream, 0 means "not yet": a request first scheduled at
// t = 0 is treated as not scheduled by the next SCHEDULED event (update_from_events), and
// intervals of a request that never reached a phase are computed from the zeros.
struct RequestStateStats {
  std::int32_t num_generation_tokens = 0;
  SimTime arrival_time = 0;
  SimTime queued_ts = 0, scheduled_ts = 0, first_token_ts = 0, last_token_ts = 0;
  SimTime first_token_latency = 0;
};

// Events of one request not yet delivered (Request.events until take_events): enough to replay
// update_from_events exactly. QUEUED overwrites queued_ts, so the last one wins; SCHEDULED
// sets scheduled_ts only while it is 0, so the first non-zero one wins; each PREEMPTED counts.
struct PendingEvents {
  std::int32_t num_queued = 0;
  SimTime last_queued_ts = 0;
  std::int32_t num_scheduled = 0;
  SimTime first_nonzero_scheduled_ts = 0;
  std::int32_t num_preempted = 0;
  // The type of the latest event: it alone decides the request's LoRA waiting/running state.
  EngineCoreEventType last_type = EngineCoreEventType::kQueued;

  void add(const EngineCoreEvent& event);
  bool empty() const { return num_queued == 0 && num_scheduled == 0 && num_preempted == 0; }
};

// stats.py PromptTokenStats: prompt tokens of requests that got their first output this
// step, by where their KV came from (computed + local_cache_hit + external = total).
struct PromptTokenStats {
  std::int64_t computed = 0;              // source="local_compute"
  std::int64_t local_cache_hit = 0;       // source="local_cache_hit"
  std::int64_t external_kv_transfer = 0;  // source="external_kv_transfer"
  std::int64_t cached_tokens = 0;
  std::int64_t total = 0;

  // PromptTokenStats.update_from_output with the request's PrefillStats (PrefillStats.set:
  // computed = prompt - local - external).
  void update_from_output(std::int32_t num_cached_tokens, std::int32_t num_external_computed_tokens,
                          std::int32_t prompt_len);
};

// stats.py FinishedRequestStats (intervals in seconds, from the raw timestamps).
struct FinishedRequestStats {
  RequestHandle request = -1;  // FinishedRequestStats.request_id, as the recorder's handle
  FinishReason finish_reason = FinishReason::kStop;
  double e2e_latency = 0;
  std::int32_t num_prompt_tokens = 0;
  std::int32_t num_generation_tokens = 0;
  std::int32_t max_tokens_param = 0;  // 0 = None
  double queued_time = 0, prefill_time = 0, decode_time = 0, inference_time = 0;
  double mean_time_per_output_token = 0;  // 0 when the request made one token
  std::int32_t num_cached_tokens = 0;
};

// stats.py IterationStats: everything one EngineCoreOutputs batch contributes. Reused
// between batches (reset keeps the vectors' capacity).
class IterationStats {
 public:
  void reset(SimTime iteration_timestamp);

  // IterationStats.update_from_output for one request output; `pending` are the request's
  // undelivered engine-core events, applied and cleared here.
  void update_from_output(const EngineCoreOutput& output, SimTime engine_core_timestamp,
                          bool is_prefilling, std::int32_t prompt_len, RequestStateStats& req_stats,
                          PendingEvents& pending);
  // IterationStats.update_from_events.
  void update_from_events(PendingEvents& pending, RequestStateStats& req_stats);
  // IterationStats.update_from_finished_request.
  void update_from_finished_request(FinishReason finish_reason, std::int32_t num_prompt_tokens,
                                    std::int32_t max_tokens_param,
                                    const RequestStateStats& req_stats,
                                    std::int32_t num_cached_tokens);

  SimTime iteration_timestamp = 0;
  std::int64_t num_generation_tokens = 0;
  PromptTokenStats prompt_token_stats;
  std::int64_t num_preempted_reqs = 0;
  std::vector<FinishedRequestStats> finished_requests;
  std::vector<std::int32_t> max_num_generation_tokens_iter;
  std::vector<std::int32_t> n_params_iter;
  std::vector<double> time_to_first_tokens_iter;
  std::vector<double> inter_token_latencies_iter;

  // IterationStats.num_prompt_tokens: the full prompt of every request that got its first
  // output in this batch (cached and transferred tokens included).
  std::int64_t num_prompt_tokens() const { return prompt_token_stats.total; }
};

}  // namespace blis::vllm::metrics
