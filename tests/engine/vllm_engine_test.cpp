// VllmEngine through the engine contract (engine/engine.h): add_request / schedule /
// complete / abort, sync and async, with first-token, finish and preemption progress.
#include "engine/vllm/vllm_engine.h"
#include "engine/engine_test_specs.h"

#include <gtest/gtest.h>

#include <map>

#include "engine/vllm/provenance.h"

namespace blis::vllm {
namespace {

VllmConfig cfg(bool async) {
  return enginetest::small_engine_config(64, 128, async);
}

// Each request's prompt is its own (no shared prefix).
engine::RequestSpec unique_prompt(engine::RequestKey key, std::int32_t len, std::int32_t max_tokens,
                                  std::int32_t eos = 0) {
  return enginetest::prompt_spec(key, len, 100 * static_cast<std::int32_t>(key), max_tokens, 50000,
                                 eos);
}

struct Tally {
  std::map<engine::RequestKey, std::int32_t> tokens;
  std::map<engine::RequestKey, engine::FinishReason> finish;
  std::map<engine::RequestKey, std::int32_t> first_token_events;
  std::map<engine::RequestKey, std::int32_t> preemptions;
  void take(const engine::StepEvents& ev) {
    for (const engine::RequestProgress& p : ev.progress) {
      tokens[p.key] += p.new_tokens;
      if (p.first_token) ++first_token_events[p.key];
      if (p.finish != engine::FinishReason::kNone) finish[p.key] = p.finish;
      preemptions[p.key] = std::max(preemptions[p.key], p.num_preemptions);
      EXPECT_EQ(p.num_output_tokens, tokens[p.key]) << "request " << p.key;
    }
  }
};

// Drives the engine like the cluster: keep the queue full, complete the oldest pass.
void drain(VllmEngine& e, Tally& t, SimTime& now, std::int32_t max_passes = 10000) {
  std::vector<std::uint64_t> fifo;
  for (std::int32_t i = 0; i < max_passes && !e.idle(); ++i) {
    while (e.can_schedule(now)) {
      const engine::Batch* b = e.schedule(now);
      if (b == nullptr) break;
      EXPECT_GT(b->total_tokens, 0);
      EXPECT_EQ(b->total_tokens, b->prefill_tokens + b->decode_tokens);
      fifo.push_back(b->id);
    }
    ASSERT_FALSE(fifo.empty());
    now += 1000;
    t.take(e.complete(fifo.front(), {}, now));
    fifo.erase(fifo.begin());
  }
  EXPECT_TRUE(e.idle());
}

class VllmEngineModes : public ::testing::TestWithParam<bool> {};

TEST_P(VllmEngineModes, RunsRequestsToTheirLengthOrEos) {
  VllmEngine e(cfg(GetParam()));
  EXPECT_EQ(e.max_concurrent_batches(), GetParam() ? 2 : 1);
  SimTime now = 0;
  e.add_request(unique_prompt(1, 10, 5), now);
  e.add_request(unique_prompt(2, 30, 8, /*eos=*/3), now);
  e.add_request(unique_prompt(3, 100, 2), now);
  Tally t;
  drain(e, t, now);
  EXPECT_EQ(t.tokens[1], 5);
  EXPECT_EQ(t.finish[1], engine::FinishReason::kLength);
  EXPECT_EQ(t.tokens[2], 3);
  EXPECT_EQ(t.finish[2], engine::FinishReason::kStop);
  EXPECT_EQ(t.tokens[3], 2);
  for (engine::RequestKey k : {1, 2, 3}) EXPECT_EQ(t.first_token_events[k], 1) << k;
  const engine::EngineStats st = e.stats();
  EXPECT_EQ(st.num_running, 0);
  EXPECT_EQ(st.num_waiting, 0);
  EXPECT_EQ(st.kv_usage, 0.0);
  EXPECT_EQ(st.num_total_blocks, 63);
  EXPECT_EQ(st.prefix_queries, 140u);
}

TEST_P(VllmEngineModes, ReportsPreemptionsUnderKvPressure) {
  VllmConfig c = cfg(GetParam());
  c.num_gpu_blocks = 12;  // 11 usable blocks of 4 tokens
  c.max_model_len = 40;
  VllmEngine e(c);
  SimTime now = 0;
  for (engine::RequestKey k = 1; k <= 4; ++k) e.add_request(unique_prompt(k, 8, 20), now);
  Tally t;
  drain(e, t, now);
  std::int32_t total_preemptions = 0;
  for (engine::RequestKey k = 1; k <= 4; ++k) {
    EXPECT_EQ(t.tokens[k], 20);
    EXPECT_EQ(t.finish[k], engine::FinishReason::kLength);
    total_preemptions += t.preemptions[k];
  }
  EXPECT_GT(total_preemptions, 0);
  EXPECT_EQ(static_cast<std::int32_t>(e.stats().preemptions), total_preemptions);
}

// The cluster finds a request's first scheduling only among entries with prefill tokens
// (simulation.cpp run_loop; engine.h ScheduledRequest): the first pass of every request must
// compute at least one prompt token, even when the prefix cache holds its whole prompt and
// under preemption.
TEST_P(VllmEngineModes, FirstPassAlwaysComputesPromptTokens) {
  VllmConfig c = cfg(GetParam());
  c.enable_prefix_caching = true;
  c.num_gpu_blocks = 12;  // 11 usable blocks of 4 tokens: preemptions
  c.max_model_len = 40;
  VllmEngine e(c);
  SimTime now = 0;
  // Block-aligned identical prompts (the later ones hit every full block of the first).
  for (engine::RequestKey k = 1; k <= 5; ++k)
    e.add_request(enginetest::prompt_spec(k, 8, 7, 20), now);
  std::map<engine::RequestKey, std::int32_t> first_prefill;
  std::vector<std::uint64_t> fifo;
  for (std::int32_t i = 0; i < 10000 && !e.idle(); ++i) {
    while (e.can_schedule(now)) {
      const engine::Batch* b = e.schedule(now);
      if (b == nullptr) break;
      for (const engine::ScheduledRequest& r : b->requests)
        first_prefill.emplace(r.key, r.num_prefill_tokens);
      fifo.push_back(b->id);
    }
    ASSERT_FALSE(fifo.empty());
    now += 1000;
    e.complete(fifo.front(), {}, now);
    fifo.erase(fifo.begin());
  }
  ASSERT_EQ(first_prefill.size(), 5u);
  for (const auto& [key, prefill] : first_prefill) EXPECT_GT(prefill, 0) << "request " << key;
  EXPECT_GT(e.stats().prefix_hits, 0u);
}

TEST_P(VllmEngineModes, AbortsWaitingAndInFlightRequests) {
  VllmConfig c = cfg(GetParam());
  c.max_num_seqs = 1;
  VllmEngine e(c);
  SimTime now = 0;
  e.add_request(unique_prompt(1, 10, 50), now);
  e.add_request(unique_prompt(2, 10, 50), now);
  const engine::Batch* b = e.schedule(now);
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->requests.size(), 1u);
  EXPECT_EQ(b->requests[0].key, 1u);
  const std::uint64_t id = b->id;
  e.abort(2, now);   // waiting
  e.abort(1, now);   // in flight: takes effect before the pass's output
  e.abort(99, now);  // unknown: ignored
  const engine::StepEvents& ev = e.complete(id, {}, now + 10);
  for (const engine::RequestProgress& p : ev.progress) EXPECT_EQ(p.new_tokens, 0);
  EXPECT_TRUE(e.idle());
  EXPECT_EQ(e.stats().num_free_blocks, 63);
}

TEST_P(VllmEngineModes, PassesCarryPricingShapes) {
  VllmEngine e(cfg(GetParam()));
  SimTime now = 0;
  e.add_request(unique_prompt(1, 100, 3), now);
  const engine::Batch* b = e.schedule(now);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->total_tokens, 64);
  EXPECT_EQ(b->prefill_tokens, 64);
  EXPECT_EQ(b->num_sampling, 0);
  EXPECT_FALSE(b->requests[0].samples);
  EXPECT_EQ(b->requests[0].context_before, 0);
  const std::uint64_t first = b->id;
  if (!GetParam()) e.complete(first, {}, now);
  const engine::Batch* b2 = e.schedule(now);  // async: before the first pass completes
  ASSERT_NE(b2, nullptr);
  EXPECT_EQ(b2->total_tokens, 36);
  EXPECT_EQ(b2->requests[0].context_before, 64);
  EXPECT_EQ(b2->num_sampling, 1);
  EXPECT_EQ(e.in_flight(), GetParam() ? 2 : 1);
  EXPECT_FALSE(e.can_schedule(now));
  EXPECT_THROW(e.complete(b2->id + 7, {}, now), std::logic_error);
}

