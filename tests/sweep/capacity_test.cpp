// Capacity search: the rate bisection converges to a bracket within the tolerance, and the
// fewest instances needed never falls as the rate rises.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "sweep/capacity.h"

namespace blis::sweep {
namespace {

nlohmann::json base() {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/tests/sweep/data/base.json");
  std::stringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

TEST(SloParse, DottedAndPointerForms) {
  std::string why;
  const auto a = parse_slo("ttft_ms.p99<=500", &why);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->metric, "/ttft_ms/p99");
  EXPECT_TRUE(a->upper);
  EXPECT_EQ(a->value, 500);
  const auto b = parse_slo("/goodput_requests_per_s>=3.5", &why);
  ASSERT_TRUE(b);
  EXPECT_FALSE(b->upper);
  EXPECT_FALSE(parse_slo("ttft_ms.p99<500", &why));
  EXPECT_FALSE(parse_slo("ttft_ms.p99<=fast", &why));
}

// The hostile corpus (tests/hostile, capacity-ansi-slo): a --slo with an ANSI escape was echoed
// raw in every probe line.
TEST(SloParse, EchoesTheBoundEscaped) {
  std::string why;
  const auto a = parse_slo("\x1b[31mttft_ms.p99<=500", &why);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->text, "\\x1b[31mttft_ms.p99<=500");
  EXPECT_FALSE(parse_slo("\x1b[2Jttft<500", &why));
  EXPECT_EQ(why.find('\x1b'), std::string::npos) << why;
  EXPECT_FALSE(parse_slo("ttft<=5\n", &why));
  EXPECT_EQ(why.find('\n'), std::string::npos) << why;
}

TEST(Capacity, RateBisectionConvergesWithinTolerance) {
  CapacityQuery q;
  q.vary = Vary::kRate;
  std::string why;
  q.slo.push_back(*parse_slo("ttft_ms.p99<=150", &why));
  q.tolerance = 0.05;
  const CapacityResult r = capacity_search(base(), q, {});
  ASSERT_TRUE(r.diagnostics.empty()) << r.diagnostics.front().message;
  ASSERT_TRUE(r.answer);
  ASSERT_TRUE(r.first_fail);
  EXPECT_LE((*r.first_fail - *r.answer) / *r.first_fail, q.tolerance);
  EXPECT_LT(static_cast<int>(r.probes.size()), q.max_probes);
  // Every probe at or below the answer passed, every one at or above the bracket failed.
  for (const CapacityProbe& p : r.probes) {
    if (p.value <= *r.answer) {
      EXPECT_TRUE(p.pass) << p.value << " " << p.why;
    }
    if (p.value >= *r.first_fail) {
      EXPECT_FALSE(p.pass) << p.value;
    }
  }
}

TEST(Capacity, FewestInstancesIsMonotoneInRate) {
  std::string why;
  double previous = 0;
  for (double rate : {20.0, 60.0, 120.0}) {
    CapacityQuery q;
    q.vary = Vary::kInstances;
    q.rate = rate;
    q.slo.push_back(*parse_slo("ttft_ms.p99<=150", &why));
    const CapacityResult r = capacity_search(base(), q, {});
    ASSERT_TRUE(r.answer) << rate;
    EXPECT_GE(*r.answer, previous) << rate;
    if (r.first_fail) {
      EXPECT_EQ(*r.first_fail + 1, *r.answer) << rate;
    }
    previous = *r.answer;
  }
  EXPECT_GT(previous, 1);
}

// Hostile-corpus findings: a probe in which nothing arrived "passed" any SLO (a search for
// ttft_ms.p99 <= 1 us answered 0.06 req/s), and an instance search that met the work budget
// kept doubling, printing every refused probe's errors again and "invalid scenario" without
// saying why.
TEST(Capacity, ProbesThatMeasureNothingFail) {
  CapacityQuery q;
  std::string why;
  q.slo.push_back(*parse_slo("ttft_ms.p99<=0.000001", &why));
  const CapacityResult r = capacity_search(base(), q, {});
  EXPECT_FALSE(r.answer) << *r.answer;
  bool saw_empty = false;
  for (const CapacityProbe& p : r.probes) {
    EXPECT_FALSE(p.pass) << p.value << " " << p.why;
    saw_empty = saw_empty || p.why == "no request finished (nothing to measure)";
  }
  EXPECT_TRUE(saw_empty);
}

TEST(Capacity, InstanceSearchStopsAtTheFirstRefusedProbe) {
  nlohmann::json sc = base();
  sc["pools"][0]["instances"] = 600;  // 1200 instances hold more KV blocks than the budget
  CapacityQuery q;
  q.vary = Vary::kInstances;
  q.rate = 1;
  std::string why;
  q.slo.push_back(*parse_slo("ttft_ms.p99<=0.000001", &why));
  const CapacityResult r = capacity_search(sc, q, {});
  EXPECT_FALSE(r.answer);
  ASSERT_EQ(r.probes.size(), 2u);
  EXPECT_TRUE(r.probes[1].invalid);
  EXPECT_EQ(r.probes[1].why.rfind("invalid scenario: /pools: the instances hold", 0), 0u)
      << r.probes[1].why;
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].pointer, "/pools");
}

}  // namespace
}  // namespace blis::sweep
