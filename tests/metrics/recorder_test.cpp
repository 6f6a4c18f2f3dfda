// The update rule of every family (A.2, A.3 of the metrics spec) and the spec's test cases
// (E.3 to E.11), driven through MetricsRecorder with hand-built event sequences.

#include <gtest/gtest.h>

#include <stdexcept>

#include "script.h"

namespace blis::vllm::metrics {
namespace {

using testing::basic_config;
using testing::ms;
using testing::Script;

// E.3: a 3000-token prompt prefilled in three chunks adds its prompt tokens once, with the
// first token; steps without outputs build no IterationStats.
TEST(Recorder, ChunkedPrefillAddsPromptTokensOnce) {
  Script s(basic_config());
  s.add(0, 3000);
  s.add(1, 10);
  s.queued(0, 0);
  s.scheduled(0, ms(1));
  s.sched().num_running_reqs = 1;
  s.flush(ms(100));  // chunk 1: no output
  s.sched().num_running_reqs = 1;
  s.flush(ms(200));  // chunk 2: no output
  EXPECT_EQ(s.value("vllm:prompt_tokens"), 0);
  EXPECT_EQ(s.count("vllm:iteration_tokens_total"), 0u);
  EXPECT_EQ(s.value("vllm:num_requests_running"), 1);

  s.out(0, 1);  // chunk 3 samples the first token
  s.flush(ms(300));
  EXPECT_EQ(s.value("vllm:prompt_tokens"), 3000);
  EXPECT_EQ(s.value("vllm:generation_tokens"), 1);
  EXPECT_EQ(s.count("vllm:iteration_tokens_total"), 1u);
  EXPECT_EQ(s.sum("vllm:iteration_tokens_total"), 3001);
  EXPECT_EQ(s.bucket("vllm:iteration_tokens_total", 4096), 1u);

  // A later step: decode of request 0 plus the first token of request 1.
  s.out(0, 1);
  s.out(1, 1);
  s.flush(ms(400));
  EXPECT_EQ(s.value("vllm:prompt_tokens"), 3010);
  EXPECT_EQ(s.value("vllm:generation_tokens"), 3);
  EXPECT_EQ(s.count("vllm:iteration_tokens_total"), 2u);
  EXPECT_EQ(s.sum("vllm:iteration_tokens_total"), 3001 + 12);
  EXPECT_EQ(s.bucket("vllm:iteration_tokens_total", 16), 1u);
}

// E.8: preempted and resumed, the request keeps its first SCHEDULED timestamp; the
// preemption counts when its event reaches the frontend with the request's next output.
// ext/FORMAT.md section 6: a PREEMPTED event travels with the request's next output
// (Request.take_events); a request aborted by the client before it emits again takes its
// event with it (OutputProcessor.abort_requests), so the preemption is never counted.
TEST(Recorder, PreemptionOfARequestAbortedBeforeItEmitsIsNotCounted) {
  Script s(basic_config());
  s.add(0, 10);
  s.add(1, 10);
  s.scheduled(0, ms(1));
  s.scheduled(1, ms(1));
  s.out(0, 1);
  s.out(1, 1);
  s.flush(ms(10));
  s.preempted(0, ms(20));
  s.out(1, 1);
  s.flush(ms(30));
  EXPECT_EQ(s.value("vllm:num_preemptions"), 0);
  s.rec.abort_request(0);
  s.preempted(1, ms(40));
  s.out(1, 1);
  s.flush(ms(50));
  EXPECT_EQ(s.value("vllm:num_preemptions"), 1);  // only request 1's
}

TEST(Recorder, PreemptedRequestKeepsFirstScheduledTimestamp) {
  Script s(basic_config());
  s.add(0, 100, 0, 50);
  s.queued(0, 0);
  s.scheduled(0, ms(1000));
  s.preempted(0, ms(2000));
  s.scheduled(0, ms(3000));
  s.sched().num_waiting_reqs = 1;
  s.flush(ms(3500));  // the events arrive, but no output for the request yet
  EXPECT_EQ(s.value("vllm:num_preemptions"), 0);

  s.out(0, 1);
  s.flush(ms(4000));
  EXPECT_EQ(s.value("vllm:num_preemptions"), 1);
  s.out(0, 1);
  s.flush(ms(5000));
  s.out(0, 1, FinishReason::kStop, 0, 0);
  s.flush(ms(6000));
  EXPECT_EQ(s.value("vllm:num_preemptions"), 1);
  EXPECT_EQ(s.count("vllm:request_queue_time_seconds"), 1u);
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_queue_time_seconds"), 1.0);      // first SCHEDULED - QUEUED
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_prefill_time_seconds"), 3.0);    // 4 - 1
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_inference_time_seconds"), 5.0);  // 6 - 1
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_decode_time_seconds"), 2.0);     // 6 - 4
  EXPECT_DOUBLE_EQ(s.sum("vllm:time_to_first_token_seconds"), 4.0);
  EXPECT_DOUBLE_EQ(s.sum("vllm:e2e_request_latency_seconds"), 6.0);
  // 8d9b52f7 has no per-request preemption histogram.
  EXPECT_FALSE(s.rec.prometheus().has_family("vllm:request_num_preemptions"));
}

// stats.py update_from_events: SCHEDULED sets scheduled_ts only while it is 0.0, so a request
// first scheduled at t = 0 takes the time of its next SCHEDULED (after a preemption).
TEST(Recorder, ScheduledAtTimeZeroIsOverwrittenByTheNextOne) {
  Script s(basic_config());
  s.add(0, 100, 0, 50);
  s.queued(0, 0);
  s.scheduled(0, 0);
  s.preempted(0, ms(1000));
  s.scheduled(0, ms(2000));
  s.out(0, 1);
  s.flush(ms(3000));
  s.out(0, 1, FinishReason::kStop);
  s.flush(ms(4000));
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_queue_time_seconds"), 2.0);
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_prefill_time_seconds"), 1.0);
}

TEST(Recorder, LastQueuedEventWins) {
  Script s(basic_config());
  s.add(0, 10);
  s.queued(0, ms(100));
  s.queued(0, ms(300));  // QUEUED overwrites queued_ts
  s.scheduled(0, ms(500));
  s.out(0, 1, FinishReason::kLength);
  s.flush(ms(600));
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_queue_time_seconds"), 0.2);
}

// E.11: five output tokens at t1..t5 give four ITL observations; the request's mean time per
// output token is (t5 - t1) / 4 and its decode time t5 - t1.
TEST(Recorder, InterTokenLatencyAndTimePerOutputToken) {
  Script s(basic_config());
  s.add(0, 10);
  s.queued(0, 0);
  s.scheduled(0, 0);
  const SimTime t[5] = {ms(250), ms(500), ms(1000), ms(1250), ms(2250)};
  for (int i = 0; i < 5; ++i) {
    s.out(0, 1, i == 4 ? FinishReason::kStop : FinishReason::kNone);
    s.flush(t[i]);
  }
  EXPECT_EQ(s.count("vllm:inter_token_latency_seconds"), 4u);
  EXPECT_DOUBLE_EQ(s.sum("vllm:inter_token_latency_seconds"), 2.0);
  EXPECT_EQ(s.bucket("vllm:inter_token_latency_seconds", 0.3), 2u);  // 0.25, 0.25
  EXPECT_EQ(s.bucket("vllm:inter_token_latency_seconds", 0.5), 1u);  // 0.5
  EXPECT_EQ(s.bucket("vllm:inter_token_latency_seconds", 1.0), 1u);  // 1.0 (le is inclusive)
  EXPECT_EQ(s.count("vllm:request_time_per_output_token_seconds"), 1u);
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_time_per_output_token_seconds"), 0.5);
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_decode_time_seconds"), 2.0);
  EXPECT_EQ(s.value("vllm:generation_tokens"), 5);
}

// With speculative decoding a step delivers several tokens: still one ITL observation.
TEST(Recorder, SpecDecodeStepIsOneInterTokenLatency) {
  Script s(basic_config());
  s.add(0, 10);
  s.queued(0, 0);
  s.scheduled(0, 0);
  s.out(0, 1);
  s.flush(ms(100));
  s.out(0, 4);  // 3 accepted drafts + the bonus token
  s.flush(ms(200));
  s.out(0, 2, FinishReason::kLength);
  s.flush(ms(300));
  EXPECT_EQ(s.count("vllm:inter_token_latency_seconds"), 2u);
  EXPECT_EQ(s.value("vllm:generation_tokens"), 7);
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_time_per_output_token_seconds"), 0.2 / 6);
}

// A request that made one token has no mean time per output token.
// stats.py: mean_time_per_output_token is 0 for a one-token request, and still observed.
TEST(Recorder, SingleTokenRequestObservesZeroTimePerOutputToken) {
  Script s(basic_config());
  s.add(0, 10, 0, 1);
  s.queued(0, 0);
  s.scheduled(0, 0);
  s.out(0, 1, FinishReason::kLength);
  s.flush(ms(100));
  EXPECT_EQ(s.count("vllm:request_time_per_output_token_seconds"), 1u);
  EXPECT_EQ(s.sum("vllm:request_time_per_output_token_seconds"), 0.0);
  EXPECT_EQ(s.count("vllm:request_decode_time_seconds"), 1u);
  EXPECT_EQ(s.sum("vllm:request_decode_time_seconds"), 0.0);
}

// E.7: request_success by finish reason.
TEST(Recorder, RequestSuccessByFinishReason) {
  Script s(basic_config());
  for (RequestHandle h = 0; h < 3; ++h) s.add(h, 10);
  s.out(0, 1, FinishReason::kStop);
  s.out(1, 1, FinishReason::kLength);
  s.out(2, 0, FinishReason::kAbort);
  s.flush(ms(100));
  EXPECT_EQ(s.value("vllm:request_success", "stop"), 1);
  EXPECT_EQ(s.value("vllm:request_success", "length"), 1);
  EXPECT_EQ(s.value("vllm:request_success", "abort"), 1);
  EXPECT_EQ(s.value("vllm:request_success", "error"), 0);
  EXPECT_EQ(s.value("vllm:request_success", "repetition"), 0);
  EXPECT_EQ(s.count("vllm:e2e_request_latency_seconds"), 3u);
}

// E.9: max_tokens observed only when set.
TEST(Recorder, MaxTokensObservedOnlyWhenSet) {
  Script s(basic_config());
  s.add(0, 10, 0, 0);
  s.add(1, 10, 0, 100);
  s.out(0, 1, FinishReason::kStop);
  s.flush(ms(10));
  EXPECT_EQ(s.count("vllm:request_params_max_tokens"), 0u);
  s.out(1, 1, FinishReason::kStop);
  s.flush(ms(20));
  EXPECT_EQ(s.count("vllm:request_params_max_tokens"), 1u);
  EXPECT_EQ(s.bucket("vllm:request_params_max_tokens", 100), 1u);
}

// An engine-side finish without tokens (stats.py at 8d9b52f7): its first output still counts
// as the first token (TTFT, first_token_ts), and every interval is observed from the raw
// timestamps, 0 where a phase never happened.
TEST(Recorder, FinishesWithoutTokensObserveEveryInterval) {
  Script s(basic_config());
  s.add(0, 50);  // aborted while waiting: never scheduled
  s.add(1, 60);  // aborted during prefill
  s.queued(0, 0);
  s.queued(1, 0);
  s.scheduled(1, ms(100));
  s.out(0, 0, FinishReason::kAbort);
  s.out(1, 0, FinishReason::kAbort, 0);
  s.flush(ms(400));
  EXPECT_EQ(s.value("vllm:request_success", "abort"), 2);
  EXPECT_EQ(s.count("vllm:e2e_request_latency_seconds"), 2u);
  EXPECT_EQ(s.count("vllm:request_queue_time_seconds"), 2u);
  // Request 0 was never scheduled: scheduled_ts stays 0, queued_ts is 0.
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_queue_time_seconds"), 0.1);
  EXPECT_EQ(s.count("vllm:request_prefill_time_seconds"), 2u);
  // first_token_ts = 0.4 for both; minus scheduled_ts (0 and 0.1).
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_prefill_time_seconds"), 0.4 + 0.3);
  EXPECT_EQ(s.count("vllm:request_decode_time_seconds"), 2u);
  EXPECT_EQ(s.sum("vllm:request_decode_time_seconds"), 0.0);
  EXPECT_EQ(s.count("vllm:time_to_first_token_seconds"), 2u);
  EXPECT_EQ(s.count("vllm:request_time_per_output_token_seconds"), 2u);
  // The first output of a request, even a finish without tokens, carries its prompt once.
  EXPECT_EQ(s.value("vllm:prompt_tokens"), 110);
  EXPECT_EQ(s.count("vllm:request_generation_tokens"), 2u);
  EXPECT_EQ(s.bucket("vllm:request_generation_tokens", 1), 2u);  // 0 tokens -> first bucket
}

// stats.py PromptTokenStats: where the prompt's KV came from.
TEST(Recorder, PromptTokensBySource) {
  Script s(basic_config());
  s.add(0, 100);  // 64 tokens from the local prefix cache
  s.add(1, 97);   // fully cached: the hit is capped at 96, the last token is computed
  s.add(2, 100);  // decode side of P/D: 64 local hits, the rest from the connector
  s.out(0, 1, FinishReason::kNone, 64);
  s.out(1, 1, FinishReason::kNone, 96);
  s.out(2, 1, FinishReason::kNone, 99, 35);
  s.flush(ms(10));
  EXPECT_EQ(s.value("vllm:prompt_tokens"), 297);
  EXPECT_EQ(s.value("vllm:prompt_tokens_by_source", "local_compute"), 36 + 1 + 1);
  EXPECT_EQ(s.value("vllm:prompt_tokens_by_source", "local_cache_hit"), 64 + 96 + 64);
  EXPECT_EQ(s.value("vllm:prompt_tokens_by_source", "external_kv_transfer"), 35);
  EXPECT_EQ(s.value("vllm:prompt_tokens_cached"), 64 + 96 + 99);
  EXPECT_FALSE(s.rec.prometheus().has_family("vllm:prompt_tokens_recomputed"));
  for (RequestHandle h = 0; h < 3; ++h) s.out(h, 1, FinishReason::kStop);
  s.flush(ms(20));
  // request_prefill_kv_computed_tokens = prompt - cached of the first output.
  EXPECT_EQ(s.count("vllm:request_prefill_kv_computed_tokens"), 3u);
  EXPECT_EQ(s.sum("vllm:request_prefill_kv_computed_tokens"), 36 + 1 + 1);
  // Later outputs do not change the prompt accounting.
  EXPECT_EQ(s.value("vllm:prompt_tokens"), 297);
}

// E.4 (counters part): prefix cache queries and hits, preempted re-admissions left out.
TEST(Recorder, PrefixCacheCounters) {
  Script s(basic_config());
  s.sched().prefix_cache_stats.record(100, 0, false);
  s.flush(ms(10));
  auto& st = s.sched();
  st.prefix_cache_stats.record(100, 64, false);
  st.prefix_cache_stats.record(80, 80, true);
  s.flush(ms(20));
  EXPECT_EQ(s.value("vllm:prefix_cache_queries"), 200);
  EXPECT_EQ(s.value("vllm:prefix_cache_hits"), 64);
  EXPECT_EQ(s.value("vllm:external_prefix_cache_queries"), 0);
  auto& st3 = s.sched();
  st3.has_connector_prefix_cache_stats = true;
  st3.connector_prefix_cache_stats.record(36, 36, false);
  s.flush(ms(30));
  EXPECT_EQ(s.value("vllm:external_prefix_cache_queries"), 36);
  EXPECT_EQ(s.value("vllm:external_prefix_cache_hits"), 36);
}

TEST(Recorder, SchedulerGauges) {
  Script s(basic_config());
  auto& st = s.sched();
  st.num_running_reqs = 4;
  st.num_waiting_reqs = 3;
  st.num_skipped_waiting_reqs = 2;
  st.kv_cache_usage = 0.25;  // E.6: 250 of 1000 usable blocks referenced
  s.flush(ms(10));
  EXPECT_EQ(s.value("vllm:num_requests_running"), 4);
  EXPECT_EQ(s.value("vllm:num_requests_waiting"), 5);
  EXPECT_EQ(s.value("vllm:num_requests_waiting_by_reason", "capacity"), 3);
  EXPECT_EQ(s.value("vllm:num_requests_waiting_by_reason", "deferred"), 2);
  EXPECT_EQ(s.value("vllm:kv_cache_usage_perc"), 0.25);
  // A batch without SchedulerStats leaves the gauges as they were.
  s.add(0, 5);
  s.out(0, 1);
  s.flush(ms(20));
  EXPECT_EQ(s.value("vllm:num_requests_running"), 4);
  EXPECT_EQ(s.value("vllm:engine_sleep_state", "awake"), 1);
  EXPECT_EQ(s.value("vllm:engine_sleep_state", "weights_offloaded"), 0);
  EXPECT_EQ(s.value("vllm:engine_sleep_state", "discard_all"), 0);
}

// E.10: k = 3, one request verifies 3 drafts and accepts 2.
TEST(Recorder, SpecDecodeCounters) {
  RecorderConfig c = basic_config();
  c.num_speculative_tokens = 3;
  Script s(c);
  s.add(0, 10);
  s.out(0, 1);
  s.flush(ms(10));
  auto& st = s.sched();
  st.has_spec_decoding_stats = true;
  st.spec_decoding_stats.reset(3);
  st.spec_decoding_stats.observe_draft(3, 2);
  s.out(0, 3);  // 2 accepted + 1 bonus
  s.flush(ms(20));
  EXPECT_EQ(s.value("vllm:spec_decode_num_drafts"), 1);
  EXPECT_EQ(s.value("vllm:spec_decode_num_draft_tokens"), 3);
  EXPECT_EQ(s.value("vllm:spec_decode_num_accepted_tokens"), 2);
  EXPECT_EQ(s.value("vllm:spec_decode_num_accepted_tokens_per_pos", "0"), 1);
  EXPECT_EQ(s.value("vllm:spec_decode_num_accepted_tokens_per_pos", "1"), 1);
  EXPECT_EQ(s.value("vllm:spec_decode_num_accepted_tokens_per_pos", "2"), 0);
  EXPECT_EQ(s.value("vllm:generation_tokens"), 4);
  EXPECT_EQ(s.count("vllm:inter_token_latency_seconds"), 1u);
  const LogRecord log = s.rec.log(ms(5000));
  EXPECT_EQ(log.spec_decode_line,
            "SpecDecoding metrics: Mean acceptance length: 3.00, Accepted throughput: 0.40 "
            "tokens/s, Drafted throughput: 0.60 tokens/s, Accepted: 2 tokens, Drafted: 3 tokens, "
            "Per-position acceptance rate: 1.000, 1.000, 0.000, Avg Draft acceptance rate: 66.7%");
  // The accumulators reset after a printed line; nothing new, nothing printed.
  EXPECT_EQ(s.rec.log(ms(10000)).spec_decode_line, "");
}

// n > 1: max_num_generation_tokens and n are observed once, when the last child finishes.
TEST(Recorder, ParallelSamplingObservesTheParentOnce) {
  Script s(basic_config());
  for (RequestHandle h = 0; h < 3; ++h) {
    RequestInfo info;
    info.num_prompt_tokens = 10;
    info.n = 3;
    info.parent = 7;
    s.rec.add_request(h, info);
  }
  s.out(0, 3, FinishReason::kStop);
  s.out(1, 5, FinishReason::kLength);
  s.flush(ms(10));
  EXPECT_EQ(s.count("vllm:request_max_num_generation_tokens"), 0u);
  EXPECT_EQ(s.count("vllm:request_params_n"), 0u);
  EXPECT_EQ(s.count("vllm:request_generation_tokens"), 2u);
  s.out(2, 4, FinishReason::kStop);
  s.flush(ms(20));
  EXPECT_EQ(s.count("vllm:request_max_num_generation_tokens"), 1u);
  EXPECT_EQ(s.sum("vllm:request_max_num_generation_tokens"), 5);
  EXPECT_EQ(s.count("vllm:request_params_n"), 1u);
  EXPECT_EQ(s.bucket("vllm:request_params_n", 5), 1u);
  // A plain request counts n = 1 and its own length.
  s.add(3, 10);
  s.out(3, 2, FinishReason::kStop);
  s.flush(ms(30));
  EXPECT_EQ(s.bucket("vllm:request_params_n", 1), 1u);
  EXPECT_EQ(s.sum("vllm:request_max_num_generation_tokens"), 7);
}

TEST(Recorder, UnknownAndFinishedHandlesAreIgnored) {
  Script s(basic_config());
  s.add(0, 10);
  s.out(0, 1, FinishReason::kStop);
  s.flush(ms(10));
  EXPECT_FALSE(s.rec.active(0));
  s.out(0, 1);   // a late output of a finished request
  s.out(42, 1);  // never added
  s.preempted(42, ms(15));
  s.flush(ms(20));
  EXPECT_EQ(s.value("vllm:generation_tokens"), 1);
  EXPECT_EQ(s.value("vllm:num_preemptions"), 0);
  // The batch had outputs, so it still made one (empty) IterationStats observation.
  EXPECT_EQ(s.count("vllm:iteration_tokens_total"), 2u);
  // Handles are reused after finishing; the new request starts from scratch.
  s.add(0, 20, ms(20));
  s.out(0, 1);
  s.flush(ms(50));
  EXPECT_EQ(s.value("vllm:prompt_tokens"), 30);
  EXPECT_DOUBLE_EQ(s.sum("vllm:time_to_first_token_seconds"), 0.01 + 0.03);
  EXPECT_THROW(s.add(0, 5), std::invalid_argument);
  EXPECT_THROW(s.add(-1, 5), std::invalid_argument);
}

// A client abort leaves the frontend without a finished output: nothing is observed.
TEST(Recorder, ClientAbortObservesNothing) {
  RecorderConfig c = basic_config();
  c.lora_enabled = true;
  Script s(c);
  s.add(0, 10, 0, 0, 1);
  s.queued(0, 0);
  s.scheduled(0, ms(5));
  s.out(0, 1);
  s.sched();
  s.flush(ms(10));
  EXPECT_EQ(s.rec.prometheus().value("vllm:lora_requests_info", "1"), 0.01);
  s.rec.abort_request(0);
  s.rec.abort_request(0);  // idempotent
  s.rec.abort_request(9);  // unknown
  EXPECT_FALSE(s.rec.active(0));
  s.out(0, 1);  // a late output is ignored
  s.sched();
  s.flush(ms(20));
  EXPECT_EQ(s.value("vllm:request_success", "abort"), 0);
  EXPECT_EQ(s.count("vllm:e2e_request_latency_seconds"), 0u);
  EXPECT_EQ(s.value("vllm:generation_tokens"), 1);
  // The adapter has no request left.
  EXPECT_EQ(s.rec.prometheus().value("vllm:lora_requests_info", ""), 0.02);
}

// Events recorded for a request that is then aborted stay with it: a new request on the
// same handle starts clean.
TEST(Recorder, EventsDoNotOutliveTheirRequest) {
  Script s(basic_config());
  s.add(0, 10);
  s.rec.record_event({0, EngineCoreEventType::kPreempted, ms(5)});
  s.rec.abort_request(0);
  s.add(0, 10, ms(10));
  s.rec.record_event({0, EngineCoreEventType::kQueued, ms(10)});
  s.rec.record_event({0, EngineCoreEventType::kScheduled, ms(15)});
  s.out(0, 1, FinishReason::kStop);
  s.flush(ms(20));
  EXPECT_EQ(s.value("vllm:num_preemptions"), 0);
  EXPECT_DOUBLE_EQ(s.sum("vllm:request_queue_time_seconds"), 0.005);
}

// Arrival at t = 0 is a real instant in a simulation (vLLM's 0.0 sentinel is not used).
TEST(Recorder, EventsAtTimeZeroCount) {
  Script s(basic_config());
  s.add(0, 10, 0);
  s.queued(0, 0);
  s.scheduled(0, 0);
  s.out(0, 1, FinishReason::kStop);
  s.flush(0);
  EXPECT_EQ(s.count("vllm:request_queue_time_seconds"), 1u);
  EXPECT_EQ(s.count("vllm:request_prefill_time_seconds"), 1u);
  EXPECT_EQ(s.bucket("vllm:time_to_first_token_seconds", 0.001), 1u);
}

TEST(Recorder, LoRARequestsInfo) {
  RecorderConfig c = basic_config();
  c.lora_enabled = true;
  c.max_loras = 2;
  c.lora_names = {"sql", "chat"};
  Script s(c);
  s.add(0, 10, 0, 0, 2);
  s.add(1, 10, 0, 0, 1);
  s.add(2, 10, 0, 0, 0);
  s.queued(0, 0);
  s.queued(1, 0);
  s.queued(2, 0);
  s.sched();
  s.flush(ms(500));
  // Events are pending until the requests' outputs: no adapter is known yet.
  std::string text = s.rec.exposition();
  EXPECT_NE(text.find("vllm:lora_requests_info{max_lora=\"2\",running_lora_adapters=\"\","
                      "waiting_lora_adapters=\"\"} 0.5\n"),
            std::string::npos)
      << text;
  s.scheduled(0, ms(600));
  s.scheduled(1, ms(600));
  s.out(0, 1);
  s.out(1, 1);
  s.sched();
  s.flush(ms(1000));
  s.out(0, 1, FinishReason::kStop);
  s.sched();
  s.flush(ms(1500));
  text = s.rec.exposition();
  // Adapters in the order they became active; both labels list every active adapter.
  EXPECT_NE(text.find("vllm:lora_requests_info{max_lora=\"2\",running_lora_adapters=\"chat,sql\","
                      "waiting_lora_adapters=\"chat,sql\"} 1.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("vllm:lora_requests_info{max_lora=\"2\",running_lora_adapters=\"sql\","
                      "waiting_lora_adapters=\"sql\"} 1.5\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(s.rec.prometheus().value("vllm:lora_requests_info", "sql"), 1.5);
}

}  // namespace
}  // namespace blis::vllm::metrics

namespace blis::vllm::metrics {
namespace {

// KVConnectorStats (SchedulerStats.kv_connector_stats) onto the connector's families:
// OffloadPromMetrics creates a flat family's child on first use and keeps the deprecated
// transfer_type families in step; entries of another connector's families are ignored.
TEST(Recorder, ConnectorStatsReachTheirFamilies) {
  RecorderConfig c = testing::basic_config();
  c.connector = ConnectorMetrics::kOffloading;
  testing::Script s(c);
  EXPECT_EQ(s.rec.prometheus().value("vllm:kv_offload_load_bytes"), std::nullopt);
  EXPECT_EQ(s.rec.exposition().find("vllm:kv_offload_load_bytes_total{"), std::string::npos);
  auto& st = s.sched();
  st.kv_connector_stats.increase("vllm:kv_offload_load_bytes", 4096);
  st.kv_connector_stats.observe("vllm:kv_offload_store_size", 8192);
  st.kv_connector_stats.set("vllm:kv_offload_cpu_cache_usage_perc", 0.25);
  st.kv_connector_stats.increase("vllm:nixl_num_failed_transfers");
  s.flush(testing::ms(10));
  EXPECT_EQ(s.value("vllm:kv_offload_load_bytes"), 4096);
  EXPECT_EQ(s.value("vllm:kv_offload_total_bytes", "CPU_to_GPU"), 4096);
  EXPECT_EQ(s.value("vllm:kv_offload_total_bytes", "GPU_to_CPU"), 0);
  EXPECT_EQ(s.value("vllm:kv_offload_cpu_cache_usage_perc"), 0.25);
  EXPECT_EQ(s.count("vllm:kv_offload_store_size"), 1u);
  EXPECT_FALSE(s.rec.prometheus().has_family("vllm:nixl_num_failed_transfers"));
  EXPECT_NE(s.rec.exposition().find("vllm:kv_offload_load_bytes_total{engine=\"0\""),
            std::string::npos);

  RecorderConfig n = testing::basic_config();
  n.connector = ConnectorMetrics::kNixl;
  testing::Script x(n);
  auto& nst = x.sched();
  nst.kv_connector_stats.observe("vllm:nixl_xfer_time_seconds", 0.02);
  nst.kv_connector_stats.observe("vllm:nixl_bytes_transferred", 65536);
  nst.kv_connector_stats.increase("vllm:nixl_num_kv_expired_reqs");
  x.flush(testing::ms(10));
  EXPECT_EQ(x.count("vllm:nixl_xfer_time_seconds"), 1u);
  EXPECT_DOUBLE_EQ(x.sum("vllm:nixl_bytes_transferred"), 65536);
  EXPECT_EQ(x.value("vllm:nixl_num_kv_expired_reqs"), 1);
  // The next record without connector stats changes nothing.
  x.sched();
  x.flush(testing::ms(20));
  EXPECT_EQ(x.value("vllm:nixl_num_kv_expired_reqs"), 1);
}

}  // namespace
}  // namespace blis::vllm::metrics
