// Data parallelism on a dense model and with KV connectors (docs/parallelism.md): dp
// independent engine cores behind vLLM's internal load balancer (dense_dp_engine.h), each
// stepped on its own GPUs, and DP ranks in prefill/decode pools and with CPU offload.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/dense_dp_engine.h"
#include "cluster/simulation.h"
#include "fake_engine.h"
#include "run_summary.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

using nlohmann::json;

std::unique_ptr<DenseDpEngine> fake_dense(std::int32_t dp) {
  std::vector<std::unique_ptr<engine::Engine>> ranks;
  for (std::int32_t r = 0; r < dp; ++r) {
    testing::FakeEngineConfig cfg;
    cfg.depth = 1;
    ranks.push_back(std::make_unique<testing::FakeEngine>(cfg));
  }
  return std::make_unique<DenseDpEngine>(std::move(ranks), 1);
}

engine::RequestSpec dense_request(engine::RequestKey key, int prompt, int outputs) {
  engine::RequestSpec s;
  s.key = key;
  s.id = "r" + std::to_string(key);
  s.prompt_token_ids.assign(static_cast<std::size_t>(prompt), 7);
  s.max_tokens = outputs;
  return s;
}

// Steps rank r until it is idle; returns the passes it ran.
int drain_rank(DenseDpEngine& g, std::int32_t r, SimTime t) {
  int passes = 0;
  while (g.can_schedule_rank(r, t) && passes < 100) {
    const engine::Batch* b = g.schedule_rank(r, t);
    if (b == nullptr) break;
    for (const auto& q : b->requests) EXPECT_EQ(q.dp_rank, r);
    g.complete_rank(r, b->id, {}, t);
    ++passes;
  }
  return passes;
}

TEST(DenseDpEngine, RanksStepOnTheirOwnWithoutWavesOrDummyBatches) {
  auto g = fake_dense(2);
  g->add_request(dense_request(1, 32, 3), 0);
  EXPECT_EQ(g->rank_of(1), 0);
  // Rank 1 has nothing: it does not step (no dummy batch), rank 0 runs its request alone.
  EXPECT_FALSE(g->can_schedule_rank(1, 0));
  EXPECT_GT(drain_rank(*g, 0, 0), 0);
  EXPECT_TRUE(g->idle());
  EXPECT_EQ(g->steps_per_rank(), (std::vector<std::int64_t>{g->steps_per_rank()[0], 0}));
  // The whole-engine calls are not how the ranks step.
  EXPECT_THROW(g->schedule(0), std::logic_error);
}

TEST(DenseDpEngine, TheBalancerSendsWorkToTheRankThatDrainedNotRoundRobin) {
  // vllm v1/engine/core_client.py DPLBAsyncMPClient.get_core_engine_for_request: a long
  // request on rank 0, a short one on rank 1 that finishes; with the coordinator's next
  // snapshot (100 ms later) rank 0 is still running, rank 1 is empty, so the third request
  // goes to rank 1 where round robin would send it to rank 0.
  auto g = fake_dense(2);
  g->add_request(dense_request(1, 64, 500), 0);
  g->add_request(dense_request(2, 16, 1), 0);
  EXPECT_EQ(g->rank_of(1), 0);
  EXPECT_EQ(g->rank_of(2), 1);
  const engine::Batch* b = g->schedule_rank(0, 0);  // rank 0 starts its long request
  ASSERT_NE(b, nullptr);
  g->complete_rank(0, b->id, {}, 0);
  drain_rank(*g, 1, 0);  // rank 1 finishes its short one
  EXPECT_EQ(g->rank_of(2), -1);
  EXPECT_EQ(g->balancer().inflight(0, 1), 0);
  g->add_request(dense_request(3, 16, 4), 100000);
  EXPECT_EQ(g->rank_of(3), 1);
  EXPECT_EQ(g->requests_per_rank(), (std::vector<std::int64_t>{1, 2}));
}

json dense_example(const std::string& name) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

// A dense model on one H100 per rank under a steady load.
json dense_base(int instances, int dp) {
  json d = dense_example("default.json");
  d["horizon"] = {{"duration_s", 20}, {"drain", true}};
  d["router"] = {{"policy", "round-robin"}};
  json& pool = d["pools"][0];
  pool["instances"] = instances;
  pool["parallelism"] = {{"tp", 1}, {"pp", 1}, {"dp", dp}};
  return d;
}

