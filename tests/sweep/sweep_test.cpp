// The sweep document (decode, pointers in errors, the grid, linked axes) and the ranking
// (constraints, objective, Pareto front).

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sweep/rank.h"
#include "sweep/run_point.h"
#include "sweep/sweep.h"

namespace blis::sweep {
namespace {

std::string base_text() {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/tests/sweep/data/base.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string doc(const std::string& axes, const std::string& extra = "") {
  return R"({"schema": "blis/sweep/v1", "name": "t", "base": )" + base_text() + R"(, "axes": )" +
         axes + R"(, "objective": "min_cost")" + extra + "}";
}

std::string first_error(const DecodeResult& r) {
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::kError) return format_diagnostic(d);
  }
  return "";
}

TEST(SweepDecode, GridOfValuesAndRangeLastAxisFastest) {
  const auto r = decode_sweep(doc(R"([{"pointer": "/pools/0/instances", "values": [1, 2]},
      {"pointer": "/workload/clients/0/load/rate", "range": {"from": 5, "to": 15, "step": 5}}])"));
  ASSERT_TRUE(r.sweep) << first_error(r);
  const Sweep& s = *r.sweep;
  EXPECT_EQ(s.points(), 6u);
  EXPECT_EQ(point_values(s, 4).dump(),
            R"({"/pools/0/instances":2,"/workload/clients/0/load/rate":10})");
  const auto sc = point_scenario(s, 5);
  EXPECT_EQ(sc["pools"][0]["instances"], 2);
  EXPECT_EQ(sc["workload"]["clients"][0]["load"]["rate"], 15);
  EXPECT_EQ(s.objective.metric, "/cost/usd_per_million_output_tokens");
}

TEST(SweepDecode, LinkedKeysMoveTogether) {
  const auto r = decode_sweep(doc(R"([{"name": "scale", "linked": [
      {"pointer": "/pools/0/instances", "values": [1, 2, 4]},
      {"pointer": "/workload/clients/0/load/rate", "values": [10, 20, 40]}]}])"));
  ASSERT_TRUE(r.sweep) << first_error(r);
  EXPECT_EQ(r.sweep->points(), 3u);
  const auto sc = point_scenario(*r.sweep, 2);
  EXPECT_EQ(sc["pools"][0]["instances"], 4);
  EXPECT_EQ(sc["workload"]["clients"][0]["load"]["rate"], 40);
}

TEST(SweepDecode, ErrorsNameTheirPointer) {
  struct Case {
    std::string text, pointer;
  };
  const std::vector<Case> cases = {
      {doc(R"([{"pointer": "pools/0", "values": [1]}])"), "/axes/0/pointer"},
      {doc(R"([{"pointer": "/pools/0/instances", "values": []}])"), "/axes/0/values"},
      {doc(R"([{"linked": [{"pointer": "/a", "values": [1, 2]}, {"pointer": "/b", "values": [1]}]}])"),
       "/axes/0/linked/1"},
      {doc(R"([{"pointer": "/pools/0/instances", "range": {"from": 3, "to": 1, "step": 1}}])"),
       "/axes/0/range/to"},
      {doc(R"([{"pointer": "/pools/0/instances", "values": [1, 2, 3]}])",
           R"(, "budget": {"max_runs": 2})"),
       "/budget/max_runs"},
      {doc(R"([{"pointer": "/pools/0/instances", "values": [1]}])",
           R"(, "constraints": [{"metric": "/ttft_ms/p99"}])"),
       "/constraints/0"},
      {doc(R"([{"pointer": "/pools/0/instances", "values": [1]}])", R"(, "colour": 1)"), "/colour"},
  };
  for (const Case& c : cases) {
    const auto r = decode_sweep(c.text);
    EXPECT_FALSE(r.sweep) << c.pointer;
    ASSERT_FALSE(r.diagnostics.empty()) << c.pointer;
    EXPECT_EQ(r.diagnostics.front().pointer, c.pointer) << first_error(r);
  }
  const auto bad_objective = decode_sweep(
      R"({"schema": "blis/sweep/v1", "base": {}, "axes": [{"pointer": "/x", "values": [1]}], "objective": "cheap"})");
  ASSERT_FALSE(bad_objective.diagnostics.empty());
  EXPECT_EQ(bad_objective.diagnostics.back().pointer, "/objective");
  const auto path_without_reader = decode_sweep(
      R"({"schema": "blis/sweep/v1", "base": "x.json", "axes": [{"pointer": "/x", "values": [1]}], "objective": "min_gpus"})");
  EXPECT_EQ(path_without_reader.diagnostics.front().pointer, "/base");
}

