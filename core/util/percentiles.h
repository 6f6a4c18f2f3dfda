#pragma once
// Percentiles: the one percentile implementation behind every latency the simulator reports
// (summary.json's distributions, the time series' windows). Percentiles use linear
// interpolation between closest ranks, as numpy.percentile's default does, which is what
// inference-perf reports.
//
// Exact while the sample holds at most kExactLimit distinct values: values are kept as
// (value, count) runs, sorted lazily, so memory follows the number of distinct values, not
// the number of samples (an inter-token latency in µs repeats a lot). Beyond that the sample
// switches, once and for good, to a relative-error sketch (log-bucketed like DDSketch):
// kSubBuckets linear buckets per power of two, so every percentile is within kRelativeError
// of the exact one (for samples of one sign), in memory bounded by the range of the values
// (at most kSubBuckets buckets per power of two spanned), whatever the count. Count, mean,
// min and max stay exact. The bucket of a value comes from frexp and arithmetic only (no
// libm logarithm), so it is the same on every platform: the switch point and the sketch are
// deterministic, natively and in WebAssembly.

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <utility>
#include <vector>

namespace blis {

// The usual latency summary; `exact` is false when the percentiles come from the sketch.
struct Summary {
  std::uint64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
  bool exact = true;
};

class Percentiles {
 public:
  // Distinct values kept exactly (so any run with at most this many finished requests has
  // exact TTFT, E2E, TPOT and queue percentiles); docs/reliability.md "Limits".
  static constexpr std::size_t kExactLimit = 1000000;
  static constexpr int kSubBuckets = 64;  // sketch buckets per power of two
  // A bucket [lo, hi) is reported by its midpoint: |x - mid| / x <= (hi - lo) / (2 lo).
  static constexpr double kRelativeError = 1.0 / (2.0 * kSubBuckets);  // 0.78125%

  // Adds `x` `times` times. Non-finite values are ignored (no latency is NaN or infinite).
  void add(double x, std::uint64_t times = 1);
  std::uint64_t count() const { return n_; }
  double mean() const { return n_ ? sum_ / static_cast<double>(n_) : 0.0; }
  double min() const { return n_ ? min_ : 0.0; }
  double max() const { return n_ ? max_ : 0.0; }
  // p in [0, 100] (std::invalid_argument otherwise); 0 for an empty sample.
  double percentile(double p) const;
  // Mean, p50, p90, p95, p99 and max, each multiplied by `scale` (e.g. 1e-3 for µs -> ms).
  Summary summary(double scale = 1.0) const;
  // False once the sample switched to the sketch (compacts first: the answer is final).
  bool exact() const {
    compact();
    return !sketch_;
  }
  // What the sample holds: exact runs and pending values, or sketch buckets (the memory
  // bound tests check this).
  std::size_t stored() const;
  void clear();

 private:
  using Run = std::pair<double, std::uint64_t>;  // value, count
  mutable std::vector<Run> runs_;                // exact: sorted, distinct values
  mutable std::vector<Run> pending_;             // exact: added since the last compaction
  // The sketch (mutable: a const query may compact, and compacting may switch).
  mutable bool sketch_ = false;
  mutable std::map<std::int64_t, std::uint64_t> pos_, neg_;  // bucket index -> count
  mutable std::uint64_t zeros_ = 0;                          // values equal to 0
  std::uint64_t n_ = 0;
  double sum_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();

  // Sorts pending_ into runs_; switches to the sketch beyond kExactLimit distinct values.
  void compact() const;
  void to_sketch() const;
  void sketch_add(double x, std::uint64_t times) const;
  // The value at 0-based rank k of the sorted sample (the sketch: its bucket's midpoint).
  double at_rank(std::uint64_t k) const;
  double sketch_at_rank(std::uint64_t k) const;
};

}  // namespace blis
