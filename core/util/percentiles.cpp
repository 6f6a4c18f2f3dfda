#include "util/percentiles.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace blis {
namespace {

// Pending values are sorted into the runs when they reach this many, or a quarter of the
// runs: O(log n) amortised per add, and pending memory at most a quarter of the runs'.
constexpr std::size_t kMinPending = 8192;

// Sketch bucket of x > 0: x = (1 + f) 2^e with f in [0, 1) (frexp is exact), bucket
// e * kSubBuckets + floor(f * kSubBuckets).
std::int64_t bucket_of(double x) {
  int e = 0;
  const double m = std::frexp(x, &e);  // m in [0.5, 1)
  const double f = 2 * m - 1;          // exact
  auto sub = static_cast<std::int64_t>(f * Percentiles::kSubBuckets);
  sub = std::min<std::int64_t>(sub, Percentiles::kSubBuckets - 1);
  return static_cast<std::int64_t>(e - 1) * Percentiles::kSubBuckets + sub;
}

// The midpoint of bucket b: between (1 + sub/K) 2^e and (1 + (sub+1)/K) 2^e.
double bucket_mid(std::int64_t b) {
  const std::int64_t k = Percentiles::kSubBuckets;
  std::int64_t e = b / k, sub = b % k;
  if (sub < 0) {
    sub += k;
    e -= 1;
  }
  const double lo = 1 + static_cast<double>(sub) / static_cast<double>(k);
  const double hi = 1 + static_cast<double>(sub + 1) / static_cast<double>(k);
  return std::ldexp((lo + hi) / 2, static_cast<int>(e));
}

}  // namespace

void Percentiles::add(double x, std::uint64_t times) {
  if (times == 0 || !std::isfinite(x)) return;
  n_ += times;
  sum_ += x * static_cast<double>(times);
  min_ = std::min(min_, x);
  max_ = std::max(max_, x);
  if (sketch_) {
    sketch_add(x, times);
    return;
  }
  // Equal consecutive values extend one pending run (every continuing decode of a step adds
  // the same gap): the multiset, hence every percentile, is the same as with separate runs.
  if (!pending_.empty() && pending_.back().first == x) {
    pending_.back().second += times;
    return;
  }
  pending_.emplace_back(x, times);
  if (pending_.size() >= std::max(kMinPending, runs_.size() / 4)) compact();
}

void Percentiles::compact() const {
  if (sketch_ || pending_.empty()) return;
  std::sort(pending_.begin(), pending_.end(),
            [](const Run& a, const Run& b) { return a.first < b.first; });
  const auto mid = static_cast<std::ptrdiff_t>(runs_.size());
  runs_.insert(runs_.end(), pending_.begin(), pending_.end());
  pending_.clear();
  std::inplace_merge(runs_.begin(), runs_.begin() + mid, runs_.end(),
                     [](const Run& a, const Run& b) { return a.first < b.first; });
  // Equal values become one run.
  std::size_t w = 0;
  for (std::size_t r = 1; r < runs_.size(); ++r) {
    if (runs_[r].first == runs_[w].first) {
      runs_[w].second += runs_[r].second;
    } else {
      runs_[++w] = runs_[r];
    }
  }
  if (!runs_.empty()) runs_.resize(w + 1);
  if (runs_.size() > kExactLimit) to_sketch();
}

void Percentiles::to_sketch() const {
  sketch_ = true;
  for (const Run& r : runs_) sketch_add(r.first, r.second);
  std::vector<Run>().swap(runs_);  // give the memory back
  std::vector<Run>().swap(pending_);
}

void Percentiles::sketch_add(double x, std::uint64_t times) const {
  if (x > 0) {
    pos_[bucket_of(x)] += times;
  } else if (x < 0) {
    neg_[bucket_of(-x)] += times;
  } else {
    zeros_ += times;
  }
}

std::size_t Percentiles::stored() const {
  return sketch_ ? pos_.size() + neg_.size() + (zeros_ > 0 ? 1 : 0)
                 : runs_.size() + pending_.size();
}

double Percentiles::sketch_at_rank(std::uint64_t k) const {
  std::uint64_t seen = 0;
  // Ascending order: negative buckets from the largest magnitude, zero, positive buckets.
  for (auto it = neg_.rbegin(); it != neg_.rend(); ++it) {
    seen += it->second;
    if (k < seen) return -bucket_mid(it->first);
  }
  seen += zeros_;
  if (k < seen) return 0.0;
  for (const auto& [b, c] : pos_) {
    seen += c;
    if (k < seen) return bucket_mid(b);
  }
  return max_;
}

double Percentiles::at_rank(std::uint64_t k) const {
  if (k == 0) return min_;  // exact in both modes
  if (k + 1 >= n_) return max_;
  // The midpoint can lie outside what was seen; the true value cannot.
  if (sketch_) return std::clamp(sketch_at_rank(k), min_, max_);
  std::uint64_t seen = 0;
  for (const Run& r : runs_) {
    seen += r.second;
    if (k < seen) return r.first;
  }
  return max_;
}

double Percentiles::percentile(double p) const {
  if (n_ == 0) return 0.0;
  if (!(p >= 0 && p <= 100)) throw std::invalid_argument("percentile must be in [0, 100]");
  compact();
  const double rank = p / 100.0 * static_cast<double>(n_ - 1);
  const auto lo = static_cast<std::uint64_t>(std::floor(rank));
  const std::uint64_t hi = lo + 1 < n_ ? lo + 1 : n_ - 1;
  const double frac = rank - static_cast<double>(lo);
  const double vlo = at_rank(lo);
  const double vhi = at_rank(hi);
  return vlo + (vhi - vlo) * frac;
}

Summary Percentiles::summary(double scale) const {
  Summary s;
  s.count = n_;
  if (n_ == 0) return s;
  s.mean = mean() * scale;
  s.p50 = percentile(50) * scale;
  s.p90 = percentile(90) * scale;
  s.p95 = percentile(95) * scale;
  s.p99 = percentile(99) * scale;
  s.max = max_ * scale;
  s.exact = exact();
  return s;
}

void Percentiles::clear() {
  runs_.clear();  // keeps the capacity: a time-series window is cleared every sample
  pending_.clear();
  sketch_ = false;
  pos_.clear();
  neg_.clear();
  zeros_ = 0;
  n_ = 0;
  sum_ = 0;
  min_ = std::numeric_limits<double>::infinity();
  max_ = -std::numeric_limits<double>::infinity();
}

}  // namespace blis
