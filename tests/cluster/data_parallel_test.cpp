// Data parallelism (docs/parallelism.md): vLLM's internal DP load balancer, the DP engine
// core's waves and dummy batches, and the lockstep price of an MoE step.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <vector>

#include "catalog/catalog.h"
#include "cluster/dp_balancer.h"
#include "cluster/dp_engine.h"
#include "cluster/dp_step_cost.h"
#include "cluster/kernel_step_cost.h"
#include "fake_engine.h"
#include "kernel/deployment.h"
#include "run_summary.h"

namespace blis::cluster {
namespace {

TEST(DpBalancer, EmptyRanksAreFilledRoundRobin) {
  // One client, no snapshot: the exact in-flight count spreads a burst over the ranks.
  DpBalancer b(4, 1);
  std::vector<std::int32_t> picks;
  for (int i = 0; i < 8; ++i) picks.push_back(b.choose(0));
  EXPECT_EQ(picks, (std::vector<std::int32_t>{0, 1, 2, 3, 0, 1, 2, 3}));
}

TEST(DpBalancer, TheLeastLoadedRankInTheSnapshotWins) {
  DpBalancer b(3, 1);
  b.publish(0, {{4, 10, 0.2}, {0, 3, 0.2}, {1, 5, 0.2}});
  EXPECT_EQ(b.choose(0), 1);  // scores 14, 3, 6
  // The choice raised rank 1's local waiting count by client_count (1): 4 < 6.
  EXPECT_EQ(b.choose(0), 1);
  EXPECT_EQ(b.choose(0), 1);  // 5 < 6
  // Rank 1 at 6 ties rank 2 (6): the scan (from rank 0 again after three rotations) keeps
  // the first minimum, rank 1; then rank 1 is at 7.
  EXPECT_EQ(b.choose(0), 1);
  EXPECT_EQ(b.choose(0), 2);
}

TEST(DpBalancer, WaitingIsPenalizedUnderKvPressure) {
  // Equal waiting + running; rank 0's queue sits on a 90% full KV cache:
  // 5 + 2 x 6 x (0.9 - 0.5) = 9.8 against 5.
  DpBalancer b(2, 1);
  b.publish(0, {{2, 3, 0.9}, {0, 5, 0.9}});
  EXPECT_EQ(b.choose(0), 1);
  // Without the pressure (usage <= 50%) the tie goes to the scan start, rank 0.
  DpBalancer c(2, 1);
  c.publish(0, {{2, 3, 0.5}, {2, 3, 0.5}});
  EXPECT_EQ(c.choose(0), 0);
}

TEST(DpBalancer, ClientsStartTheirScanAtTheirShare) {
  // eng_start_index = ranks x client_index // client_count; in-flight scaled by clients.
  DpBalancer b(4, 2);
  EXPECT_EQ(b.choose(1), 2);
  EXPECT_EQ(b.choose(0), 0);
  EXPECT_EQ(b.inflight(1, 2), 1);
  b.finished(1, 2);
  EXPECT_EQ(b.inflight(1, 2), 0);
}

TEST(DpBalancer, SnapshotsArriveEvery100ms) {
  DpBalancer b(2, 1);
  EXPECT_TRUE(b.snapshot_due(0));
  b.publish(0, {{0, 0, 0}, {0, 0, 0}});
  EXPECT_FALSE(b.snapshot_due(99999));
  EXPECT_TRUE(b.snapshot_due(100000));
}

std::unique_ptr<DpEngine> fake_group(std::int32_t dp) {
  std::vector<std::unique_ptr<engine::Engine>> ranks;
  for (std::int32_t r = 0; r < dp; ++r) {
    testing::FakeEngineConfig cfg;
    cfg.depth = 1;
    ranks.push_back(std::make_unique<testing::FakeEngine>(cfg));
  }
  return std::make_unique<DpEngine>(std::move(ranks), 1);
}

engine::RequestSpec request(engine::RequestKey key, int prompt, int outputs) {
  engine::RequestSpec s;
  s.key = key;
  s.id = "r" + std::to_string(key);
  s.prompt_token_ids.assign(static_cast<std::size_t>(prompt), 7);
  s.max_tokens = outputs;
  return s;
}

// Runs one lockstep step to completion; returns the batch (copied).
engine::Batch step(DpEngine& g, SimTime now) {
  const engine::Batch* b = g.schedule(now);
  EXPECT_NE(b, nullptr);
  if (b == nullptr) return {};
  engine::Batch copy = *b;
  g.complete(copy.id, {}, now);
  return copy;
}

TEST(DpEngine, IdleRanksRunDummyPassesWhileAnyRankHasWork) {
  auto g = fake_group(2);
  EXPECT_FALSE(g->can_schedule(0));  // no wave yet
  g->add_request(request(1, 32, 3), 0);
  EXPECT_EQ(g->rank_of(1), 0);
  EXPECT_TRUE(g->waves().engines_running);
  const engine::Batch b = step(*g, 0);
  ASSERT_EQ(b.requests.size(), 1u);
  EXPECT_EQ(b.requests[0].dp_rank, 0);
  EXPECT_EQ(g->waves().steps, 1);
  EXPECT_EQ(g->waves().dummy_passes, 1);  // rank 1 had nothing
}

TEST(DpEngine, TheWaveEndsAtTheNext32StepSyncAfterTheLastRequest) {
  auto g = fake_group(2);
  g->add_request(request(1, 16, 2), 0);
  // The request needs a few passes; afterwards the ranks keep stepping (dummy passes on
  // both) until the step counter reaches 32, where the all-reduce finds no unfinished work.
  SimTime t = 0;
  int steps = 0;
  while (g->can_schedule(t) && steps < 100) {
    step(*g, t);
    t += 1000;
    ++steps;
  }
  EXPECT_EQ(steps, 32);
  EXPECT_FALSE(g->waves().engines_running);
  EXPECT_EQ(g->waves().current_wave, 1);
  EXPECT_EQ(g->waves().waves_completed, 1);
  EXPECT_EQ(g->waves().step_counter, 0);
  EXPECT_TRUE(g->idle());
  // Every step had a dummy on rank 1, and every step after the request's last one on both.
  EXPECT_GT(g->waves().dummy_passes, 32);
  // A new request starts the next wave.
  g->add_request(request(2, 16, 1), t);
  EXPECT_TRUE(g->waves().engines_running);
  EXPECT_EQ(g->rank_of(2), 1);  // the scan start rotated
  EXPECT_EQ(g->waves().waves_started, 2);
  g->add_request(request(3, 16, 1), t);  // joins the running wave
  EXPECT_EQ(g->waves().waves_started, 2);
  EXPECT_EQ(g->requests_per_rank(), (std::vector<std::int64_t>{2, 1}));
}

TEST(DpEngine, StatsSumTheRanks) {
  auto g = fake_group(3);
  for (engine::RequestKey k = 1; k <= 3; ++k) g->add_request(request(k, 16, 4), 0);
  const engine::EngineStats s = g->stats();
  EXPECT_EQ(s.num_waiting + s.num_running, 3);
  for (engine::RequestKey k = 1; k <= 3; ++k) EXPECT_EQ(g->rank_of(k), static_cast<int>(k - 1));
}

// The lockstep price: Qwen3-30B-A3B (128 experts, top 8) on H100s, dp 2 with EP.
kernel::Deployment moe_dp2() {
  const auto& cat = catalog::Catalog::builtin();
  kernel::Deployment d;
  EXPECT_FALSE(
      has_errors(kernel::make_deployment(cat, "H100-SXM-80GB", "Qwen/Qwen3-30B-A3B", 1, &d)));
  d.dp = 2;
  d.enable_expert_parallel = true;
  d.intra_node_link = *cat.find_fabric("nvlink4");
  return d;
}

engine::Batch decodes(int n, int rank, int context) {
  engine::Batch b;
  for (int i = 0; i < n; ++i) {
    engine::ScheduledRequest q{
        static_cast<engine::RequestKey>(rank * 1000 + i), 1, 0, context, 0, true};
    q.dp_rank = rank;
    b.requests.push_back(q);
    b.total_tokens += 1;
  }
  return b;
}

TEST(DpStepCost, AStepLastsAsLongAsItsSlowestRank) {
  auto rank = std::make_shared<KernelStepCost>(moe_dp2());
  DpStepCost cost(rank, 2);
  engine::Batch both = decodes(64, 0, 4000);
  const engine::Batch light = decodes(2, 1, 100);
  both.requests.insert(both.requests.end(), light.requests.begin(), light.requests.end());
  const StepTiming t = cost.price(both);
  cost.split(both);
  EXPECT_EQ(cost.group_max_tokens(), 64);
  const StepTiming heavy = rank->price_rank(cost.rank_batch(0), 64);
  const StepTiming small = rank->price_rank(cost.rank_batch(1), 64);
  EXPECT_GT(heavy.gpu, small.gpu);
  EXPECT_EQ(t.gpu, heavy.gpu);
  // The light rank pays for the group: padded to 64 tokens and the experts on 128 tokens,
  // it is slower than the same batch priced alone.
  EXPECT_GT(small.gpu, rank->price(light).gpu);
}

TEST(DpStepCost, AnIdleRankPaysForADummyPass) {
  auto rank = std::make_shared<KernelStepCost>(moe_dp2());
  DpStepCost cost(rank, 2);
  const engine::Batch only0 = decodes(8, 0, 1000);
  cost.split(only0);
  EXPECT_TRUE(cost.rank_batch(1).requests.empty());
  const StepTiming dummy = rank->price_rank(cost.rank_batch(1), 8);
  EXPECT_GT(dummy.gpu, 0);
  EXPECT_LE(dummy.gpu, cost.price(only0).gpu);
}

// The wave bookkeeping reaches summary.json: per DP instance `dp` with the waves started and
// completed, lockstep steps, dummy batches and requests per rank (rank 0 first).
TEST(DpResults, WaveCountersReachTheSummary) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / "data-parallel.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(ss.str());
  doc["horizon"] = {{"duration_s", 5}, {"drain", true}};
  std::string d1, d2;
  const nlohmann::json s = test::run_summary(doc.dump(), &d1);
  ASSERT_FALSE(s.is_null());
  const nlohmann::json& inst = s["instances"][0];
  ASSERT_TRUE(inst.contains("dp")) << inst.dump(2);
  const nlohmann::json& dp = inst["dp"];
  const int dp_size = doc["pools"][0]["parallelism"]["dp"].get<int>();
  ASSERT_EQ(dp["requests_per_rank"].size(), static_cast<std::size_t>(dp_size));
  std::int64_t routed = 0;
  for (const auto& n : dp["requests_per_rank"]) {
    EXPECT_GT(n.get<std::int64_t>(), 0);  // the balancer spreads them
    routed += n.get<std::int64_t>();
  }
  EXPECT_EQ(routed, inst["requests"]["routed"].get<std::int64_t>());
  EXPECT_GE(dp["waves_started"].get<int>(), 1);
  // Every wave but the last has ended (the run stops when the last request finishes, before
  // the ranks' next 32-step sync ends that wave).
  EXPECT_LE(dp["waves_completed"].get<int>(), dp["waves_started"].get<int>());
  EXPECT_GE(dp["waves_completed"].get<int>(), dp["waves_started"].get<int>() - 1);
  // Steps launched: those completed, and at most the batch queue's still in flight at the end.
  EXPECT_GE(dp["steps"].get<std::int64_t>(), inst["steps"].get<std::int64_t>());
  EXPECT_LE(dp["steps"].get<std::int64_t>(), inst["steps"].get<std::int64_t>() + 2);
  EXPECT_GT(dp["dummy_batches"].get<std::int64_t>(), 0);
  EXPECT_LT(dp["dummy_batches"].get<std::int64_t>(), dp["steps"].get<std::int64_t>() * dp_size);
  // The same run twice gives the same digest.
  test::run_summary(doc.dump(), &d2);
  EXPECT_EQ(d1, d2);
}

}  // namespace
}  // namespace blis::cluster
