// The instance timing model against hand-computed timelines (docs/cluster.md). The fake
// pricer charges gpu = 1000 + 10 * tokens µs and cpu = 100 µs per pass.

#include <gtest/gtest.h>

#include "sim_harness.h"

namespace blis::cluster::testing {
namespace {

FakeBackendConfig config(std::int32_t depth) {
  FakeBackendConfig cfg;
  cfg.engine.depth = depth;
  return cfg;
}

TEST(InstanceTiming, SyncSchedulingIsSerialWithTheGpu) {
  // t=0 schedule prefill (cpu 100) -> GPU 100..2100 -> token 1 at 2100;
  // schedule decode 2100..2200 -> GPU 2200..3210 -> token 2; 3310..4320 -> token 3.
  auto sim = make_sim(config(1), {{0, 100, 3}});
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  ASSERT_TRUE(sim->done());
  const auto s = summary(*sim);
  EXPECT_DOUBLE_EQ(s["ttft_ms"]["mean"].get<double>(), 2.1);
  EXPECT_DOUBLE_EQ(s["itl_ms"]["mean"].get<double>(), 1.11);
  EXPECT_DOUBLE_EQ(s["itl_ms"]["max"].get<double>(), 1.11);
  EXPECT_DOUBLE_EQ(s["e2e_ms"]["mean"].get<double>(), 4.32);
  EXPECT_DOUBLE_EQ(s["tpot_ms"]["mean"].get<double>(), 1.11);
  EXPECT_DOUBLE_EQ(s["queue_ms"]["mean"].get<double>(), 0.0);
  EXPECT_EQ(s["sim"]["steps"].get<int>(), 3);
}

TEST(InstanceTiming, AsyncSchedulingOverlapsCpuWithTheGpu) {
  // The decode pass is scheduled at 100..200 while the prefill runs (GPU 100..2100); it runs
  // 2100..3110. The third pass is scheduled 2100..2200 and runs 3110..4120. Token gaps are
  // GPU time only.
  auto sim = make_sim(config(2), {{0, 100, 3}});
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  const auto s = summary(*sim);
  EXPECT_DOUBLE_EQ(s["ttft_ms"]["mean"].get<double>(), 2.1);
  EXPECT_DOUBLE_EQ(s["itl_ms"]["mean"].get<double>(), 1.01);
  EXPECT_DOUBLE_EQ(s["e2e_ms"]["mean"].get<double>(), 4.12);
  EXPECT_EQ(s["sim"]["steps"].get<int>(), 3);
}

TEST(InstanceTiming, ServingOverheadsDelayArrivalAndStreaming) {
  FakeBackendConfig cfg = config(1);
  cfg.overheads.request_us = 300;
  cfg.overheads.tokenize_per_token_us = 1;  // 100 prompt tokens -> 100 µs
  cfg.overheads.output_step_us = 50;
  cfg.overheads.output_per_request_us = 5;
  auto sim = make_sim(cfg, {{0, 100, 3}});
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  const auto s = summary(*sim);
  // Engine arrival at 400; the sync timeline shifts by 400; each token reaches the client
  // 55 µs after its pass completes.
  EXPECT_DOUBLE_EQ(s["ttft_ms"]["mean"].get<double>(), 2.555);
  EXPECT_DOUBLE_EQ(s["itl_ms"]["mean"].get<double>(), 1.11);
  EXPECT_DOUBLE_EQ(s["e2e_ms"]["mean"].get<double>(), 4.775);
  const auto rows = csv_rows(sim->requests_csv());
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0][3], "0.000000");  // arrival
  EXPECT_EQ(rows[0][4], "0.002555");  // first token
  EXPECT_EQ(rows[0][5], "0.004775");  // finish
  EXPECT_EQ(rows[0][6], "100");
  EXPECT_EQ(rows[0][8], "3");
  EXPECT_EQ(rows[0][10], "finished");
}

TEST(InstanceTiming, GpuRunsPassesBackToBackUnderLoad) {
  // Ten requests at once: with async scheduling the GPU never idles between passes, so the
  // GPU-busy fraction over the run is the sum of pass times over the span.
  std::vector<ScriptedRequest> reqs;
  for (int i = 0; i < 10; ++i) reqs.push_back({0, 64, 20});
  auto sim = make_sim(config(2), reqs);
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  const auto s = summary(*sim);
  const double busy = s["instances"][0]["gpu_busy_fraction"].get<double>();
  // Only the first pass waits for its scheduling CPU (100 µs) and the last token's
  // streaming is instantaneous: the GPU is busy for all but 100 µs of the span.
  const double span_ms = s["e2e_ms"]["max"].get<double>();
  EXPECT_NEAR(busy, 1.0 - 0.1 / span_ms, 1e-9);
  EXPECT_EQ(s["requests"]["finished"].get<int>(), 10);
}

TEST(InstanceTiming, QueueTimeIsWaitingForTheFirstPass) {
  // Budget 256 tokens: the second request (200 tokens) gets a 156-token chunk in the first
  // pass, so it is scheduled at once; the third waits for the next pass.
  FakeBackendConfig cfg = config(1);
  auto sim = make_sim(cfg, {{0, 100, 2}, {0, 200, 2}, {0, 100, 2}});
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  const auto s = summary(*sim);
  // Pass 1 scheduled at 0, takes 100 + 1000 + 2560 = 3660; pass 2 is scheduled at 3660.
  EXPECT_DOUBLE_EQ(s["queue_ms"]["max"].get<double>(), 3.66);
  EXPECT_DOUBLE_EQ(s["queue_ms"]["p50"].get<double>(), 0.0);
}

}  // namespace
}  // namespace blis::cluster::testing
