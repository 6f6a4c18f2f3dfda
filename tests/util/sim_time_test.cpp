#include "util/sim_time.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace blis {
namespace {

TEST(SimTime, ConvertsSecondsAndMillisRoundingToNearestMicro) {
  EXPECT_EQ(from_seconds(1.5), 1500000);
  EXPECT_EQ(from_millis(2.5), 2500);
  EXPECT_EQ(from_seconds(0.0000015), 2);  // 1.5 µs rounds away from zero
  EXPECT_EQ(from_seconds(-0.0000015), -2);
  EXPECT_EQ(from_millis(0.0004), 0);
  EXPECT_DOUBLE_EQ(to_seconds(2500000), 2.5);
  EXPECT_DOUBLE_EQ(to_millis(1500), 1.5);
}

TEST(SimTime, RejectsNonFiniteAndHugeValues) {
  EXPECT_THROW(from_seconds(1.0 / 0.0), std::invalid_argument);
  EXPECT_THROW(from_seconds(1e20), std::out_of_range);
}

TEST(SimTime, SaturatingAddKeepsNeverAsNever) {
  EXPECT_EQ(add_saturating(kSimTimeNever, 5), kSimTimeNever);
  EXPECT_EQ(add_saturating(kSimTimeNever - 3, 5), kSimTimeNever);
  EXPECT_EQ(add_saturating(10, 5), 15);
}

}  // namespace
}  // namespace blis
