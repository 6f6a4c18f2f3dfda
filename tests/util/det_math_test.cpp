#include "util/det_math.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace blis {
namespace {

TEST(DetMath, LogMatchesKnownValues) {
  EXPECT_DOUBLE_EQ(dmath::log(1.0), 0.0);
  EXPECT_NEAR(dmath::log(2.0), 0.69314718055994530942, 1e-16);
  EXPECT_NEAR(dmath::log(10.0), 2.30258509299404568402, 4e-16);
  EXPECT_NEAR(dmath::log(1e-300), -690.77552789821370521, 1e-12);
  EXPECT_NEAR(dmath::log(0.5), -0.69314718055994530942, 1e-16);
  EXPECT_TRUE(std::isinf(dmath::log(0.0)));
  EXPECT_TRUE(std::isnan(dmath::log(-1.0)));
}

TEST(DetMath, ExpMatchesKnownValues) {
  EXPECT_DOUBLE_EQ(dmath::exp(0.0), 1.0);
  EXPECT_NEAR(dmath::exp(1.0), 2.71828182845904523536, 1e-15);
  EXPECT_NEAR(dmath::exp(-1.0), 0.36787944117144232160, 1e-16);
  EXPECT_NEAR(dmath::exp(50.0) / 5.18470552858707246408e21, 1.0, 1e-15);
  EXPECT_TRUE(std::isinf(dmath::exp(1000.0)));
  EXPECT_EQ(dmath::exp(-1000.0), 0.0);
}

TEST(DetMath, AgreesWithLibmToAFewUlp) {
  for (double x = 1e-6; x < 1e6; x *= 1.37) {
    EXPECT_NEAR(dmath::log(x), std::log(x), 4e-16 * std::max(1.0, std::fabs(std::log(x)))) << x;
  }
  for (double x = -700; x < 700; x += 3.3) {
    EXPECT_NEAR(dmath::exp(x) / std::exp(x), 1.0, 1e-14) << x;
  }
}

TEST(DetMath, PowEdgeCasesAndValues) {
  EXPECT_EQ(dmath::pow(0.0, 2.0), 0.0);
  EXPECT_EQ(dmath::pow(5.0, 0.0), 1.0);
  EXPECT_NEAR(dmath::pow(2.0, 10.0), 1024.0, 1e-10);
  EXPECT_NEAR(dmath::pow(-2.0, 3.0), -8.0, 1e-12);
  EXPECT_TRUE(std::isnan(dmath::pow(-2.0, 0.5)));
  EXPECT_NEAR(dmath::pow(0.9, 100.0), std::pow(0.9, 100.0), 1e-15);
}

}  // namespace
}  // namespace blis
