#include "engine/vllm/metrics/caching_metrics.h"

namespace blis::vllm::metrics {

CachingMetrics::CachingMetrics(std::int64_t max_recent_requests)
    : max_recent_requests_(max_recent_requests > 0 ? max_recent_requests : 1),
      ring_(static_cast<std::size_t>(max_recent_requests_) + 1) {}

void CachingMetrics::reset() {
  aggregated_requests_ = 0;
  aggregated_queries_ = 0;
  aggregated_hits_ = 0;
  head_ = 0;
  size_ = 0;
}

void CachingMetrics::pop_front() {
  const Entry& e = ring_[head_];
  aggregated_requests_ -= e.requests;
  aggregated_queries_ -= e.queries;
  aggregated_hits_ -= e.hits;
  head_ = (head_ + 1) % ring_.size();
  --size_;
}

// stats.py CachingMetrics.observe.
void CachingMetrics::observe(const PrefixCacheStats& stats) {
  // reset_prefix_cache ran before this update: start the window over.
  if (stats.reset) reset();
  // Empty steps are not appended, so they cannot push useful history out of the window.
  if (stats.requests == 0) return;
  // Keep the newest entry even if it alone exceeds the cap: make room for it first when the
  // ring is full (only possible if the entry would be evicted by the loop below anyway).
  if (size_ == ring_.size()) pop_front();
  ring_[(head_ + size_) % ring_.size()] = Entry{stats.requests, stats.queries, stats.hits};
  ++size_;
  aggregated_requests_ += stats.requests;
  aggregated_queries_ += stats.queries;
  aggregated_hits_ += stats.hits;
  while (size_ > 1 && aggregated_requests_ > max_recent_requests_) pop_front();
}

double CachingMetrics::hit_rate() const {
  if (aggregated_queries_ == 0) return 0.0;
  return static_cast<double>(aggregated_hits_) / static_cast<double>(aggregated_queries_);
}

}  // namespace blis::vllm::metrics
