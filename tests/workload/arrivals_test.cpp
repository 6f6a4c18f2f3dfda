// Arrival processes, stages, closed loops and the horizon.

#include <gtest/gtest.h>

#include <cmath>

#include "cluster/workload/workload.h"
#include "util/stats.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using namespace testing;
using AK = scenario::ArrivalProcess::Kind;

std::vector<GeneratedRequest> run_open(const scenario::Load& load, std::optional<double> duration,
                                       std::optional<std::int64_t> max_requests = std::nullopt) {
  auto w = make_workload(scenario_with(
      {lengths_client("c", load, constant_len(10), constant_len(5))}, duration, max_requests));
  auto out = pop_all(*w);
  EXPECT_TRUE(w->exhausted());
  EXPECT_EQ(w->generated(), out.size());
  return out;
}

RunningStats gap_stats(const std::vector<GeneratedRequest>& rs) {
  RunningStats s;
  for (std::size_t i = 1; i < rs.size(); ++i) s.add(to_seconds(rs[i].arrival - rs[i - 1].arrival));
  return s;
}

TEST(Arrivals, ConstantRateArrivesAtExactInstants) {
  const auto rs = run_open(rate_load(4, AK::kConstant), 2.0);
  ASSERT_EQ(rs.size(), 8u);  // 0.25 s .. 2.0 s; an arrival exactly at the horizon counts
  for (std::size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].arrival, static_cast<SimTime>(250000 * (i + 1)));
    EXPECT_EQ(rs[i].seq, i);
  }
}

TEST(Arrivals, ConstantRateWithoutDriftOverManyArrivals) {
  // 1/3 s is not a whole number of microseconds: instants are k/3 s rounded, never drifting.
  const auto rs = run_open(rate_load(3, AK::kConstant), 1000.0);
  ASSERT_EQ(rs.size(), 3000u);
  EXPECT_EQ(rs[0].arrival, 333333);
  EXPECT_EQ(rs[1].arrival, 666667);
  EXPECT_EQ(rs[2999].arrival, 1000000000);
}

TEST(Arrivals, StagesSwitchRateAtTheStageBoundary) {
  const auto rs = run_open(stages_load({{2, 3}, {5, 2}}, AK::kConstant), std::nullopt);
  ASSERT_EQ(rs.size(), 16u);  // 6 in stage 0, then 10: floor(rate * duration) each
  for (int i = 0; i < 6; ++i) EXPECT_EQ(rs[i].arrival, 500000 * (i + 1));
  for (int i = 0; i < 10; ++i) EXPECT_EQ(rs[6 + i].arrival, 3000000 + 200000 * (i + 1));
}

TEST(Arrivals, ZeroRateStageIsAPause) {
  const auto rs = run_open(stages_load({{1, 2}, {0, 3}, {1, 2}}, AK::kConstant), std::nullopt);
  ASSERT_EQ(rs.size(), 4u);
  EXPECT_EQ(rs[0].arrival, 1000000);
  EXPECT_EQ(rs[1].arrival, 2000000);
  EXPECT_EQ(rs[2].arrival, 6000000);
  EXPECT_EQ(rs[3].arrival, 7000000);
}

TEST(Arrivals, PoissonStagesKeepEachStagesRate) {
  const auto rs = run_open(stages_load({{20, 500}, {80, 500}}, AK::kPoisson), std::nullopt);
  std::size_t first = 0;
  for (const auto& r : rs) first += r.arrival <= 500 * kMicrosPerSecond ? 1 : 0;
  EXPECT_NEAR(static_cast<double>(first), 10000, 500);               // sd 100
  EXPECT_NEAR(static_cast<double>(rs.size() - first), 40000, 1000);  // sd 200
  EXPECT_LE(rs.back().arrival, 1000 * kMicrosPerSecond);
}

TEST(Arrivals, PoissonMeanRateAndExponentialGaps) {
  const auto rs = run_open(rate_load(50), 2000.0);
  EXPECT_NEAR(static_cast<double>(rs.size()), 100000, 1500);  // sd 316
  const auto s = gap_stats(rs);
  EXPECT_NEAR(s.mean(), 0.02, 0.0003);
  EXPECT_NEAR(std::sqrt(s.variance()) / s.mean(), 1.0, 0.02);  // exponential: cv 1
}

TEST(Arrivals, GammaHasTheRequestedCoefficientOfVariation) {
  for (double cv : {0.5, 2.0}) {
    const auto rs = run_open(rate_load(10, AK::kGamma, cv), std::nullopt, 100000);
    ASSERT_EQ(rs.size(), 100000u);
    const auto s = gap_stats(rs);
    EXPECT_NEAR(s.mean(), 0.1, 0.1 * 0.02) << "cv " << cv;
    EXPECT_NEAR(std::sqrt(s.variance()) / s.mean(), cv, cv * 0.04) << "cv " << cv;
  }
}

