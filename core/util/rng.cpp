#include "util/rng.h"

#include <cmath>
#include <stdexcept>

#include "util/det_math.h"

namespace blis {

namespace {

std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::uint64_t rotl(std::uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

std::uint64_t fnv1a(std::string_view s) {
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

}  // namespace

Rng::Rng(std::uint64_t seed) {
  std::uint64_t x = seed;
  for (auto& word : s_) word = splitmix64(x);
}

Rng Rng::stream(std::uint64_t seed, std::string_view name) {
  std::uint64_t x = seed ^ fnv1a(name);
  return Rng(splitmix64(x));
}

Rng Rng::from_state(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d) {
  Rng r;
  r.s_[0] = a;
  r.s_[1] = b;
  r.s_[2] = c;
  r.s_[3] = d;
  return r;
}

std::uint64_t Rng::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

double Rng::uniform01() {
  return static_cast<double>(next_u64() >> 11) * 0x1.0p-53;
}

double Rng::uniform(double lo, double hi) {
  return lo + (hi - lo) * uniform01();
}

std::int64_t Rng::uniform_int(std::int64_t lo, std::int64_t hi) {
  if (lo > hi) throw std::invalid_argument("uniform_int: lo > hi");
  const std::uint64_t range = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
  if (range == 0) return static_cast<std::int64_t>(next_u64());  // the full 64-bit range
  // Reject the top sliver so every residue is equally likely.
  const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % range);
  std::uint64_t x = next_u64();
  while (x >= limit) x = next_u64();
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + x % range);
}

double Rng::exponential(double mean) {
  if (!(mean > 0)) throw std::invalid_argument("exponential: mean must be > 0");
  return -mean * dmath::log(1.0 - uniform01());  // 1 - u is in (0, 1]
}

double Rng::standard_normal() {
  if (has_spare_normal_) {
    has_spare_normal_ = false;
    return spare_normal_;
  }
  double u = 0, v = 0, s = 0;
  do {
    u = 2.0 * uniform01() - 1.0;
    v = 2.0 * uniform01() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  const double factor = std::sqrt(-2.0 * dmath::log(s) / s);
  spare_normal_ = v * factor;
  has_spare_normal_ = true;
  return u * factor;
}

double Rng::normal(double mean, double stddev) {
  return mean + stddev * standard_normal();
}

double Rng::lognormal_mu_sigma(double mu, double sigma) {
  return dmath::exp(mu + sigma * standard_normal());
}

double Rng::lognormal_mean_std(double mean, double stddev) {
  if (!(mean > 0)) throw std::invalid_argument("lognormal: mean must be > 0");
  const double ratio = stddev / mean;
  const double sigma2 = dmath::log(1.0 + ratio * ratio);
  const double mu = dmath::log(mean) - sigma2 / 2.0;
  return lognormal_mu_sigma(mu, std::sqrt(sigma2));
}

double Rng::gamma(double shape, double scale) {
  if (!(shape > 0) || !(scale > 0))
    throw std::invalid_argument("gamma: shape and scale must be > 0");
  if (shape < 1.0) {
    // Boost a shape below 1: Gamma(k) = Gamma(k + 1) * U^(1/k).
    const double g = gamma(shape + 1.0, 1.0);
    const double u = 1.0 - uniform01();
    return scale * g * dmath::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0, v = 0;
    do {
      x = standard_normal();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = 1.0 - uniform01();
    const double x2 = x * x;
    if (u < 1.0 - 0.0331 * x2 * x2) return scale * d * v;
    if (dmath::log(u) < 0.5 * x2 + d * (1.0 - v + dmath::log(v))) return scale * d * v;
  }
}

std::size_t Rng::weighted_choice(std::span<const double> weights) {
  double total = 0;
  for (double w : weights) {
    if (!(w >= 0) || std::isinf(w))
      throw std::invalid_argument("weighted_choice: weights must be finite and >= 0");
    total += w;
  }
  if (!(total > 0))
    throw std::invalid_argument("weighted_choice: weights must have a positive sum");
  const double target = uniform01() * total;
  double acc = 0;
  std::size_t last_positive = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (weights[i] <= 0) continue;
    acc += weights[i];
    last_positive = i;
    if (target < acc) return i;
  }
  return last_positive;  // rounding left target == total
}

}  // namespace blis
