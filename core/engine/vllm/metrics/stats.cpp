#include "engine/vllm/metrics/stats.h"

namespace blis::vllm::metrics {

// stats.py PrefixCacheStats.record: a request that was preempted before is counted in the
// preempted_* fields, so re-admissions after preemption do not inflate the hit rate.
void PrefixCacheStats::record(std::int64_t num_tokens, std::int64_t num_hits, bool preempted) {
  if (preempted) {
    preempted_requests += 1;
    preempted_queries += num_tokens;
    preempted_hits += num_hits;
  } else {
    requests += 1;
    queries += num_tokens;
    hits += num_hits;
  }
}

void SpecDecodingStats::reset(std::int32_t k) {
  num_spec_tokens = k;
  num_drafts = 0;
  num_draft_tokens = 0;
  num_accepted_tokens = 0;
  num_accepted_tokens_per_pos.assign(static_cast<std::size_t>(k > 0 ? k : 0), 0);
  num_draft_tokens_per_pos.assign(static_cast<std::size_t>(k > 0 ? k : 0), 0);
}

// spec_decode/metrics.py SpecDecodingStats.observe_draft: position i counts the drafts whose
// accepted prefix is longer than i.
void SpecDecodingStats::observe_draft(std::int32_t draft_tokens, std::int32_t accepted_tokens) {
  num_drafts += 1;
  num_draft_tokens += draft_tokens;
  num_accepted_tokens += accepted_tokens;
  const std::int32_t positions = static_cast<std::int32_t>(num_accepted_tokens_per_pos.size());
  for (std::int32_t i = 0; i < accepted_tokens && i < positions; ++i)
    num_accepted_tokens_per_pos[static_cast<std::size_t>(i)] += 1;
  for (std::int32_t i = 0; i < draft_tokens && i < positions; ++i)
    num_draft_tokens_per_pos[static_cast<std::size_t>(i)] += 1;
}

void SchedulerStats::clear() {
  num_running_reqs = 0;
  num_waiting_reqs = 0;
  num_skipped_waiting_reqs = 0;
  kv_cache_usage = 0;
  prefix_cache_stats.clear();
  has_connector_prefix_cache_stats = false;
  connector_prefix_cache_stats.clear();
  has_spec_decoding_stats = false;
  spec_decoding_stats.reset(spec_decoding_stats.num_spec_tokens);
  kv_connector_stats.clear();
}

void EngineCoreOutputs::clear() {
  timestamp = 0;
  outputs.clear();
  events.clear();
  has_scheduler_stats = false;
  scheduler_stats.clear();
}

void PendingEvents::add(const EngineCoreEvent& event) {
  last_type = event.type;
  switch (event.type) {
    case EngineCoreEventType::kQueued:
      ++num_queued;
      last_queued_ts = event.timestamp;
      break;
    case EngineCoreEventType::kScheduled:
      if (first_nonzero_scheduled_ts == 0) first_nonzero_scheduled_ts = event.timestamp;
      ++num_scheduled;
      break;
    case EngineCoreEventType::kPreempted:
      ++num_preempted;
      break;
  }
}

// stats.py PromptTokenStats.update_from_output with PrefillStats.set(num_prompt_tokens,
// num_local_cached_tokens, num_external_cached_tokens): the local hit is what the request
// found in the prefix cache at its first admission (capped at prompt - 1 by the KV cache
// manager, so a fully cached prompt computes one token).
void PromptTokenStats::update_from_output(std::int32_t num_cached_tokens,
                                          std::int32_t num_external_computed_tokens,
                                          std::int32_t prompt_len) {
  computed += prompt_len - num_cached_tokens;
  external_kv_transfer += num_external_computed_tokens;
  local_cache_hit += num_cached_tokens - num_external_computed_tokens;
  cached_tokens += num_cached_tokens;
  total += prompt_len;
}

void IterationStats::reset(SimTime timestamp) {
  iteration_timestamp = timestamp;
  num_generation_tokens = 0;
  prompt_token_stats = PromptTokenStats{};
  num_preempted_reqs = 0;
  finished_requests.clear();
  max_num_generation_tokens_iter.clear();
  n_params_iter.clear();
  time_to_first_tokens_iter.clear();
  inter_token_latencies_iter.clear();
}

// stats.py IterationStats.update_from_output. A request's first output (is_prefilling) adds
// its prompt once, a TTFT observation and the first-token time, whether or not it brought a
// token (a finish without tokens counts too); every later output is one inter-token latency,
// however many tokens it brought (spec decode delivers several at once).
void IterationStats::update_from_output(const EngineCoreOutput& output,
                                        SimTime engine_core_timestamp, bool is_prefilling,
                                        std::int32_t prompt_len, RequestStateStats& req_stats,
                                        PendingEvents& pending) {
  const std::int32_t num_new_generation_tokens = output.num_new_tokens;
  num_generation_tokens += num_new_generation_tokens;
  if (is_prefilling) {
    prompt_token_stats.update_from_output(output.num_cached_tokens,
                                          output.num_external_computed_tokens, prompt_len);
    const SimTime latency = iteration_timestamp - req_stats.arrival_time;
    time_to_first_tokens_iter.push_back(to_seconds(latency));
    req_stats.first_token_latency = latency;
  }
  req_stats.num_generation_tokens += num_new_generation_tokens;

  if (!pending.empty()) update_from_events(pending, req_stats);

  if (is_prefilling) {
    req_stats.first_token_ts = engine_core_timestamp;
  } else {
    inter_token_latencies_iter.push_back(
        to_seconds(engine_core_timestamp - req_stats.last_token_ts));
  }
  req_stats.last_token_ts = engine_core_timestamp;
}

// stats.py IterationStats.update_from_events: QUEUED overwrites queued_ts; SCHEDULED sets
// scheduled_ts only while it is 0.0 ("ignore preemptions"); each PREEMPTED counts once.
void IterationStats::update_from_events(PendingEvents& pending, RequestStateStats& req_stats) {
  if (pending.num_queued > 0) req_stats.queued_ts = pending.last_queued_ts;
  if (pending.num_scheduled > 0 && req_stats.scheduled_ts == 0)
    req_stats.scheduled_ts = pending.first_nonzero_scheduled_ts;
  num_preempted_reqs += pending.num_preempted;
  pending = PendingEvents{};
}

// stats.py IterationStats.update_from_finished_request: every interval from the raw
// timestamps (0 where a phase was never reached), as upstream computes them.
void IterationStats::update_from_finished_request(FinishReason finish_reason,
                                                  std::int32_t num_prompt_tokens,
                                                  std::int32_t max_tokens_param,
                                                  const RequestStateStats& req_stats,
                                                  std::int32_t num_cached_tokens) {
  FinishedRequestStats f;
  f.finish_reason = finish_reason;
  f.e2e_latency = to_seconds(iteration_timestamp - req_stats.arrival_time);
  f.num_prompt_tokens = num_prompt_tokens;
  f.num_generation_tokens = req_stats.num_generation_tokens;
  f.max_tokens_param = max_tokens_param;
  f.num_cached_tokens = num_cached_tokens;
  f.queued_time = to_seconds(req_stats.scheduled_ts - req_stats.queued_ts);
  f.prefill_time = to_seconds(req_stats.first_token_ts - req_stats.scheduled_ts);
  f.decode_time = to_seconds(req_stats.last_token_ts - req_stats.first_token_ts);
  f.inference_time = to_seconds(req_stats.last_token_ts - req_stats.scheduled_ts);
  // The token of the prefill step is not a decode step.
  if (req_stats.num_generation_tokens - 1 > 0)
    f.mean_time_per_output_token =
        f.decode_time / static_cast<double>(req_stats.num_generation_tokens - 1);
  finished_requests.push_back(f);
}

}  // namespace blis::vllm::metrics