TEST(DenseDp, TwoRanksServeLikeTwoInstancesButAreBalancedByVllmsRule) {
  json one = dense_base(1, 2), two = dense_base(2, 1);
  std::string d1, d2;
  const json a = test::run_summary(one.dump(), &d1);
  const json b = test::run_summary(two.dump(), &d2);
  ASSERT_FALSE(a.is_null());
  ASSERT_FALSE(b.is_null());
  // Same GPUs (instances x tp x pp x dp) and the same requests.
  EXPECT_EQ(a["cost"]["gpus"], 2);
  EXPECT_EQ(b["cost"]["gpus"], 2);
  const double fa = a["requests"]["finished"].get<double>();
  EXPECT_EQ(fa, b["requests"]["finished"].get<double>());
  // Independent ranks on their own GPUs: the throughput and latencies of two instances.
  const double ta = a["throughput"]["output_tokens_per_s"].get<double>();
  const double tb = b["throughput"]["output_tokens_per_s"].get<double>();
  EXPECT_NEAR(ta, tb, 0.05 * tb);
  const double ea = a["e2e_ms"]["mean"].get<double>();
  const double eb = b["e2e_ms"]["mean"].get<double>();
  EXPECT_NEAR(ea, eb, 0.15 * eb) << ea << " vs " << eb;
  // Not the same run: the internal LB picks ranks by load (and one API server per rank
  // streams its outputs), not the gateway's round robin.
  EXPECT_NE(d1, d2);
  ASSERT_EQ(a["instances"].size(), 1u);
  const json& inst = a["instances"][0];
  ASSERT_TRUE(inst.contains("dp")) << inst.dump(2);
  EXPECT_EQ(inst["dp"]["ranks"], 2);
  EXPECT_FALSE(inst["dp"].contains("dummy_batches"));  // no waves for a dense model
  std::int64_t routed = 0, steps = 0;
  for (const auto& n : inst["dp"]["requests_per_rank"]) {
    EXPECT_GT(n.get<double>(), 0.4 * fa);  // balanced
    routed += n.get<std::int64_t>();
  }
  for (const auto& n : inst["dp"]["steps_per_rank"]) steps += n.get<std::int64_t>();
  EXPECT_EQ(routed, inst["requests"]["routed"].get<std::int64_t>());
  EXPECT_EQ(steps, inst["steps"].get<std::int64_t>());
  EXPECT_LE(inst["gpu_busy_fraction"].get<double>(), 1.0);
  // Each instance of the two-instance run is one engine: no dp block.
  EXPECT_FALSE(b["instances"][0].contains("dp"));
}

TEST(DenseDp, MetricsCarryOneEngineLabelPerRank) {
  Simulation sim;
  json d = dense_base(1, 2);
  d["horizon"] = {{"duration_s", 3}, {"drain", true}};
  ASSERT_FALSE(has_errors(sim.load(d.dump(), scenario::DecodeOptions{})));
  sim.run();
  const std::string prom = sim.metrics_text(0);
  // vllm v1/metrics/loggers.py PrometheusStatLogger: engine="<rank>" on every series.
  EXPECT_NE(prom.find("vllm:num_requests_running{"), std::string::npos);
  EXPECT_NE(prom.find("engine=\"0\""), std::string::npos);
  EXPECT_NE(prom.find("engine=\"1\""), std::string::npos);
  // One HELP line per family.
  const std::string help = "# HELP vllm:num_requests_running ";
  const std::size_t first = prom.find(help);
  ASSERT_NE(first, std::string::npos);
  EXPECT_EQ(prom.find(help, first + 1), std::string::npos);
}

// P/D with DP ranks on both sides: the proxy targets the instance, its internal LB picks the
// rank, the decode rank pulls from the prefill rank that holds the blocks.
TEST(DenseDp, PrefillAndDecodePoolsWithRanks) {
  json d = dense_example("pd-disaggregation.json");
  d["horizon"] = {{"duration_s", 10}, {"drain", true}};
  for (json& pool : d["pools"]) {
    pool["instances"] = 1;
    pool["parallelism"]["dp"] = 2;
  }
  Simulation sim;
  const Diagnostics ds = sim.load(d.dump(), scenario::DecodeOptions{});
  ASSERT_FALSE(has_errors(ds)) << format_diagnostic(ds.front());
  sim.run();
  ASSERT_TRUE(sim.done());
  const json s = json::parse(sim.summary_json(0));
  EXPECT_GT(s["requests"]["finished"].get<int>(), 50);
  // The decode ranks pulled the prompts' KV from the prefill ranks.
  const json ts = json::parse(sim.timeseries_json());
  EXPECT_GT(ts["columns"]["kv_transfer_blocks_total"].back().get<double>(), 1000);
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  EXPECT_EQ(s["cost"]["gpus"], 4);
  for (const json& inst : s["instances"]) {
    ASSERT_TRUE(inst.contains("dp")) << inst.dump(2);
    for (const auto& n : inst["dp"]["requests_per_rank"]) EXPECT_GT(n.get<int>(), 0);
  }
}

// An MoE model's lockstep ranks in a P/D deployment (DPEngineCoreProc with NIXL).
TEST(MoeDp, PrefillAndDecodePoolsWithLockstepRanks) {
  json d = dense_example("pd-disaggregation.json");
  d["horizon"] = {{"duration_s", 5}, {"drain", true}};
  for (json& pool : d["pools"]) {
    pool["instances"] = 1;
    pool["model"] = "Qwen/Qwen3-30B-A3B";
    pool["parallelism"]["dp"] = 2;
    pool["engine"]["args"]["enable_expert_parallel"] = true;
  }
  const json s = test::run_summary(d.dump());
  ASSERT_FALSE(s.is_null());
  EXPECT_GT(s["requests"]["finished"].get<int>(), 20);
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  for (const json& inst : s["instances"]) {
    ASSERT_TRUE(inst.contains("dp")) << inst.dump(2);
    EXPECT_TRUE(inst["dp"].contains("waves_started"));
  }
}

// CPU offload on every rank: each rank's OffloadingConnector stores and loads over the
// instance's host link.
TEST(DenseDp, CpuOffloadOnEveryRank) {
  json d = dense_example("cpu-offload.json");
  d["horizon"] = {{"duration_s", 20}, {"drain", true}};
  d["pools"][0]["instances"] = 1;
  d["pools"][0]["parallelism"]["dp"] = 2;
  Simulation sim;
  ASSERT_FALSE(has_errors(sim.load(d.dump(), scenario::DecodeOptions{})));
  sim.run();
  ASSERT_TRUE(sim.done());
  const json s = json::parse(sim.summary_json(0));
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  const std::string prom = sim.metrics_text(0);
  EXPECT_NE(prom.find("engine=\"1\""), std::string::npos);
}

}  // namespace
}  // namespace blis::cluster
