#include "util/stats.h"

#include <gtest/gtest.h>

namespace blis {
namespace {

TEST(RunningStats, KnownMomentsAndExtremes) {
  RunningStats s;
  for (double x : {2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0}) s.add(x);
  EXPECT_EQ(s.count(), 8u);
  EXPECT_DOUBLE_EQ(s.mean(), 5.0);
  EXPECT_DOUBLE_EQ(s.variance(), 4.0);  // population variance of the textbook example
  EXPECT_DOUBLE_EQ(s.min(), 2.0);
  EXPECT_DOUBLE_EQ(s.max(), 9.0);
  EXPECT_DOUBLE_EQ(s.sum(), 40.0);
}

TEST(RunningStats, EmptyIsZero) {
  RunningStats s;
  EXPECT_EQ(s.mean(), 0.0);
  EXPECT_EQ(s.max(), 0.0);
}

TEST(PercentileSample, LinearInterpolationLikeNumpy) {
  PercentileSample p;
  for (double x : {15.0, 20.0, 35.0, 40.0, 50.0}) p.add(x);
  // numpy.percentile([15,20,35,40,50], q) -> 50: 35, 90: 46, 25: 20, 99: 49.6
  EXPECT_DOUBLE_EQ(p.percentile(50), 35.0);
  EXPECT_DOUBLE_EQ(p.percentile(90), 46.0);
  EXPECT_DOUBLE_EQ(p.percentile(25), 20.0);
  EXPECT_NEAR(p.percentile(99), 49.6, 1e-12);
  EXPECT_DOUBLE_EQ(p.percentile(0), 15.0);
  EXPECT_DOUBLE_EQ(p.percentile(100), 50.0);
}

TEST(PercentileSample, UnsortedInputAndSummary) {
  PercentileSample p;
  for (int i = 100; i >= 1; --i) p.add(i);
  const Summary s = p.summary();
  EXPECT_EQ(s.count, 100u);
  EXPECT_DOUBLE_EQ(s.mean, 50.5);
  EXPECT_DOUBLE_EQ(s.p50, 50.5);
  EXPECT_DOUBLE_EQ(s.p90, 90.1);
  EXPECT_DOUBLE_EQ(s.p99, 99.01);
  EXPECT_DOUBLE_EQ(s.max, 100.0);
  p.add(0.5);  // adding after a query re-sorts
  EXPECT_DOUBLE_EQ(p.percentile(0), 0.5);
}

TEST(PercentileSample, EmptyAndOutOfRange) {
  PercentileSample p;
  EXPECT_EQ(p.percentile(50), 0.0);
  p.add(1);
  EXPECT_THROW(p.percentile(101), std::invalid_argument);
}

TEST(Histogram, LeSemanticsAndInfBucket) {
  Histogram h({1.0, 5.0, 10.0});
  for (double x : {0.5, 1.0, 1.5, 5.0, 7.0, 11.0, 100.0}) h.add(x);
  ASSERT_EQ(h.counts().size(), 4u);
  EXPECT_EQ(h.counts()[0], 2u);  // 0.5, 1.0
  EXPECT_EQ(h.counts()[1], 2u);  // 1.5, 5.0
  EXPECT_EQ(h.counts()[2], 1u);  // 7.0
  EXPECT_EQ(h.counts()[3], 2u);  // +Inf
  EXPECT_EQ(h.cumulative(1), 4u);
  EXPECT_EQ(h.cumulative(3), 7u);
  EXPECT_EQ(h.count(), 7u);
  EXPECT_DOUBLE_EQ(h.sum(), 126.0);
  EXPECT_THROW(Histogram({2.0, 1.0}), std::invalid_argument);
}

}  // namespace
}  // namespace blis