INSTANTIATE_TEST_SUITE_P(SyncAndAsync, VllmEngineModes, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) {
                           return i.param ? "Async" : "Sync";
                         });

TEST(VllmEngine, SpecDecodeUsesSuppliedAcceptance) {
  VllmConfig c = cfg(false);
  c.num_speculative_tokens = 3;
  VllmEngine e(c);
  SimTime now = 0;
  e.add_request(unique_prompt(1, 8, 30), now);
  e.complete(e.schedule(now)->id, {}, now);  // prefill + first token; 3 drafts proposed
  const engine::Batch* b = e.schedule(now);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->requests[0].num_spec_tokens, 3);
  EXPECT_EQ(b->requests[0].num_tokens, 4);
  engine::StepOutcome o;
  o.accepted_drafts = {2};
  const engine::StepEvents& ev = e.complete(b->id, o, now);
  ASSERT_EQ(ev.progress.size(), 1u);
  EXPECT_EQ(ev.progress[0].new_tokens, 3);                          // 2 accepted + the bonus token
  EXPECT_EQ(e.core().scheduler().slot(0).num_computed_tokens, 11);  // 8 + 4 - 1 rejected
}

TEST(VllmEngine, PaddingDraftsAreNeverAccepted) {
  // A new one-token decode next to a running decode is padded with -1 drafts (scheduler.py);
  // they are not proposals, so the supplied acceptance is capped at the real drafts (0).
  VllmConfig c = cfg(false);
  c.num_speculative_tokens = 3;
  VllmEngine e(c);
  SimTime now = 0;
  e.add_request(unique_prompt(1, 8, 30), now);
  Tally t;
  t.take(e.complete(e.schedule(now)->id, {}, now));
  e.add_request(unique_prompt(2, 1, 30), now);
  const engine::Batch* b = e.schedule(now);
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->requests.size(), 2u);
  EXPECT_EQ(b->requests[1].num_tokens, 4);  // 1 + 3 padding drafts
  engine::StepOutcome o;
  o.accepted_drafts = {3, 3};
  t.take(e.complete(b->id, o, now));
  EXPECT_EQ(t.tokens[1], 5);  // first token, then 3 real drafts accepted + the bonus token
  EXPECT_EQ(t.tokens[2], 1);  // padding rejected: the sampled token only
}

