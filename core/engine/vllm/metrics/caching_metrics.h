#pragma once
// stats.py CachingMetrics: a cache hit rate over the most recent N requests, for the
// periodic log line ("Prefix cache hit rate", "External prefix cache hit rate").

#include <cstdint>
#include <vector>

#include "engine/vllm/metrics/stats.h"

namespace blis::vllm::metrics {

class CachingMetrics {
 public:
  explicit CachingMetrics(std::int64_t max_recent_requests = 1000);

  // Adds one step's (requests, queries, hits); drops the oldest steps while the window
  // holds more than max_recent_requests requests, always keeping the newest step.
  void observe(const PrefixCacheStats& stats);
  void reset();

  bool empty() const { return aggregated_requests_ == 0; }
  // hits / queries over the window; 0 with no queries.
  double hit_rate() const;
  std::int64_t aggregated_requests() const { return aggregated_requests_; }
  std::int64_t aggregated_queries() const { return aggregated_queries_; }
  std::int64_t aggregated_hits() const { return aggregated_hits_; }

 private:
  struct Entry {
    std::int64_t requests, queries, hits;
  };
  void pop_front();

  std::int64_t max_recent_requests_;
  std::int64_t aggregated_requests_ = 0;
  std::int64_t aggregated_queries_ = 0;
  std::int64_t aggregated_hits_ = 0;
  // Ring buffer. Every entry holds at least one request, so at most max_recent_requests + 1
  // entries are ever kept: the buffer is sized once and never reallocates.
  std::vector<Entry> ring_;
  std::size_t head_ = 0, size_ = 0;
};

}  // namespace blis::vllm::metrics