TEST(Arrivals, HorizonDurationStopsArrivals) {
  const auto rs = run_open(rate_load(100), 10.0);
  ASSERT_FALSE(rs.empty());
  EXPECT_LE(rs.back().arrival, 10 * kMicrosPerSecond);
  EXPECT_GT(rs.back().arrival, 9 * kMicrosPerSecond);
}

TEST(Arrivals, HorizonMaxRequestsStopsAfterThatMany) {
  auto w = make_workload(
      scenario_with({lengths_client("a", rate_load(5), constant_len(10), constant_len(5)),
                     lengths_client("b", rate_load(7), constant_len(10), constant_len(5))},
                    std::nullopt, 37));
  const auto rs = pop_all(*w);
  EXPECT_EQ(rs.size(), 37u);
  EXPECT_EQ(w->next_arrival(), kSimTimeNever);
  EXPECT_TRUE(w->exhausted());
  EXPECT_THROW(w->pop(*std::make_unique<GeneratedRequest>()), std::logic_error);
}

TEST(Arrivals, ClientsMergeInTimeOrderWithClientIndexBreakingTies) {
  auto w = make_workload(scenario_with(
      {lengths_client("a", rate_load(2, AK::kConstant), constant_len(10), constant_len(5)),
       lengths_client("b", rate_load(4, AK::kConstant), constant_len(10), constant_len(5))},
      1.0));
  const auto rs = pop_all(*w);
  // a: 0.5, 1.0; b: 0.25, 0.5, 0.75, 1.0. At 0.5 and 1.0 client 0 goes first.
  const std::vector<std::pair<SimTime, std::int32_t>> want = {
      {250000, 1}, {500000, 0}, {500000, 1}, {750000, 1}, {1000000, 0}, {1000000, 1}};
  ASSERT_EQ(rs.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(rs[i].arrival, want[i].first) << i;
    EXPECT_EQ(rs[i].client, want[i].second) << i;
  }
}

TEST(ClosedLoop, UsersWaitForTheirAnswerThenThink) {
  auto w = make_workload(scenario_with(
      {lengths_client("c", concurrency_load(4, 0.5), constant_len(10), constant_len(5))}, 10.0));
  const auto res = drive(*w, [](const GeneratedRequest&) { return 2 * kMicrosPerSecond; });
  // Rounds at 0, 2.5, 5, 7.5, 10 s: four users each.
  ASSERT_EQ(res.requests.size(), 20u);
  for (std::size_t i = 0; i < res.requests.size(); ++i) {
    const auto& r = res.requests[i];
    EXPECT_EQ(r.arrival, static_cast<SimTime>(i / 4) * 2500000) << i;
    EXPECT_EQ(r.session, static_cast<std::int64_t>(i % 4)) << i;  // the user
    EXPECT_EQ(r.turn, static_cast<std::int32_t>(i / 4)) << i;
  }
  EXPECT_EQ(res.max_in_flight, 4);
  EXPECT_TRUE(w->exhausted());
}

TEST(ClosedLoop, NeverMoreThanNInFlight) {
  auto w = make_workload(
      scenario_with({lengths_client("c", concurrency_load(7, 0), constant_len(10),
                                    dist(scenario::LengthDist::Kind::kExponential, 50))},
                    300.0));
  // Latency proportional to the output length: users come back in a shuffled order.
  const auto res = drive(*w, [](const GeneratedRequest& r) { return r.output_tokens * 20000; });
  EXPECT_GT(res.requests.size(), 1000u);
  EXPECT_EQ(res.max_in_flight, 7);
  EXPECT_TRUE(w->exhausted());
}

TEST(ClosedLoop, NotExhaustedWhileUsersAreOut) {
  auto w = make_workload(scenario_with(
      {lengths_client("c", concurrency_load(2, 1.0), constant_len(10), constant_len(5))}, 100.0));
  GeneratedRequest a, b;
  w->pop(a);
  w->pop(b);
  EXPECT_EQ(w->next_arrival(), kSimTimeNever);  // both users busy
  EXPECT_FALSE(w->exhausted());                 // ... but they will come back
  w->on_finished(a, 5, 3 * kMicrosPerSecond);
  EXPECT_EQ(w->next_arrival(), 4 * kMicrosPerSecond);
  w->on_finished(b, 5, 200 * kMicrosPerSecond);  // would think past the horizon: retires
  GeneratedRequest c;
  w->pop(c);
  EXPECT_EQ(c.session, 0);
  EXPECT_FALSE(w->exhausted());
  w->on_finished(c, 5, 150 * kMicrosPerSecond);
  EXPECT_TRUE(w->exhausted());
}

}  // namespace
}  // namespace blis::cluster
