#include "cluster/workload/length_sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "util/stats.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using Kind = scenario::LengthDist::Kind;
using testing::constant_len;
using testing::dist;
using testing::uniform_len;

RunningStats sample(const scenario::LengthDist& d, int n, std::uint64_t seed = 3) {
  Rng rng(seed);
  RunningStats s;
  for (int i = 0; i < n; ++i) s.add(sample_length(d, rng));
  return s;
}

TEST(LengthSampler, ConstantIsExactAndRounded) {
  EXPECT_EQ(sample(constant_len(512), 100).min(), 512);
  EXPECT_EQ(sample(constant_len(512), 100).max(), 512);
  Rng rng(1);
  EXPECT_EQ(sample_length(constant_len(2.5), rng), 3);  // halves away from zero
  EXPECT_EQ(sample_length(constant_len(2.49), rng), 2);
}

TEST(LengthSampler, NormalMeanAndStd) {
  const auto s = sample(dist(Kind::kNormal, 1000, 100), 100000);
  EXPECT_NEAR(s.mean(), 1000, 2);
  EXPECT_NEAR(std::sqrt(s.variance()), 100, 1.5);
}

TEST(LengthSampler, LognormalMeanAndStdAreOfTheCountItself) {
  // scenario.md: mean and std of the count, not of its log.
  const auto s = sample(dist(Kind::kLognormal, 800, 400), 200000);
  EXPECT_NEAR(s.mean(), 800, 8);
  EXPECT_NEAR(std::sqrt(s.variance()), 400, 12);
  EXPECT_GE(s.min(), 1);
}

TEST(LengthSampler, ExponentialMean) {
  const auto s = sample(dist(Kind::kExponential, 300), 100000);
  EXPECT_NEAR(s.mean(), 300, 4);
  EXPECT_NEAR(std::sqrt(s.variance()), 300, 6);
}

TEST(LengthSampler, UniformCoversEveryIntegerOfTheRangeEvenly) {
  Rng rng(5);
  std::vector<int> counts(5, 0);
  for (int i = 0; i < 50000; ++i) {
    const std::int32_t v = sample_length(uniform_len(10, 14), rng);
    ASSERT_GE(v, 10);
    ASSERT_LE(v, 14);
    ++counts[static_cast<std::size_t>(v - 10)];
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 400);  // both ends get full weight
  // Fractional bounds: the integers inside them.
  for (int i = 0; i < 1000; ++i) {
    const std::int32_t v = sample_length(uniform_len(2.5, 4.5), rng);
    ASSERT_TRUE(v == 3 || v == 4) << v;
  }
}

TEST(LengthSampler, MinAndMaxClampThenRoundToAtLeastOne) {
  auto d = dist(Kind::kNormal, 100, 200);
  d.min = 50;
  d.max = 120;
  const auto s = sample(d, 20000);
  EXPECT_EQ(s.min(), 50);
  EXPECT_EQ(s.max(), 120);
  // Without a min, a normal far below zero still gives at least one token.
  const auto low = sample(dist(Kind::kNormal, -50, 1), 1000);
  EXPECT_EQ(low.min(), 1);
  EXPECT_EQ(low.max(), 1);
}

TEST(LengthSampler, HugeSampleIsAnErrorNotAClamp) {
  Rng rng(1);
  EXPECT_THROW(sample_length(constant_len(1e9), rng), std::runtime_error);
  auto heavy = dist(Kind::kLognormal, 1e8, 1e8);
  EXPECT_THROW(
      {
        for (int i = 0; i < 100; ++i) sample_length(heavy, rng);
      },
      std::runtime_error);
  heavy.max = 4096;  // a max keeps it in range
  for (int i = 0; i < 100; ++i) EXPECT_LE(sample_length(heavy, rng), 4096);
}

TEST(LengthSampler, NominalMean) {
  EXPECT_EQ(nominal_mean(constant_len(7)), 7);
  EXPECT_EQ(nominal_mean(dist(Kind::kLognormal, 80, 3)), 80);
  EXPECT_EQ(nominal_mean(uniform_len(10, 20)), 15);
}

}  // namespace
}  // namespace blis::cluster