// Hostile-corpus finding: a range of 10^30 values was reported as "gives
// -9223372036854775808 values" (a float-to-integer conversion out of range, undefined).
TEST(SweepDecode, RangeCountBeyondAnyIntegerIsShownNotConverted) {
  const auto r = decode_sweep(
      doc(R"([{"pointer": "/seed", "range": {"from": 0, "to": 1e15, "step": 1e-15}}])"));
  EXPECT_FALSE(r.sweep);
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_EQ(r.diagnostics.front().pointer, "/axes/0/range/step");
  EXPECT_EQ(r.diagnostics.front().message,
            "gives 9.999999999999999e+29 values, expected at most 100000")
      << first_error(r);
  const auto twelve =
      decode_sweep(doc(R"([{"pointer": "/seed", "range": {"from": 1, "to": 1e12, "step": 1}}])"));
  ASSERT_FALSE(twelve.diagnostics.empty());
  EXPECT_EQ(twelve.diagnostics.front().message,
            "gives 1000000000000 values, expected at most 100000");
}

TEST(SweepCheck, AxisThatNamesNothingAndBadPointsAndBadMetrics) {
  const auto missing = decode_sweep(doc(R"([{"pointer": "/pools/4/instances", "values": [1]}])"));
  ASSERT_TRUE(missing.sweep);
  const Diagnostics d1 = check_points(*missing.sweep, {});
  ASSERT_TRUE(has_errors(d1));
  EXPECT_EQ(d1.front().pointer, "/axes/0/pointer");
  const auto invalid =
      decode_sweep(doc(R"([{"pointer": "/pools/0/instances", "values": [1, 0]}])"));
  ASSERT_TRUE(invalid.sweep);
  const Diagnostics d2 = check_points(*invalid.sweep, {});
  ASSERT_TRUE(has_errors(d2));
  EXPECT_NE(d2.front().message.find("point 1"), std::string::npos) << d2.front().message;
  EXPECT_NE(d2.front().message.find("/pools/0/instances"), std::string::npos);
  const auto metric = decode_sweep(doc(R"([{"pointer": "/pools/0/instances", "values": [1]}])",
                                       R"(, "constraints": [{"metric": "/ttft/p99", "max": 1}])"));
  ASSERT_TRUE(metric.sweep);
  const Diagnostics d3 = check_points(*metric.sweep, {});
  ASSERT_TRUE(has_errors(d3));
  EXPECT_EQ(d3.front().pointer, "/constraints/0/metric");
}

TEST(SweepRank, FeasibleByObjectiveThenInfeasibleAndTheParetoFront) {
  const auto r =
      decode_sweep(doc(R"([{"pointer": "/pools/0/instances", "values": [1, 2, 3, 4, 5]}])",
                       R"(, "constraints": [{"metric": "/ttft_ms/p99", "max": 100}])"));
  ASSERT_TRUE(r.sweep);
  const Sweep& s = *r.sweep;
  // cost, ttft p99 per point: 0 infeasible, 1..4 feasible; 3 is dominated by 1 (cheaper and
  // faster); 2 and 4 trade cost against latency with 1.
  const double cost[] = {0.5, 1.0, 2.0, 3.0, 4.0};
  const double ttft[] = {900, 50, 40, 60, 10};
  std::vector<nlohmann::ordered_json> rows;
  for (std::size_t i = 0; i < 5; ++i) {
    nlohmann::json summary = {{"digest", "d"},
                              {"ttft_ms", {{"p99", ttft[i]}}},
                              {"cost", {{"usd_per_million_output_tokens", cost[i]}}}};
    rows.push_back(point_row(s, i, summary));
  }
  EXPECT_FALSE(rows[0]["feasible"].get<bool>());
  const Ranking k = rank_rows(s, rows);
  EXPECT_EQ(k.order, (std::vector<std::size_t>{1, 2, 3, 4, 0}));
  EXPECT_EQ(k.pareto, (std::vector<bool>{false, true, true, false, true}));
  const std::string table = ranking_table(s, rows, k);
  EXPECT_NE(table.find("no: /ttft_ms/p99 = 900 > 100"), std::string::npos) << table;
}

TEST(SweepDocument, NormalizedDocumentDecodesToItself) {
  const auto r = decode_sweep(
      doc(R"([{"pointer": "/pools/0/instances", "range": {"from": 1, "to": 3, "step": 1}},
      {"linked": [{"pointer": "/seed", "values": [1, 2]}, {"pointer": "/name", "values": ["a", "b"]}]}])",
          R"(, "constraints": [{"metric": "/e2e_ms/p99", "max": 500}])"));
  ASSERT_TRUE(r.sweep) << first_error(r);
  const std::string once = normalized_document(*r.sweep).dump();
  const auto again = decode_sweep(once);
  ASSERT_TRUE(again.sweep) << first_error(again);
  EXPECT_EQ(normalized_document(*again.sweep).dump(), once);
}

TEST(SweepRun, SamePointSameDigestInAnyOrder) {
  const auto r = decode_sweep(doc(R"([{"pointer": "/pools/0/instances", "values": [1, 2]}])"));
  ASSERT_TRUE(r.sweep);
  const auto b1 = run_point(*r.sweep, 1, {});
  const auto a = run_point(*r.sweep, 0, {});
  const auto b2 = run_point(*r.sweep, 1, {});
  ASSERT_TRUE(a.summary && b1.summary && b2.summary);
  EXPECT_EQ(*b1.summary, *b2.summary);
  EXPECT_NE(*a.summary, *b1.summary);
}

}  // namespace
}  // namespace blis::sweep
