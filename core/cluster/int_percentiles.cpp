#include "cluster/int_percentiles.h"

#include <cmath>

namespace blis::cluster {

void IntPercentiles::add(std::int64_t v, std::uint64_t times) {
  if (times == 0) return;
  counts_[v] += times;
  n_ += times;
  sum_ += v * static_cast<std::int64_t>(times);
}

double IntPercentiles::mean() const {
  return n_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(n_);
}

std::int64_t IntPercentiles::at_rank(std::uint64_t k) const {
  std::uint64_t seen = 0;
  for (const auto& [value, count] : counts_) {
    seen += count;
    if (k < seen) return value;
  }
  return counts_.empty() ? 0 : counts_.rbegin()->first;
}

double IntPercentiles::percentile(double p) const {
  if (n_ == 0) return 0.0;
  const double rank = p / 100.0 * static_cast<double>(n_ - 1);
  const auto lo = static_cast<std::uint64_t>(std::floor(rank));
  const std::uint64_t hi = lo + 1 < n_ ? lo + 1 : n_ - 1;
  const double frac = rank - static_cast<double>(lo);
  const auto vlo = static_cast<double>(at_rank(lo));
  const auto vhi = static_cast<double>(at_rank(hi));
  return vlo + (vhi - vlo) * frac;
}

Summary IntPercentiles::summary(double scale) const {
  Summary s;
  s.count = n_;
  if (n_ == 0) return s;
  s.mean = mean() * scale;
  s.p50 = percentile(50) * scale;
  s.p90 = percentile(90) * scale;
  s.p95 = percentile(95) * scale;
  s.p99 = percentile(99) * scale;
  s.max = static_cast<double>(counts_.rbegin()->first) * scale;
  return s;
}

void IntPercentiles::clear() {
  counts_.clear();
  n_ = 0;
  sum_ = 0;
}

}  // namespace blis::cluster
