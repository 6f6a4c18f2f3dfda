// VllmEngine end to end: the engine feeds the recorder at add_request / schedule / complete /
// abort, and metrics_text serves the families. Values are checked against what the engine
// itself reports (EngineStats, StepEvents) and against vLLM's rules.

#include <gtest/gtest.h>

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/vllm/vllm_engine.h"

namespace blis::vllm {
namespace {

VllmConfig engine_config(std::int32_t num_gpu_blocks = 64) {
  VllmConfig c;
  c.block_size = 4;
  c.num_gpu_blocks = num_gpu_blocks;
  c.max_num_seqs = 8;
  c.max_num_batched_tokens = 32;
  c.max_model_len = 128;
  c.served_model_name = "tiny";
  return c;
}

engine::RequestSpec request(engine::RequestKey key, std::int32_t prompt, std::int32_t max_tokens,
                            SimTime arrival, std::int32_t eos = 0, std::int32_t shared = 0) {
  engine::RequestSpec s;
  s.key = key;
  s.id = "r" + std::to_string(key);
  for (std::int32_t i = 0; i < prompt; ++i)
    s.prompt_token_ids.push_back(i < shared ? 7 + i : 1000 * static_cast<std::int32_t>(key) + i);
  s.max_tokens = max_tokens;
  s.eos_at_output = eos;
  s.output_token_base = 90000;
  s.arrival = arrival;
  return s;
}

struct Totals {
  std::int64_t tokens = 0;
  std::int64_t first_tokens = 0;
  std::int64_t completes_with_output = 0;
  std::map<engine::FinishReason, std::int64_t> finished;
};

// Runs the engine like the cluster: keep the batch queue full, each pass takes 10 ms.
void run(VllmEngine& e, Totals& t, SimTime& now) {
  std::vector<std::uint64_t> fifo;
  for (int i = 0; i < 100000 && !e.idle(); ++i) {
    while (e.can_schedule(now)) {
      const engine::Batch* b = e.schedule(now);
      if (b == nullptr) break;
      fifo.push_back(b->id);
    }
    if (fifo.empty()) break;
    now += 10 * kMicrosPerMilli;
    const engine::StepEvents& ev = e.complete(fifo.front(), engine::StepOutcome{}, now);
    fifo.erase(fifo.begin());
    bool any = false;
    for (const engine::RequestProgress& p : ev.progress) {
      t.tokens += p.new_tokens;
      any = any || p.new_tokens > 0 || p.finish != engine::FinishReason::kNone;
      if (p.first_token) ++t.first_tokens;
      if (p.finish != engine::FinishReason::kNone) ++t.finished[p.finish];
    }
    if (any) ++t.completes_with_output;
  }
}

double value(const VllmEngine& e, const char* family, const char* label = "") {
  const auto v = e.metrics().prometheus().value(family, label);
  return v ? *v : -1;
}
std::uint64_t count(const VllmEngine& e, const char* family) {
  const auto h = e.metrics().prometheus().histogram(family);
  return h ? h->count : 0;
}

TEST(VllmEngineMetrics, FamiliesFollowTheEngine) {
  VllmEngine e(engine_config());
  SimTime now = 0;
  std::int64_t prompt_total = 0;
  for (engine::RequestKey k = 1; k <= 12; ++k) {
    const std::int32_t prompt = 10 + 3 * static_cast<std::int32_t>(k);
    // Every third request stops at its 3rd token (EOS); the others run to max_tokens. All
    // share a 16-token prefix, so later admissions hit the prefix cache.
    e.add_request(request(k, prompt, 6, now, k % 3 == 0 ? 3 : 0, 16), now);
    prompt_total += prompt;
  }
  Totals t;
  run(e, t, now);
  ASSERT_TRUE(e.idle());

  EXPECT_EQ(value(e, "vllm:prompt_tokens"), static_cast<double>(prompt_total));
  EXPECT_EQ(value(e, "vllm:generation_tokens"), static_cast<double>(t.tokens));
  EXPECT_EQ(value(e, "vllm:request_success", "stop"), 4);
  EXPECT_EQ(value(e, "vllm:request_success", "length"), 8);
  EXPECT_EQ(t.finished[engine::FinishReason::kStop], 4);
  EXPECT_EQ(count(e, "vllm:time_to_first_token_seconds"), 12u);
  EXPECT_EQ(count(e, "vllm:e2e_request_latency_seconds"), 12u);
  EXPECT_EQ(count(e, "vllm:request_queue_time_seconds"), 12u);
  EXPECT_EQ(count(e, "vllm:request_decode_time_seconds"), 12u);
  // One iteration_tokens observation per completed pass that delivered output.
  EXPECT_EQ(count(e, "vllm:iteration_tokens_total"),
            static_cast<std::uint64_t>(t.completes_with_output));
  // ITL: one per later output step; each request makes (tokens - 1) of them here (no spec).
  EXPECT_EQ(count(e, "vllm:inter_token_latency_seconds"),
            static_cast<std::uint64_t>(t.tokens - 12));
  // The prefix-cache counters agree with the KV manager's own cumulative counts.
  const engine::EngineStats st = e.stats();
  EXPECT_EQ(value(e, "vllm:prefix_cache_queries"), static_cast<double>(st.prefix_queries));
  EXPECT_EQ(value(e, "vllm:prefix_cache_hits"), static_cast<double>(st.prefix_hits));
  EXPECT_GT(st.prefix_hits, 0u);
  EXPECT_EQ(value(e, "vllm:prompt_tokens_cached"), static_cast<double>(st.prefix_hits));
  EXPECT_EQ(value(e, "vllm:num_requests_running"), 0);
  EXPECT_EQ(value(e, "vllm:num_requests_waiting"), 0);

  const std::string text = e.metrics_text(now, "instance=\"i0\"");
  EXPECT_NE(text.find("vllm:request_success_total{engine=\"0\",finished_reason=\"stop\","
                      "instance=\"i0\",model_name=\"tiny\"} 4.0\n"),
            std::string::npos)
      << text.substr(0, 3000);
  EXPECT_NE(text.find("vllm:cache_config_info{"), std::string::npos);
  EXPECT_NE(text.find("num_gpu_blocks=\"64\""), std::string::npos);
  EXPECT_NE(text.find("block_size=\"4\""), std::string::npos);
  // PerfMetricsProm's counters are always registered (vLLM 8d9b52f7); the per-request
  // preemption histogram is not a family there.
  EXPECT_NE(text.find("# TYPE vllm:estimated_flops_per_gpu_total counter\n"), std::string::npos);
  EXPECT_EQ(text.find("vllm:request_num_preemptions"), std::string::npos);
}

// One request, exact timings: QUEUED and SCHEDULED at 0, first token when the first pass
// completes at 10 ms, then one token per pass.
TEST(VllmEngineMetrics, ExactTimingsOfOneRequest) {
  VllmConfig c = engine_config();
  c.async_scheduling = false;
  VllmEngine e(c);
  e.add_request(request(1, 20, 4, 0), 0);
  SimTime now = 0;
  Totals t;
  run(e, t, now);
  ASSERT_EQ(t.tokens, 4);
  const auto ttft = e.metrics().prometheus().histogram("vllm:time_to_first_token_seconds");
  EXPECT_DOUBLE_EQ(ttft->sum, 0.01);
  const auto itl = e.metrics().prometheus().histogram("vllm:inter_token_latency_seconds");
  EXPECT_EQ(itl->count, 3u);
  EXPECT_DOUBLE_EQ(itl->sum, 0.03);
  EXPECT_DOUBLE_EQ(e.metrics().prometheus().histogram("vllm:request_queue_time_seconds")->sum, 0);
  EXPECT_DOUBLE_EQ(e.metrics().prometheus().histogram("vllm:request_prefill_time_seconds")->sum,
                   0.01);
  EXPECT_DOUBLE_EQ(e.metrics().prometheus().histogram("vllm:e2e_request_latency_seconds")->sum,
                   0.04);
  EXPECT_DOUBLE_EQ(
      e.metrics().prometheus().histogram("vllm:request_time_per_output_token_seconds")->sum, 0.01);
  EXPECT_EQ(value(e, "vllm:iteration_tokens_total"), -1);  // a histogram, not a value
  EXPECT_EQ(e.metrics().prometheus().histogram("vllm:iteration_tokens_total")->sum, 20 + 4);
  const metrics::LogRecord log = e.metrics().log(now);
  EXPECT_EQ(log.line,
            "Engine 000: Avg prompt throughput: 500.0 tokens/s, Avg generation throughput: 100.0 "
            "tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV cache usage: 0.0%, Prefix cache "
            "hit rate: 0.0%");
}

// Few KV blocks force preemptions; once every request finished, each PREEMPTED event has
// reached the frontend with a later output, so the counter equals the scheduler's count.
TEST(VllmEngineMetrics, PreemptionsUnderKvPressure) {
  VllmEngine e(engine_config(40));  // 39 usable blocks of 4 tokens
  for (engine::RequestKey k = 1; k <= 6; ++k) e.add_request(request(k, 30, 40, 0), 0);
  SimTime now = 0;
  Totals t;
  run(e, t, now);
  ASSERT_TRUE(e.idle());
  ASSERT_GT(e.stats().preemptions, 0u);
  EXPECT_EQ(value(e, "vllm:num_preemptions"), static_cast<double>(e.stats().preemptions));
  // Queue time is measured to the first SCHEDULED event, so it stays 0 for requests admitted
  // at once even if they were preempted later.
  EXPECT_EQ(count(e, "vllm:request_queue_time_seconds"), 6u);
}

// A client abort leaves no trace in request_success (OutputProcessor.abort_requests).
TEST(VllmEngineMetrics, ClientAbortIsNotCounted) {
  VllmEngine e(engine_config());
  e.add_request(request(1, 12, 50, 0), 0);
  e.add_request(request(2, 12, 3, 0), 0);
  SimTime now = 0;
  const engine::Batch* b = e.schedule(now);
  ASSERT_NE(b, nullptr);
  now += 10 * kMicrosPerMilli;
  e.complete(b->id, engine::StepOutcome{}, now);
  e.abort(1, now);
  Totals t;
  run(e, t, now);
  EXPECT_EQ(value(e, "vllm:request_success", "abort"), 0);
  EXPECT_EQ(value(e, "vllm:request_success", "length"), 1);
  EXPECT_EQ(count(e, "vllm:e2e_request_latency_seconds"), 1u);
}

TEST(VllmEngineMetrics, ReleaseIsAConstructorParameter) {
  VllmConfig c = engine_config();
  c.release = "0.29.x";
  VllmEngine old(c);
  EXPECT_EQ(old.metrics_text(0, "").find("vllm:request_num_preemptions"), std::string::npos);
  EXPECT_NE(old.metrics_text(0, "").find("vllm:request_prefill_kv_computed_tokens"),
            std::string::npos);
  c.release = "0.30.0";
  try {
    VllmEngine bad(c);
    FAIL();
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("release"), std::string::npos) << err.what();
  }
}

TEST(VllmEngineMetrics, BadLabelListIsAnError) {
  VllmEngine e(engine_config());
  EXPECT_THROW(e.metrics_text(0, "instance="), std::invalid_argument);
  EXPECT_THROW(e.metrics_text(0, "finished_reason=\"x\""), std::invalid_argument);
}

}  // namespace
}  // namespace blis::vllm
