// The Simulation driver over the test doubles: routing, stepping, determinism, outputs.

#include <gtest/gtest.h>

#include "sim_harness.h"

namespace blis::cluster::testing {
namespace {

std::vector<ScriptedRequest> stream(int n, SimTime gap, std::int32_t prompt, std::int32_t out,
                                    int groups = 0) {
  std::vector<ScriptedRequest> r;
  for (int i = 0; i < n; ++i) {
    r.push_back({gap * i, prompt, out, groups > 0 ? i % groups : -1});
  }
  return r;
}

std::vector<int> routed(const nlohmann::json& s) {
  std::vector<int> out;
  for (const auto& i : s["instances"]) out.push_back(i["requests"]["routed"].get<int>());
  return out;
}

TEST(Simulation, RoundRobinSpreadsRequestsEvenly) {
  auto sim = make_sim({}, stream(40, 1000, 32, 4));
  ASSERT_TRUE(sim->load(make_scenario(4)).empty());
  sim->run();
  const auto s = summary(*sim);
  EXPECT_EQ(routed(s), (std::vector<int>{10, 10, 10, 10}));
  EXPECT_EQ(s["requests"]["finished"].get<int>(), 40);
  EXPECT_EQ(s["requests"]["arrived"].get<int>(), 40);
  EXPECT_EQ(s["pools"][0]["requests"]["finished"].get<int>(), 40);
  EXPECT_EQ(sim->instance_name(3), "main-3");
}

TEST(Simulation, LeastLoadedAvoidsTheBusyInstance) {
  // One long request, then short ones spaced so that each finishes before the next: the
  // least-loaded router never sends a short one to the instance holding the long one.
  std::vector<ScriptedRequest> reqs{{0, 32, 2000}};
  for (int i = 1; i <= 20; ++i) reqs.push_back({i * 50'000, 32, 2});
  auto sim = make_sim({}, reqs);
  ASSERT_TRUE(sim->load(make_scenario(2, "least-loaded")).empty());
  sim->run();
  EXPECT_EQ(routed(summary(*sim)), (std::vector<int>{1, 20}));
}

TEST(Simulation, PrefixCacheScorerKeepsAGroupOnOneInstance) {
  scenario::Scenario sc = make_scenario(4, "weighted");
  sc.router.scorers = {{"prefix-cache", 1.0}};
  auto sim = make_sim({}, stream(80, 2000, 256, 2, /*groups=*/4));
  ASSERT_TRUE(sim->load(sc).empty());
  sim->run();
  // Every instance's requests come from one group: requests.csv lists the instance of each
  // id, and id % 4 is the group.
  std::map<int, std::set<std::string>> instances_of_group;
  for (const auto& row : csv_rows(sim->requests_csv())) {
    instances_of_group[std::stoi(row[0]) % 4].insert(row[2]);
  }
  ASSERT_EQ(instances_of_group.size(), 4u);
  for (const auto& [g, insts] : instances_of_group) EXPECT_EQ(insts.size(), 1u) << g;
}

TEST(Simulation, QueueDepthScorerReadsStaleSignals) {
  // A burst at t=0: with fresh signals the queue scorer spreads it as waiting queues grow;
  // with a 10 s staleness every instance looks empty, ties are broken at random.
  auto run = [](double staleness_ms) {
    scenario::Scenario sc = make_scenario(2, "weighted");
    sc.router.scorers = {{"queue-depth", 1.0}};
    sc.router.signal_staleness_ms = staleness_ms;
    FakeBackendConfig cfg;
    cfg.engine.max_num_seqs = 1;  // one running request at a time: the rest wait
    std::vector<ScriptedRequest> reqs;
    for (int i = 0; i < 20; ++i) reqs.push_back({i * 10, 16, 50});
    auto sim = make_sim(cfg, reqs);
    EXPECT_TRUE(sim->load(sc).empty());
    sim->run();
    return routed(summary(*sim));
  };
  const auto fresh = run(0);
  EXPECT_LE(std::abs(fresh[0] - fresh[1]), 2);
  const auto stale = run(10'000);
  EXPECT_EQ(stale[0] + stale[1], 20);
}

TEST(Simulation, SameSeedSameDigestOtherSeedOtherDigest) {
  auto digest_of = [](std::uint64_t seed) {
    scenario::Scenario sc = make_scenario(3, "random");
    sc.seed = seed;
    auto sim = make_sim({}, stream(60, 700, 48, 6));
    EXPECT_TRUE(sim->load(sc).empty());
    sim->run();
    return summary(*sim)["digest"].get<std::string>();
  };
  EXPECT_EQ(digest_of(1), digest_of(1));
  EXPECT_NE(digest_of(1), digest_of(2));
}

TEST(Simulation, ResetReplaysTheSameRun) {
  auto sim = make_sim({}, stream(30, 500, 64, 5));
  ASSERT_TRUE(sim->load(make_scenario(2)).empty());
  sim->run();
  const std::string first = sim->digest();
  sim->reset();
  EXPECT_FALSE(sim->done());
  EXPECT_EQ(sim->now(), 0);
  sim->run();
  EXPECT_EQ(sim->digest(), first);
}

TEST(Simulation, WallClockIsNotPartOfTheDigest) {
  auto sim = make_sim({}, stream(5, 500, 64, 5));
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  const auto a = nlohmann::json::parse(sim->summary_json(1.0));
  const auto b = nlohmann::json::parse(sim->summary_json(99.0));
  EXPECT_EQ(a["digest"], b["digest"]);
  EXPECT_EQ(b["sim"]["wall_s"].get<double>(), 99.0);
}

TEST(Simulation, AdvanceOneStepCompletesExactlyOneStep) {
  auto sim = make_sim({}, stream(4, 0, 64, 8));
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  std::uint64_t steps = 0;
  SimTime last = -1;
  while (!sim->done()) {
    const AdvanceResult r = sim->advance_one_step();
    if (r.done && r.steps == 0) break;
    EXPECT_EQ(r.steps, 1u);
    EXPECT_GT(r.now, last);
    last = r.now;
    ++steps;
  }
  EXPECT_EQ(static_cast<int>(steps), summary(*sim)["sim"]["steps"].get<int>());
}

TEST(Simulation, AdvanceStopsAtTheRequestedTime) {
  auto sim = make_sim({}, stream(50, 10'000, 64, 8));
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  const AdvanceResult r = sim->advance(100'000, UINT64_MAX);
  EXPECT_FALSE(r.done);
  EXPECT_EQ(r.now, 100'000);
  EXPECT_LT(sim->requests_finished(), 50u);
  const AdvanceResult r2 = sim->advance(kSimTimeNever, 5);
  EXPECT_EQ(r2.events, 5u);
  sim->run();
  EXPECT_EQ(sim->requests_finished(), 50u);
}

TEST(Simulation, HorizonWithoutDrainAbortsWhatIsInFlight) {
  scenario::Scenario sc = make_scenario(1);
  sc.horizon.duration_s = 0.05;
  sc.horizon.drain = false;
  auto sim = make_sim({}, stream(20, 1000, 64, 500));  // each needs ~0.5 s
  ASSERT_TRUE(sim->load(sc).empty());
  sim->run();
  const auto s = summary(*sim);
  EXPECT_EQ(s["requests"]["finished"].get<int>(), 0);
  EXPECT_EQ(s["requests"]["aborted"].get<int>(), 20);
  EXPECT_DOUBLE_EQ(s["sim"]["simulated_s"].get<double>(), 0.05);
  int aborted_rows = 0;
  for (const auto& row : csv_rows(sim->requests_csv())) aborted_rows += row[10] == "aborted";
  EXPECT_EQ(aborted_rows, 20);
}

TEST(Simulation, TimeSeriesHasOneValuePerColumnPerSample) {
  auto sim = make_sim({}, stream(50, 5000, 64, 16));
  ASSERT_TRUE(sim->load(make_scenario(2)).empty());
  sim->run();
  const TimeSeries& ts = sim->timeseries();
  ASSERT_GT(ts.rows(), 2u);
  for (std::size_t c = 0; c < ts.columns(); ++c) EXPECT_EQ(ts.column(c).size(), ts.rows());
  EXPECT_EQ(ts.name(0), "time_s");
  EXPECT_LT(ts.find("main-1.kv_usage"), ts.columns());
  EXPECT_LT(ts.find("itl_p99_ms"), ts.columns());
  // Samples every 100 ms from t = 0.
  EXPECT_DOUBLE_EQ(ts.column(0)[0], 0.0);
  EXPECT_DOUBLE_EQ(ts.column(0)[1], 0.1);
  // Output tokens over the run equal the throughput column integrated over the samples.
  double tokens = 0;
  const auto& thr = ts.column(ts.find("throughput_tokens_per_s"));
  const auto& t = ts.column(0);
  for (std::size_t i = 1; i < ts.rows(); ++i) tokens += thr[i] * (t[i] - t[i - 1]);
  EXPECT_NEAR(tokens, 50 * 16, 1e-6);
}

TEST(Simulation, GoodputCountsRequestsMeetingEverySlo) {
  scenario::Scenario sc = make_scenario(1);
  sc.slo.ttft_ms = 4.0;  // only the request in the first pass (3.66 ms) meets it
  auto sim = make_sim({}, stream(10, 0, 200, 4));
  ASSERT_TRUE(sim->load(sc).empty());
  sim->run();
  const auto s = summary(*sim);
  const double good = s["goodput_requests_per_s"].get<double>();
  const double all = s["throughput"]["requests_per_s"].get<double>();
  EXPECT_GT(good, 0.0);
  EXPECT_LT(good, all);
}

TEST(Simulation, RejectsUnsupportedConfigurationsWithPointers) {
  scenario::Scenario sc = make_scenario(1, "fastest");
  sc.pools[0].role = "prefill";
  auto sim = make_sim({}, stream(1, 0, 8, 1));
  const Diagnostics ds = sim->load(sc);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].pointer, "/router/policy");
  // The decoder's P/D shape check (scenario/scenario_checks.h), same pointer and message.
  EXPECT_EQ(ds[1].pointer, "/pools");
  EXPECT_NE(ds[1].message.find("exactly one prefill and one decode pool"), std::string::npos);
  EXPECT_FALSE(sim->loaded());
}

}  // namespace
}  // namespace blis::cluster::testing

namespace blis::cluster::testing {
namespace {

// A P/D deployment built in code meets the decoder's cross-section checks: a fabric for its
// KV transfers, one model on both sides.
TEST(Simulation, RunsTheDecodersPdChecksOnAScenarioBuiltInCode) {
  scenario::Scenario sc = make_scenario(1);
  sc.pools[0].role = "prefill";
  sc.pools.push_back(sc.pools[0]);
  sc.pools[1].name = "decode";
  sc.pools[1].role = "decode";
  sc.pools[1].model = "fake/other";
  auto sim = make_sim({}, stream(1, 0, 8, 1));
  const Diagnostics ds = sim->load(sc);
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].pointer, "/fabric");
  EXPECT_EQ(ds[1].pointer, "/pools/1/model");
  EXPECT_FALSE(sim->loaded());
}

TEST(Simulation, ClientTimeoutAbortsTheRequestInTheEngine) {
  // max_num_seqs 1: the second request waits behind the first (~0.6 s of decoding) and its
  // client gives up after 0.2 s; the third arrives later and still finishes.
  scenario::Scenario sc = make_scenario(1);
  sc.workload.clients[0].timeout_s = 0.2;
  FakeBackendConfig cfg;
  cfg.engine.max_num_seqs = 1;
  auto sim =
      make_sim(cfg, {{0, 16, 5}, {1000, 16, 5}, {2000, 16, 600}, {3000, 16, 5}, {700'000, 16, 5}});
  ASSERT_TRUE(sim->load(sc).empty());
  sim->run();
  const auto s = summary(*sim);
  // Requests 0, 1 finish in time; 2 (600 tokens, ~0.6 s) times out while decoding; 3 times out
  // while waiting behind it; 4 arrives after and finishes.
  EXPECT_EQ(s["requests"]["finished"].get<int>(), 3);
  EXPECT_EQ(s["requests"]["aborted"].get<int>(), 2);
  const auto rows = csv_rows(sim->requests_csv());
  ASSERT_EQ(rows.size(), 5u);
  EXPECT_EQ(rows[2][10], "aborted");
  EXPECT_EQ(rows[2][5], "0.202000");  // sent at 2 ms, gave up 200 ms later
  EXPECT_EQ(rows[3][10], "aborted");
  EXPECT_EQ(rows[3][4], "");  // never got a token
  EXPECT_EQ(rows[4][10], "finished");
}

TEST(Simulation, WithoutAnSloThereIsNoGoodput) {
  auto sim = make_sim({}, stream(10, 1000, 32, 4));
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  const auto s = summary(*sim);
  EXPECT_TRUE(s["goodput_requests_per_s"].is_null());
  EXPECT_TRUE(s["pools"][0]["goodput_requests_per_s"].is_null());
  EXPECT_EQ(s["slo"], nlohmann::json::object());
}

TEST(Simulation, TheSloIsWrittenBesideGoodput) {
  scenario::Scenario sc = make_scenario(1);
  sc.slo.ttft_ms = 4.0;
  auto sim = make_sim({}, stream(10, 0, 200, 4));
  ASSERT_TRUE(sim->load(sc).empty());
  sim->run();
  const auto s = summary(*sim);
  EXPECT_TRUE(s["goodput_requests_per_s"].is_number());
  EXPECT_EQ(s["slo"], nlohmann::json({{"ttft_ms", 4.0}}));
}

TEST(Simulation, LightLoadIsStable) {
  auto sim = make_sim({}, stream(20, 50'000, 32, 4));
  ASSERT_TRUE(sim->load(make_scenario(2)).empty());
  sim->run();
  EXPECT_EQ(summary(*sim)["saturation"]["verdict"], "stable");
}

TEST(Simulation, AGrowingQueueIsBacklogged) {
  // One sequence at a time, ~50 ms each, one arrival every 10 ms: the queue grows steadily.
  scenario::Scenario sc = make_scenario(1);
  sc.horizon.duration_s = 0.6;
  FakeBackendConfig cfg;
  cfg.engine.max_num_seqs = 1;
  auto sim = make_sim(cfg, stream(60, 10'000, 16, 50));
  ASSERT_TRUE(sim->load(sc).empty());
  sim->run();
  const auto sat = summary(*sim)["saturation"];
  EXPECT_EQ(sat["verdict"], "backlogged") << sat.dump();
  EXPECT_GT(sat["waiting_mean_second_half"].get<double>(),
            2 * sat["waiting_mean_first_half"].get<double>());
}

TEST(Simulation, TimeoutsAreOverloaded) {
  scenario::Scenario sc = make_scenario(1);
  sc.workload.clients[0].timeout_s = 0.2;
  FakeBackendConfig cfg;
  cfg.engine.max_num_seqs = 1;
  auto sim = make_sim(cfg, {{0, 16, 5}, {2000, 16, 600}, {3000, 16, 5}});
  ASSERT_TRUE(sim->load(sc).empty());
  sim->run();
  const auto sat = summary(*sim)["saturation"];
  EXPECT_EQ(sat["verdict"], "overloaded");
  EXPECT_EQ(sat["timed_out_or_rejected"], 2);
}

TEST(Simulation, AWindowWithNoSampleIsNullNotZero) {
  // Two requests 1 s apart, 100 ms windows: most windows see no first token.
  auto sim = make_sim({}, stream(2, 1'000'000, 16, 2));
  ASSERT_TRUE(sim->load(make_scenario(1)).empty());
  sim->run();
  const auto ts = nlohmann::json::parse(sim->timeseries_json());
  int nulls = 0, zeros = 0;  // (queue time can truly be 0 here: nothing waits)
  for (const char* col : {"ttft_p50_ms", "itl_p99_ms", "e2e_p99_ms"}) {
    for (const auto& v : ts["columns"][col]) {
      nulls += v.is_null() ? 1 : 0;
      zeros += v.is_number() && v.get<double>() == 0.0 ? 1 : 0;
    }
  }
  EXPECT_GT(nulls, 10);
  EXPECT_EQ(zeros, 0);
  // The added columns count what happened so far.
  EXPECT_EQ(ts["columns"]["finished_total"].back(), 2);
  EXPECT_EQ(ts["columns"]["arrived_total"].back(), 2);
}

TEST(Simulation, RejectsANonPositiveTimeout) {
  scenario::Scenario sc = make_scenario(1);
  sc.workload.clients[0].timeout_s = 0;
  auto sim = make_sim({}, {{0, 16, 5}});
  const Diagnostics ds = sim->load(sc);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].pointer, "/workload/clients/0/timeout_s");
}

}  // namespace
}  // namespace blis::cluster::testing
