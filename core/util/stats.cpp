#include "util/stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace blis {

void RunningStats::add(double x) {
  ++n_;
  sum_ += x;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
}

void PercentileSample::add(double x) {
  if (!values_.empty() && x < values_.back()) sorted_ = false;
  values_.push_back(x);
  sum_ += x;
}

void PercentileSample::sort_if_needed() const {
  if (sorted_) return;
  std::sort(values_.begin(), values_.end());
  sorted_ = true;
}

double PercentileSample::percentile(double p) const {
  if (values_.empty()) return 0.0;
  if (!(p >= 0 && p <= 100)) throw std::invalid_argument("percentile must be in [0, 100]");
  sort_if_needed();
  const double rank = p / 100.0 * static_cast<double>(values_.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(rank));
  const std::size_t hi = std::min(lo + 1, values_.size() - 1);
  const double frac = rank - static_cast<double>(lo);
  return values_[lo] + (values_[hi] - values_[lo]) * frac;
}

double PercentileSample::mean() const {
  return values_.empty() ? 0.0 : sum_ / static_cast<double>(values_.size());
}

Summary PercentileSample::summary() const {
  Summary s;
  s.count = values_.size();
  if (values_.empty()) return s;
  s.mean = mean();
  s.p50 = percentile(50);
  s.p90 = percentile(90);
  s.p95 = percentile(95);
  s.p99 = percentile(99);
  s.max = values_.back();
  return s;
}

void PercentileSample::clear() {
  values_.clear();
  sorted_ = true;
  sum_ = 0;
}

Histogram::Histogram(std::vector<double> upper_bounds) : bounds_(std::move(upper_bounds)) {
  for (std::size_t i = 1; i < bounds_.size(); ++i) {
    if (!(bounds_[i] > bounds_[i - 1]))
      throw std::invalid_argument("histogram bounds must increase");
  }
  counts_.assign(bounds_.size() + 1, 0);
}

void Histogram::add(double x) {
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), x);
  ++counts_[static_cast<std::size_t>(it - bounds_.begin())];
  ++total_;
  sum_ += x;
}

std::uint64_t Histogram::cumulative(std::size_t i) const {
  std::uint64_t acc = 0;
  for (std::size_t k = 0; k <= i && k < counts_.size(); ++k) acc += counts_[k];
  return acc;
}

}  // namespace blis
