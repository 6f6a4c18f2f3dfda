#include "util/det_math.h"

#include <cmath>
#include <limits>

namespace blis::dmath {

namespace {
// ln 2 split so that k * kLn2Hi is exact for |k| < 2^11 (fdlibm's constants).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;
constexpr double kInvLn2 = 1.44269504088896338700e+00;
constexpr double kSqrtHalf = 0.70710678118654752440;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
}  // namespace

double log(double x) {
  if (std::isnan(x) || x < 0) return kNaN;
  if (x == 0) return -kInf;
  if (std::isinf(x)) return kInf;
  int e = 0;
  double m = std::frexp(x, &e);  // x = m * 2^e, m in [0.5, 1)
  if (m < kSqrtHalf) {
    m *= 2.0;
    e -= 1;
  }
  // log(m) = 2 atanh(s), s = (m-1)/(m+1), |s| <= 0.1716; the odd series converges fast.
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  double poly = 1.0 / 25.0;
  for (int k = 11; k >= 0; --k) poly = poly * z + 1.0 / (2.0 * k + 1.0);
  const double log_m = 2.0 * s * poly;
  const double de = static_cast<double>(e);
  return de * kLn2Hi + (de * kLn2Lo + log_m);
}

double exp(double x) {
  if (std::isnan(x)) return x;
  if (x > 709.782712893384) return kInf;
  if (x < -745.1332191019412) return 0.0;
  const double k = std::floor(x * kInvLn2 + 0.5);
  const double r = (x - k * kLn2Hi) - k * kLn2Lo;  // |r| <= ~0.35
  // Taylor series to degree 16: the truncation error is below 1e-19 relative.
  double p = 1.0;
  for (int n = 16; n >= 1; --n) p = 1.0 + p * r / static_cast<double>(n);
  return std::ldexp(p, static_cast<int>(k));
}

double pow(double x, double y) {
  if (std::isnan(x) || std::isnan(y)) return kNaN;
  if (y == 0) return 1.0;
  if (x == 1.0) return 1.0;
  if (x == 0) return y > 0 ? 0.0 : kInf;
  if (x < 0) {
    if (std::floor(y) != y) return kNaN;
    const double mag = exp(y * log(-x));
    const bool odd = std::fmod(y, 2.0) != 0.0;
    return odd ? -mag : mag;
  }
  return exp(y * log(x));
}

double log2(double x) {
  return log(x) * kInvLn2;
}
double log10(double x) {
  return log(x) * 0.43429448190325182765;
}

}  // namespace blis::dmath