TEST(VllmEngine, AsyncRunnerHoldsDraftsAfterASampledBatch) {
  VllmConfig c = cfg(true);
  c.num_speculative_tokens = 2;
  VllmEngine e(c);
  SimTime now = 0;
  e.add_request(unique_prompt(1, 8, 30), now);
  const engine::Batch* b0 = e.schedule(now);  // prefill: samples, the runner drafts after it
  ASSERT_NE(b0, nullptr);
  const std::uint64_t id0 = b0->id;
  const engine::Batch* b1 = e.schedule(now);  // 1 + 2 placeholder drafts, real ones held
  ASSERT_NE(b1, nullptr);
  EXPECT_EQ(b1->requests[0].num_spec_tokens, 2);
  const std::uint64_t id1 = b1->id;
  Tally t;
  t.take(e.complete(id0, {}, now));
  engine::StepOutcome o;
  o.accepted_drafts = {2};
  t.take(e.complete(id1, o, now));
  EXPECT_EQ(t.tokens[1], 4);  // 1 + (2 accepted + bonus)
}

TEST(VllmEngine, RejectsBadInputAndConfigs) {
  VllmConfig small = cfg(true);
  small.num_gpu_blocks = 10;  // 9 x 4 tokens < max_model_len 128
  EXPECT_THROW(VllmEngine e(small), std::invalid_argument);
  VllmEngine e(cfg(true));
  EXPECT_THROW(e.add_request(unique_prompt(1, 0, 4), 0), std::invalid_argument);
  EXPECT_THROW(e.add_request(unique_prompt(2, 128, 4), 0), std::invalid_argument);
  e.add_request(unique_prompt(3, 4, 4), 0);
  EXPECT_THROW(e.add_request(unique_prompt(3, 4, 4), 0), std::invalid_argument);
}

