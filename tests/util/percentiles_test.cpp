// Percentiles (util/percentiles.h): numpy-linear and exact up to kExactLimit distinct values,
// within kRelativeError beyond it, in memory that stops growing with the count, and
// deterministic whatever the order of queries.

#include "util/percentiles.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "util/rng.h"

namespace blis {
namespace {

// numpy.percentile(v, p) (linear) of a sorted vector, the reference.
double numpy_percentile(const std::vector<double>& v, double p) {
  const double rank = p / 100.0 * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (rank - static_cast<double>(lo));
}

// A deterministic spread of latency-like values (ms) with no repeats: a linear congruential
// walk over [0, 2^32) mapped to 1 .. ~50,000 ms, log-uniform-ish.
std::vector<double> latencies(std::size_t n, std::uint64_t seed) {
  std::vector<double> v;
  v.reserve(n);
  std::uint64_t s = seed;
  for (std::size_t i = 0; i < n; ++i) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    const double u = static_cast<double>(s >> 11) / 9007199254740992.0;  // [0, 1)
    v.push_back(std::exp(u * 10.8) + static_cast<double>(i) * 1e-9);
  }
  return v;
}

const double kPs[] = {0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100};

TEST(Percentiles, LinearInterpolationLikeNumpy) {
  Percentiles p;
  for (double x : {15.0, 20.0, 35.0, 40.0, 50.0}) p.add(x);
  // numpy.percentile([15,20,35,40,50], q) -> 50: 35, 90: 46, 25: 20, 99: 49.6
  EXPECT_DOUBLE_EQ(p.percentile(50), 35.0);
  EXPECT_DOUBLE_EQ(p.percentile(90), 46.0);
  EXPECT_DOUBLE_EQ(p.percentile(25), 20.0);
  EXPECT_NEAR(p.percentile(99), 49.6, 1e-12);
  EXPECT_DOUBLE_EQ(p.percentile(0), 15.0);
  EXPECT_DOUBLE_EQ(p.percentile(100), 50.0);
}

TEST(Percentiles, UnsortedInputSummaryAndAddingAfterAQuery) {
  Percentiles p;
  for (int i = 100; i >= 1; --i) p.add(i);
  const Summary s = p.summary();
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_DOUBLE_EQ(s.p90, 90.1);
  EXPECT_DOUBLE_EQ(s.p99, 99.01);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
  EXPECT_TRUE(s.exact);
  p.add(0.5);
  EXPECT_DOUBLE_EQ(p.percentile(0), 0.5);
}

TEST(Percentiles, EmptyOutOfRangeAndNonFinite) {
  Percentiles p;
  EXPECT_EQ(p.percentile(50), 0.0);
  EXPECT_EQ(p.summary().count, 0u);
  p.add(1);
  EXPECT_THROW(p.percentile(101), std::invalid_argument);
  EXPECT_THROW(p.percentile(std::nan("")), std::invalid_argument);
  p.add(std::nan(""));
  p.add(HUGE_VAL);
  EXPECT_EQ(p.count(), 1u);
}

TEST(Percentiles, RepeatedAddsCountEachTimeAndNegativesSortFirst) {
  Percentiles p;
  p.add(0, 3);
  p.add(10);
  EXPECT_EQ(p.count(), 4u);
  EXPECT_DOUBLE_EQ(p.mean(), 2.5);
  EXPECT_DOUBLE_EQ(p.percentile(50), 0.0);
  EXPECT_DOUBLE_EQ(p.percentile(100), 10.0);
  Percentiles q;
  std::vector<double> ref;
  for (double v : {-5.0, 3.0, 200'000.0, 131'071.0, 131'072.0, 0.0, 9'000'000.0}) {
    q.add(v);
    ref.push_back(v);
  }
  std::sort(ref.begin(), ref.end());
  for (double pc = 0; pc <= 100; pc += 12.5) EXPECT_EQ(q.percentile(pc), numpy_percentile(ref, pc));
  EXPECT_EQ(q.summary(1e-3).max, 9'000'000.0 * 1e-3);
}

TEST(Percentiles, ExactUpToTheLimitOfDistinctValues) {
  std::vector<double> v = latencies(Percentiles::kExactLimit, 7);
  Percentiles p;
  for (double x : v) p.add(x);
  std::sort(v.begin(), v.end());
  EXPECT_TRUE(p.exact());
  for (double pc : kPs) EXPECT_EQ(p.percentile(pc), numpy_percentile(v, pc)) << pc;
  EXPECT_TRUE(p.summary().exact);
}

TEST(Percentiles, RepeatsDoNotCountTowardTheLimit) {
  // Ten million inter-token gaps over a few thousand distinct µs values stay exact.
  Percentiles p;
  for (int i = 0; i < 10'000'000; i += 50) p.add(static_cast<double>(20'000 + (i * 7) % 4'001), 50);
  EXPECT_EQ(p.count(), 10'000'000u);
  EXPECT_TRUE(p.exact());
  EXPECT_LE(p.stored(), 4'001u + 8192u);
}

TEST(Percentiles, BeyondTheLimitEveryPercentileIsWithinTheRelativeError) {
  std::vector<double> v = latencies(Percentiles::kExactLimit * 2, 11);
  Percentiles p;
  for (double x : v) p.add(x);
  std::sort(v.begin(), v.end());
  EXPECT_FALSE(p.exact());
  const Summary s = p.summary();
  EXPECT_FALSE(s.exact);
  EXPECT_EQ(s.count, v.size());
  EXPECT_EQ(s.max, v.back());  // max and count stay exact
  for (double pc : kPs) {
    const double want = numpy_percentile(v, pc);
    EXPECT_LE(std::fabs(p.percentile(pc) - want), Percentiles::kRelativeError * want) << pc;
  }
  EXPECT_EQ(p.percentile(0), v.front());
}

TEST(Percentiles, SketchMemoryStopsGrowingWithTheCount) {
  // Values in [1, 50,000] span 16 powers of two: at most 64 buckets each.
  Percentiles p;
  const std::vector<double> v = latencies(Percentiles::kExactLimit + 10, 3);
  for (double x : v) p.add(x);
  p.percentile(50);
  ASSERT_FALSE(p.exact());
  const std::size_t after_switch = p.stored();
  EXPECT_LE(after_switch, 17u * Percentiles::kSubBuckets);
  for (int round = 0; round < 3; ++round) {
    for (double x : latencies(500'000, 100 + round)) p.add(x);
  }
  EXPECT_LE(p.stored(), 17u * Percentiles::kSubBuckets);
  EXPECT_EQ(p.count(), v.size() + 1'500'000u);
}

TEST(Percentiles, SketchHandlesZeroAndNegativeValues) {
  Percentiles p;
  std::vector<double> v = latencies(Percentiles::kExactLimit * 2, 5);
  for (std::size_t i = 0; i < v.size(); i += 4) v[i] = -v[i];
  for (std::size_t i = 1; i < v.size(); i += 10) v[i] = 0;
  for (double x : v) p.add(x);
  ASSERT_FALSE(p.exact());
  std::sort(v.begin(), v.end());
  for (double pc : kPs) {
    const double want = numpy_percentile(v, pc);
    // Interpolating across zero: bounded by the larger magnitude of the two neighbours.
    EXPECT_LE(std::fabs(p.percentile(pc) - want),
              Percentiles::kRelativeError * std::max(std::fabs(want), 1.0) * 2)
        << pc;
  }
}

TEST(Percentiles, DeterministicWhateverTheQueries) {
  // Queries compact at different moments; the answers (and the switch) must not depend on it.
  const std::vector<double> v = latencies(Percentiles::kExactLimit + 5'000, 9);
  Percentiles quiet, chatty;
  for (std::size_t i = 0; i < v.size(); ++i) {
    quiet.add(v[i]);
    chatty.add(v[i]);
    if (i % 333'333 == 0) chatty.percentile(99);
  }
  EXPECT_EQ(quiet.exact(), chatty.exact());
  for (double pc : kPs) EXPECT_EQ(quiet.percentile(pc), chatty.percentile(pc)) << pc;
  EXPECT_EQ(quiet.mean(), chatty.mean());
  chatty.clear();
  EXPECT_TRUE(chatty.exact());
  EXPECT_EQ(chatty.count(), 0u);
}

// The cluster adds a step's inter-token gaps (whole microseconds) one call per run of equal
// gaps instead of one per token (Simulation::State::apply_step_events): for whole-number
// values every figure is bit-identical however equal consecutive values are grouped.
TEST(Percentiles, GroupingEqualWholeNumbersChangesNothing) {
  Percentiles one, grouped;
  Rng rng(23);
  for (int step = 0; step < 20000; ++step) {
    const double gap = static_cast<double>(rng.uniform_int(0, 90000));
    const auto n = static_cast<std::uint64_t>(rng.uniform_int(1, 150));
    for (std::uint64_t k = 0; k < n; ++k) one.add(gap);
    grouped.add(gap, n);
  }
  EXPECT_EQ(one.count(), grouped.count());
  EXPECT_EQ(one.mean(), grouped.mean());
  EXPECT_EQ(one.exact(), grouped.exact());
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 100.0}) {
    EXPECT_EQ(one.percentile(p), grouped.percentile(p)) << p;
  }
}

}  // namespace
}  // namespace blis
