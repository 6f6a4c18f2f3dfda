#pragma once
// Streaming statistics: running moments, exact percentiles and fixed-bucket histograms.

#include <cstdint>
#include <limits>
#include <vector>

namespace blis {

// Count, mean, variance (Welford), min and max of a stream, in O(1) memory.
class RunningStats {
 public:
  void add(double x);
  std::uint64_t count() const { return n_; }
  double mean() const { return n_ ? mean_ : 0.0; }
  // Population variance; 0 for fewer than two values.
  double variance() const { return n_ > 1 ? m2_ / static_cast<double>(n_) : 0.0; }
  double min() const { return n_ ? min_ : 0.0; }
  double max() const { return n_ ? max_ : 0.0; }
  double sum() const { return sum_; }

 private:
  std::uint64_t n_ = 0;
  double mean_ = 0, m2_ = 0, sum_ = 0;
  double min_ = std::numeric_limits<double>::infinity();
  double max_ = -std::numeric_limits<double>::infinity();
};

// The usual latency summary.
struct Summary {
  std::uint64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p95 = 0, p99 = 0, max = 0;
};

// Exact percentiles over every value added (memory grows with the count). Percentiles use
// linear interpolation between closest ranks, as numpy.percentile's default does, which is
// what inference-perf reports.
class PercentileSample {
 public:
  void add(double x);
  void reserve(std::size_t n) { values_.reserve(n); }
  std::size_t count() const { return values_.size(); }
  // p in [0, 100]; 0 for an empty sample.
  double percentile(double p) const;
  double mean() const;
  Summary summary() const;
  void clear();

 private:
  mutable std::vector<double> values_;
  mutable bool sorted_ = true;
  double sum_ = 0;
  void sort_if_needed() const;
};

// A histogram over fixed bucket upper bounds (Prometheus "le" semantics: a value v lands in
// the first bucket whose bound is >= v; values above the last bound land in +Inf).
class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void add(double x);
  const std::vector<double>& upper_bounds() const { return bounds_; }
  // counts()[i] for bucket i; the last entry is the +Inf bucket.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  // Cumulative count of values <= upper_bounds()[i] (i == size: all values).
  std::uint64_t cumulative(std::size_t i) const;
  std::uint64_t count() const { return total_; }
  double sum() const { return sum_; }

 private:
  std::vector<double> bounds_;
  std::vector<std::uint64_t> counts_;
  std::uint64_t total_ = 0;
  double sum_ = 0;
};

}  // namespace blis
