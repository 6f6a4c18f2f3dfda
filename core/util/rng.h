#pragma once
// Rng: a portable seeded random stream (xoshiro256** seeded through SplitMix64) with its own
// samplers. It yields the same sequence natively and in WASM: no std::*_distribution (whose
// algorithms differ between libstdc++ and libc++) and no libm transcendental functions (see
// det_math.h). Each component takes a named stream derived from the scenario seed, so adding
// a component never shifts another's numbers.

#include <cstdint>
#include <span>
#include <string_view>

namespace blis {

class Rng {
 public:
  explicit Rng(std::uint64_t seed = 0);
  // A stream of its own for `name`, independent of every other name under the same seed.
  static Rng stream(std::uint64_t seed, std::string_view name);
  // A generator in an exact xoshiro256** state (for checking against reference vectors).
  static Rng from_state(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::uint64_t d);

  std::uint64_t next_u64();
  // Uniform in [0, 1), 53 random bits.
  double uniform01();
  // Uniform in [lo, hi).
  double uniform(double lo, double hi);
  // Uniform integer in [lo, hi], unbiased. Requires lo <= hi.
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi);
  // Exponential with the given mean (> 0).
  double exponential(double mean);
  // Normal (Marsaglia's polar method).
  double normal(double mean, double stddev);
  // Log-normal whose underlying normal has parameters mu and sigma.
  double lognormal_mu_sigma(double mu, double sigma);
  // Log-normal with the given mean and standard deviation of the variable itself.
  double lognormal_mean_std(double mean, double stddev);
  // Gamma with shape k > 0 and scale theta > 0 (Marsaglia and Tsang).
  double gamma(double shape, double scale);
  // Index i with probability weights[i] / sum(weights). Weights must be >= 0 with a
  // positive sum.
  std::size_t weighted_choice(std::span<const double> weights);

 private:
  std::uint64_t s_[4];
  bool has_spare_normal_ = false;
  double spare_normal_ = 0.0;
  double standard_normal();
};

}  // namespace blis
