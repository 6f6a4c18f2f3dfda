#include "util/rng.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "util/sampler_digest.h"
#include "util/stats.h"

namespace blis {
namespace {

TEST(Rng, MatchesXoshiro256StarStarReferenceVector) {
  // Reference outputs of xoshiro256** from state {1, 2, 3, 4} (Blackman and Vigna's C code).
  Rng r = Rng::from_state(1, 2, 3, 4);
  EXPECT_EQ(r.next_u64(), 11520ULL);
  EXPECT_EQ(r.next_u64(), 0ULL);
  EXPECT_EQ(r.next_u64(), 1509978240ULL);
  EXPECT_EQ(r.next_u64(), 1215971899390074240ULL);
}

TEST(Rng, SameSeedSameSequenceAndNamedStreamsDiffer) {
  Rng a = Rng::stream(42, "arrivals"), b = Rng::stream(42, "arrivals");
  Rng c = Rng::stream(42, "lengths"), d = Rng::stream(43, "arrivals");
  const std::uint64_t first = a.next_u64();
  EXPECT_EQ(first, b.next_u64());
  EXPECT_NE(first, c.next_u64());
  EXPECT_NE(first, d.next_u64());
}

TEST(Rng, Uniform01InRangeWithMeanHalf) {
  Rng r(7);
  RunningStats s;
  for (int i = 0; i < 200000; ++i) {
    const double u = r.uniform01();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    s.add(u);
  }
  EXPECT_NEAR(s.mean(), 0.5, 0.003);
  EXPECT_NEAR(s.variance(), 1.0 / 12.0, 0.001);
}

TEST(Rng, UniformIntCoversRangeEvenly) {
  Rng r(9);
  std::vector<int> counts(6, 0);
  for (int i = 0; i < 60000; ++i) {
    const auto v = r.uniform_int(-2, 3);
    ASSERT_GE(v, -2);
    ASSERT_LE(v, 3);
    ++counts[static_cast<std::size_t>(v + 2)];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);
  EXPECT_EQ(r.uniform_int(5, 5), 5);
  EXPECT_THROW(r.uniform_int(3, 2), std::invalid_argument);
}

TEST(Rng, ExponentialMeanAndVariance) {
  Rng r(11);
  RunningStats s;
  for (int i = 0; i < 200000; ++i) s.add(r.exponential(4.0));
  EXPECT_NEAR(s.mean(), 4.0, 0.05);
  EXPECT_NEAR(s.variance(), 16.0, 0.5);
  EXPECT_THROW(r.exponential(0.0), std::invalid_argument);
}

TEST(Rng, NormalMeanAndStd) {
  Rng r(13);
  RunningStats s;
  for (int i = 0; i < 200000; ++i) s.add(r.normal(10.0, 3.0));
  EXPECT_NEAR(s.mean(), 10.0, 0.03);
  EXPECT_NEAR(std::sqrt(s.variance()), 3.0, 0.03);
}

TEST(Rng, LognormalMatchesRequestedMeanAndStd) {
  Rng r(17);
  RunningStats s;
  for (int i = 0; i < 400000; ++i) s.add(r.lognormal_mean_std(500.0, 200.0));
  EXPECT_NEAR(s.mean(), 500.0, 3.0);
  EXPECT_NEAR(std::sqrt(s.variance()), 200.0, 5.0);
  EXPECT_GT(s.min(), 0.0);
}

TEST(Rng, GammaMeanAndVarianceForSmallAndLargeShape) {
  for (double shape : {0.3, 1.0, 4.5}) {
    Rng r(19);
    RunningStats s;
    for (int i = 0; i < 200000; ++i) s.add(r.gamma(shape, 2.0));
    EXPECT_NEAR(s.mean(), shape * 2.0, 0.03 * shape * 2.0 + 0.01) << shape;
    EXPECT_NEAR(s.variance(), shape * 4.0, 0.06 * shape * 4.0) << shape;
  }
}

TEST(Rng, WeightedChoiceFollowsWeightsAndSkipsZeros) {
  Rng r(23);
  const double w[] = {1.0, 0.0, 3.0};
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < 40000; ++i) ++counts[r.weighted_choice(w)];
  EXPECT_EQ(counts[1], 0);
  EXPECT_NEAR(counts[0], 10000, 350);
  EXPECT_NEAR(counts[2], 30000, 350);
  const double zero[] = {0.0, 0.0};
  EXPECT_THROW(r.weighted_choice(zero), std::invalid_argument);
}

// The same constant is asserted by the native and the WASM build of this test (and by the
// WASM module's node test): every sampler yields bit-identical sequences on both.
TEST(Rng, SamplerDigestIsIdenticalNativeAndWasm) {
  EXPECT_EQ(sampler_digest(2026, 5000), 7691420654784420497ULL);
}

}  // namespace
}  // namespace blis
