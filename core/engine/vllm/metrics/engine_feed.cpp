#include "engine/vllm/metrics/engine_feed.h"

#include <stdexcept>

#include "engine/vllm/key_index.h"
#include "engine/vllm/metrics/cache_config_info.h"

namespace blis::vllm::metrics {
namespace {

// The scheduler's prefix-cache counters (local or connector) into the metrics' copy of them
// (vllm v1/metrics/stats.py PrefixCacheStats: same fields on both sides).
template <class Dst, class Src>
void copy_prefix_counts(Dst& d, const Src& s) {
  d.requests = s.requests;
  d.queries = s.queries;
  d.hits = s.hits;
  d.preempted_requests = s.preempted_requests;
  d.preempted_queries = s.preempted_queries;
  d.preempted_hits = s.preempted_hits;
}

}  // namespace

RecorderConfig recorder_config(const VllmConfig& cfg) {
  RecorderConfig c;
  const auto release = parse_release(cfg.release);
  if (!release) {
    throw std::invalid_argument("release: \"" + cfg.release +
                                "\" is not a release the metrics model (0.29, 0.31, 0.32)");
  }
  c.release = *release;
  c.model_name = cfg.served_model_name;
  c.engine_index = 0;  // one engine per instance (no data parallelism inside an instance)
  c.max_model_len = cfg.max_model_len;
  c.num_speculative_tokens = cfg.num_speculative_tokens;
  c.lora_enabled = cfg.max_loras > 0;
  c.max_loras = cfg.max_loras > 0 ? cfg.max_loras : 1;
  CacheConfigInfo info;
  info.block_size = cfg.block_size;
  info.enable_prefix_caching = cfg.enable_prefix_caching;
  info.num_gpu_blocks = cfg.num_gpu_blocks;  // KVCacheConfig.num_blocks, null block included
  info.num_cpu_blocks = 0;
  info.max_model_len = cfg.max_model_len;
  c.cache_config_info = cache_config_labels(info);
  return c;
}

void feed_added(MetricsRecorder& recorder, RequestHandle handle, const engine::RequestSpec& spec,
                SimTime now) {
  RequestInfo info;
  info.arrival_time = spec.arrival;
  info.num_prompt_tokens = static_cast<std::int32_t>(spec.prompt_token_ids.size());
  info.max_tokens = spec.max_tokens;
  recorder.add_request(handle, info, spec.lora_id);
  recorder.record_event(EngineCoreEvent{handle, EngineCoreEventType::kQueued, now});
}

void feed_scheduled(MetricsRecorder& recorder, const SchedulerOutput& out, const KeyIndex& refs,
                    SimTime now) {
  // scheduler.py: PREEMPTED in _preempt_request, SCHEDULED when a waiting request is admitted
  // (scheduled_timestamp is taken when schedule() starts: this step's `now`).
  for (const engine::RequestKey key : out.preempted) {
    const ReqRef ref = refs.get(key);
    if (ref.index >= 0)
      recorder.record_event(EngineCoreEvent{ref.index, EngineCoreEventType::kPreempted, now});
  }
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind == ScheduledKind::kRunning) continue;
    recorder.record_event(EngineCoreEvent{e.ref.index, EngineCoreEventType::kScheduled, now});
  }
}

EngineCoreOutput error_output(const ErroredRequest& er) {
  EngineCoreOutput o;
  o.request = er.slot;
  o.num_new_tokens = 0;
  o.finish_reason = FinishReason::kError;
  o.num_cached_tokens = er.num_cached_tokens > 0 ? er.num_cached_tokens : 0;
  return o;
}

void feed_errored_between_steps(MetricsRecorder& recorder, std::span<const ErroredRequest> errored,
                                SimTime now) {
  if (errored.empty()) return;
  EngineCoreOutputs batch;
  batch.timestamp = now;
  for (const ErroredRequest& er : errored) batch.outputs.push_back(error_output(er));
  recorder.record(batch);
}

void feed_completed(MetricsRecorder& recorder, EngineCoreOutputs& pending, const UpdateResult& res,
                    const Scheduler& scheduler, const vllm::SchedulerStats& stats,
                    const KVConnectorStats* connector_stats, SimTime now) {
  SchedulerStats& st = pending.scheduler_stats;
  st.spec_decoding_stats.reset(scheduler.config().num_speculative_tokens);
  for (std::size_t i = 0; i < res.updates.size(); ++i) {
    const RequestUpdate& u = res.updates[i];
    // scheduler.py update_from_output: make_spec_decoding_stats for a request still present
    // whose scheduled drafts got tokens back, stale output included; a finished request and
    // drop-mode stale output (`continue` before it) observe nothing. Scheduler::
    // update_from_output sets num_draft_tokens exactly then (the trace's spec_verify reads it).
    if (u.num_draft_tokens > 0) {
      st.has_spec_decoding_stats = true;
      st.spec_decoding_stats.observe_draft(u.num_draft_tokens, u.num_accepted_tokens);
    }
    // An EngineCoreOutput only for new tokens (a stop always comes with its token).
    if (u.num_delivered == 0 && !u.stopped) continue;
    EngineCoreOutput o;
    o.request = u.ref.index;
    o.num_new_tokens = u.num_delivered;
    o.finish_reason = u.stopped ? finish_reason(u.status) : FinishReason::kNone;
    // The frontend takes the cached tokens from the output's PrefillStats (local + external
    // at the first admission), not from Request.num_cached_tokens.
    const std::int32_t cached =
        u.num_prefill_cached_tokens >= 0 ? u.num_prefill_cached_tokens : u.num_cached_tokens;
    o.num_cached_tokens = cached > 0 ? cached : 0;
    o.num_external_computed_tokens = u.num_external_computed_tokens;
    pending.outputs.push_back(o);
  }
  // scheduler.py update_from_output error_reqs (a failed KV load under "fail"): an output
  // with no tokens and finish_reason error.
  for (const ErroredRequest& er : res.errored) pending.outputs.push_back(error_output(er));
  // Scheduler.make_stats, attached to every update_from_output (even without outputs).
  pending.has_scheduler_stats = true;
  st.num_running_reqs = scheduler.num_running();
  st.num_waiting_reqs = scheduler.waiting_queue().size();
  st.num_skipped_waiting_reqs = scheduler.skipped_waiting_queue().size();
  st.kv_cache_usage = stats.kv_cache_usage;
  const auto& p = stats.prefix_cache_stats;
  st.prefix_cache_stats.reset = p.reset;
  copy_prefix_counts(st.prefix_cache_stats, p);
  st.has_connector_prefix_cache_stats = stats.has_connector_prefix_cache_stats;
  if (stats.has_connector_prefix_cache_stats) {
    copy_prefix_counts(st.connector_prefix_cache_stats, stats.connector_prefix_cache_stats);
  }
  if (connector_stats != nullptr) st.kv_connector_stats.aggregate(*connector_stats);
  pending.timestamp = now;
  recorder.record(pending);
  pending.clear();
}

}  // namespace blis::vllm::metrics
