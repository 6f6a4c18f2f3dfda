#include "cluster/workload/length_sampler.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace blis::cluster {

using Kind = scenario::LengthDist::Kind;

std::int32_t sample_length(const scenario::LengthDist& d, Rng& rng) {
  double x = 0;
  switch (d.kind) {
    case Kind::kConstant:
      x = d.value;
      break;
    case Kind::kNormal:
      x = rng.normal(d.mean, d.std);
      break;
    case Kind::kLognormal:
      x = rng.lognormal_mean_std(d.mean, d.std);
      break;
    case Kind::kExponential:
      x = rng.exponential(d.mean);
      break;
    case Kind::kUniform: {
      // Every integer in [ceil(min), floor(max)] equally likely (a continuous draw then
      // rounded would give the two end values half weight).
      const auto lo = static_cast<std::int64_t>(std::ceil(*d.min));
      const auto hi = static_cast<std::int64_t>(std::floor(*d.max));
      x = static_cast<double>(rng.uniform_int(lo, hi));
      break;
    }
  }
  if (d.kind != Kind::kConstant && d.kind != Kind::kUniform) {
    if (d.min && x < *d.min) x = *d.min;
    if (d.max && x > *d.max) x = *d.max;
  }
  if (!(x < static_cast<double>(kMaxSampledTokens) + 0.5)) {
    throw std::runtime_error(
        "sampled token count " + std::to_string(x) + " exceeds the simulator's limit of " +
        std::to_string(kMaxSampledTokens) + " (set `max` on the distribution)");
  }
  const auto n = static_cast<std::int32_t>(std::llround(x));
  return n < 1 ? 1 : n;
}

double nominal_mean(const scenario::LengthDist& d) {
  switch (d.kind) {
    case Kind::kConstant:
      return d.value;
    case Kind::kNormal:
    case Kind::kLognormal:
    case Kind::kExponential:
      return d.mean;
    case Kind::kUniform:
      return (std::ceil(*d.min) + std::floor(*d.max)) / 2.0;
  }
  return 0;
}

}  // namespace blis::cluster
