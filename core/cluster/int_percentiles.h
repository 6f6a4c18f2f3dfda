#pragma once
// IntPercentiles: exact percentiles of integer samples (durations in µs) kept as a count per
// distinct value, so memory follows the range of values rather than the number of samples.
// Used for inter-token latencies, which number one per output token: values below 2^17 µs
// (131 ms) are counted in a flat array (O(1) per sample), rarer larger ones in an ordered map.
// Percentiles use numpy's default linear interpolation, like util/stats.h PercentileSample.

#include <cstdint>
#include <map>
#include <vector>

#include "util/stats.h"

namespace blis::cluster {

class IntPercentiles {
 public:
  void add(std::int64_t v, std::uint64_t times = 1);
  std::uint64_t count() const { return n_; }
  double mean() const;
  double percentile(double p) const;  // p in [0, 100]; 0 when empty
  // Mean, p50, p90, p95, p99 and max, each multiplied by `scale` (e.g. 1e-3 for µs -> ms).
  Summary summary(double scale) const;
  void clear();

 private:
  static constexpr std::int64_t kDense = std::int64_t{1} << 17;
  std::vector<std::uint64_t> dense_;              // counts of 0 .. kDense-1 (allocated on use)
  std::map<std::int64_t, std::uint64_t> sparse_;  // counts of values outside that range
  std::uint64_t n_ = 0;
  std::int64_t sum_ = 0;
  std::int64_t max_ = 0;
  // The value at 0-based rank k of the sorted sample.
  std::int64_t at_rank(std::uint64_t k) const;
};

}  // namespace blis::cluster
