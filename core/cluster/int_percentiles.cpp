#include "cluster/int_percentiles.h"

#include <algorithm>
#include <cmath>

namespace blis::cluster {

void IntPercentiles::add(std::int64_t v, std::uint64_t times) {
  if (times == 0) return;
  if (v >= 0 && v < kDense) {
    if (dense_.empty()) dense_.assign(static_cast<std::size_t>(kDense), 0);
    dense_[static_cast<std::size_t>(v)] += times;
  } else {
    sparse_[v] += times;
  }
  max_ = n_ == 0 ? v : std::max(max_, v);
  n_ += times;
  sum_ += v * static_cast<std::int64_t>(times);
}

double IntPercentiles::mean() const {
  return n_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(n_);
}

std::int64_t IntPercentiles::at_rank(std::uint64_t k) const {
  std::uint64_t seen = 0;
  // Sorted order: negative values (map), the dense range, then values >= kDense (map).
  auto it = sparse_.begin();
  for (; it != sparse_.end() && it->first < 0; ++it) {
    seen += it->second;
    if (k < seen) return it->first;
  }
  for (std::size_t v = 0; v < dense_.size(); ++v) {
    seen += dense_[v];
    if (k < seen) return static_cast<std::int64_t>(v);
  }
  for (; it != sparse_.end(); ++it) {
    seen += it->second;
    if (k < seen) return it->first;
  }
  return max_;
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
  s.max = static_cast<double>(max_) * scale;
  return s;
}

void IntPercentiles::clear() {
  dense_.clear();
  sparse_.clear();
  n_ = 0;
  sum_ = 0;
  max_ = 0;
}

}  // namespace blis::cluster
