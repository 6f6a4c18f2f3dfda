#include "engine/vllm/metrics/buckets.h"

#include <gtest/gtest.h>

#include "engine/vllm/metrics/caching_metrics.h"

namespace blis::vllm::metrics {
namespace {

using V = std::vector<double>;

// E.1 and E.2.
TEST(Buckets, OneTwoFiveCappedAtMaxModelLen) {
  EXPECT_EQ(build_1_2_5_buckets(4096), (V{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000}));
  EXPECT_EQ(build_1_2_5_buckets(100), (V{1, 2, 5, 10, 20, 50, 100}));
  EXPECT_EQ(build_1_2_5_buckets(99), (V{1, 2, 5, 10, 20, 50}));
  EXPECT_EQ(build_1_2_5_buckets(1), (V{1}));
  EXPECT_EQ(build_1_2_5_buckets(0), V{});
  EXPECT_EQ(build_1_2_5_buckets(131072).back(), 100000);
  // build_buckets stops at the first mantissa over the cap, even if a later one would fit.
  EXPECT_EQ(build_buckets({1, 5, 2}, 30), (V{1, 5, 2, 10}));
}

TEST(Buckets, FixedLists) {
  EXPECT_EQ(request_latency_buckets().size(), 21u);
  EXPECT_EQ(request_latency_buckets().front(), 0.3);
  EXPECT_EQ(request_latency_buckets().back(), 7680.0);
  EXPECT_EQ(time_to_first_token_buckets().size(), 22u);
  EXPECT_EQ(time_to_first_token_buckets().front(), 0.001);
  EXPECT_EQ(time_to_first_token_buckets().back(), 2560.0);
  EXPECT_EQ(inter_token_latency_buckets().size(), 19u);
  EXPECT_EQ(inter_token_latency_buckets()[3], 0.075);
  EXPECT_EQ(iteration_tokens_buckets(),
            (V{1, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}));
  EXPECT_EQ(request_params_n_buckets(), (V{1, 2, 5, 10, 20}));
  for (const V* list : {&request_latency_buckets(), &time_to_first_token_buckets(),
                        &inter_token_latency_buckets()}) {
    for (std::size_t i = 1; i < list->size(); ++i) EXPECT_LT((*list)[i - 1], (*list)[i]);
  }
}

PrefixCacheStats step(std::int64_t requests, std::int64_t queries, std::int64_t hits) {
  PrefixCacheStats s;
  s.requests = requests;
  s.queries = queries;
  s.hits = hits;
  return s;
}

// stats.py CachingMetrics.
TEST(CachingMetrics, WindowOfRecentRequests) {
  CachingMetrics m(4);
  EXPECT_TRUE(m.empty());
  EXPECT_EQ(m.hit_rate(), 0.0);
  m.observe(step(2, 100, 0));
  m.observe(step(0, 0, 0));  // empty steps are not appended
  m.observe(step(2, 100, 50));
  EXPECT_EQ(m.aggregated_requests(), 4);
  EXPECT_DOUBLE_EQ(m.hit_rate(), 0.25);
  m.observe(step(1, 100, 100));  // 5 requests > 4: the oldest step leaves
  EXPECT_EQ(m.aggregated_requests(), 3);
  EXPECT_DOUBLE_EQ(m.hit_rate(), 0.75);
  m.observe(step(10, 10, 10));  // alone over the cap: the newest step always stays
  EXPECT_EQ(m.aggregated_requests(), 10);
  EXPECT_DOUBLE_EQ(m.hit_rate(), 1.0);
  PrefixCacheStats reset = step(1, 10, 0);
  reset.reset = true;  // reset_prefix_cache: the window starts over
  m.observe(reset);
  EXPECT_EQ(m.aggregated_requests(), 1);
  EXPECT_EQ(m.hit_rate(), 0.0);
}

TEST(CachingMetrics, LongRunStaysBounded) {
  CachingMetrics m(1000);
  for (int i = 0; i < 5000; ++i) m.observe(step(1, 10, i % 2 == 0 ? 10 : 0));
  EXPECT_EQ(m.aggregated_requests(), 1000);
  EXPECT_EQ(m.aggregated_queries(), 10000);
  EXPECT_EQ(m.aggregated_hits(), 5000);
}

}  // namespace
}  // namespace blis::vllm::metrics