TEST(VllmEngine, MetricsAndProvenance) {
  VllmEngine e(cfg(true));
  e.add_request(unique_prompt(1, 10, 5), 0);
  e.add_request(unique_prompt(2, 10, 5), 0);
  // The gauges hold the last step's SchedulerStats (tests/metrics covers the families).
  const engine::Batch* b = e.schedule(0);
  ASSERT_NE(b, nullptr);
  e.complete(b->id, engine::StepOutcome{}, 1000);
  const std::string m = e.metrics_text(0, "model_name=\"m\"");
  EXPECT_NE(m.find("vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 2.0\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("# TYPE vllm:kv_cache_usage_perc gauge"), std::string::npos);
  EXPECT_NE(m.find("vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0.0\n"),
            std::string::npos);
  EXPECT_NE(e.metrics_text(0, "").find("vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"\"} "),
            std::string::npos);
  const engine::Provenance p = e.provenance();
  EXPECT_EQ(p.kind, "vllm");
  EXPECT_EQ(p.release, "0.32.0");
  EXPECT_EQ(p.upstream_repo, "vllm-project/vllm");
  EXPECT_EQ(p.upstream_commit, "8d9b52f7c2514490bdadfd5eb0c931e58625df2e");
  EXPECT_EQ(engine_provenance().upstream_commit, p.upstream_commit);
}

// Found by the engine fuzzer (tests/fuzz/engine_fuzz.cpp): an abort queued while a pass was
// in flight was applied again at the next schedule() to whatever request held the key then,
// so a request re-added under that key was dropped without the metrics hearing of it (and
// the next request given its slot threw "metrics: request handle already in use").
TEST(VllmEngine, AQueuedAbortDoesNotHitARequestReAddedUnderItsKey) {
  VllmEngine e(cfg(true));
  SimTime now = 0;
  e.add_request(unique_prompt(1, 8, 4), now);
  const engine::Batch* b = e.schedule(now);
  ASSERT_NE(b, nullptr);
  const std::uint64_t id = b->id;
  e.abort(1, now);  // queued: the pass is in flight
  now += 1000;
  for (const engine::RequestProgress& p : e.complete(id, {}, now).progress)
    EXPECT_NE(p.key, 1u) << "no output after the abort";
  e.add_request(unique_prompt(1, 8, 4), now);  // the key is free again
  Tally t;
  drain(e, t, now);
  EXPECT_EQ(t.tokens[1], 4);
  EXPECT_EQ(t.finish[1], engine::FinishReason::kLength);
  e.add_request(unique_prompt(2, 8, 4), now);  // takes the freed slot
  drain(e, t, now);
  EXPECT_EQ(t.tokens[2], 4);
}

// Found by the engine fuzzer: a request preempted by the in-flight pass and aborted while it
// ran was still reported (a preemption progress) when the pass completed, although an abort
// takes effect before that pass's output (engine.h).
TEST(VllmEngine, NoProgressForARequestAbortedWhileItsPreemptingPassRan) {
  // 8 usable blocks of 4 tokens: two requests growing past 16 tokens each cannot both stay.
  VllmConfig c = enginetest::small_engine_config(9, 32, false);
  VllmEngine e(c);
  SimTime now = 0;
  e.add_request(unique_prompt(1, 12, 18), now);
  e.add_request(unique_prompt(2, 12, 18), now);
  bool aborted = false;
  for (int step = 0; step < 100 && !e.idle(); ++step) {
    const engine::Batch* b = e.schedule(now);
    ASSERT_NE(b, nullptr);
    const std::uint64_t id = b->id;
    if (b->num_preempted > 0 && !aborted) {
      e.abort(2, now);  // FCFS preempts the tail of the running list: request 2
      aborted = true;
    }
    now += 1000;
    for (const engine::RequestProgress& p : e.complete(id, {}, now).progress) {
      if (aborted) {
        EXPECT_NE(p.key, 2u) << "progress for request 2 after its abort";
      }
    }
  }
  EXPECT_TRUE(aborted) << "the scenario should preempt";
}

}  // namespace
}  // namespace blis::vllm
