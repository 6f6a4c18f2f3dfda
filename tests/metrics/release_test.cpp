// Which families each release exposes, and release parsing.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/vllm/metrics/family_table.h"
#include "script.h"

namespace blis::vllm::metrics {
namespace {

TEST(Release, Parses) {
  EXPECT_EQ(parse_release("0.29"), Release::kV0_29);
  EXPECT_EQ(parse_release("0.29.x"), Release::kV0_29);  // the rules pack's name
  EXPECT_EQ(parse_release("0.29.y"), std::nullopt);
  EXPECT_EQ(parse_release("0.31.0"), Release::kV0_31);
  EXPECT_EQ(parse_release("0.32.0"), Release::kV0_32);
  EXPECT_EQ(parse_release("0.32.4"), Release::kV0_32);
  EXPECT_EQ(parse_release("0.30.0"), std::nullopt);
  EXPECT_EQ(parse_release("1.32"), std::nullopt);
  EXPECT_EQ(parse_release("0.32."), std::nullopt);
  EXPECT_EQ(parse_release("0.32.0rc1"), std::nullopt);
  EXPECT_EQ(parse_release(""), std::nullopt);
  EXPECT_EQ(release_name(Release::kV0_29), "0.29");
  EXPECT_EQ(release_name(kDefaultRelease), "0.32");
}

// Family names in exposition order, for a configuration.
std::vector<std::string> exposed_families(const RecorderConfig& c) {
  MetricsRecorder rec(c, 0);
  std::vector<std::string> names;
  std::istringstream text(rec.exposition());
  std::string line;
  while (std::getline(text, line)) {
    if (line.rfind("# TYPE ", 0) == 0) names.push_back(line.substr(7, line.find(' ', 7) - 7));
  }
  return names;
}

const std::vector<std::string> kFamilies029 = {
    "vllm:num_requests_running",
    "vllm:num_requests_waiting",
    "vllm:num_requests_waiting_by_reason",
    "vllm:engine_sleep_state",
    "vllm:kv_cache_usage_perc",
    "vllm:prefix_cache_queries_total",
    "vllm:prefix_cache_hits_total",
    "vllm:external_prefix_cache_queries_total",
    "vllm:external_prefix_cache_hits_total",
    "vllm:mm_cache_queries_total",
    "vllm:mm_cache_hits_total",
    "vllm:num_preemptions_total",
    "vllm:prompt_tokens_total",
    "vllm:prompt_tokens_by_source_total",
    "vllm:prompt_tokens_cached_total",
    "vllm:prompt_tokens_recomputed_total",
    "vllm:generation_tokens_total",
    "vllm:request_success_total",
    "vllm:request_prompt_tokens",
    "vllm:request_generation_tokens",
    "vllm:iteration_tokens_total",
    "vllm:request_max_num_generation_tokens",
    "vllm:request_params_n",
    "vllm:request_params_max_tokens",
    "vllm:time_to_first_token_seconds",
    "vllm:inter_token_latency_seconds",
    "vllm:request_time_per_output_token_seconds",
    "vllm:e2e_request_latency_seconds",
    "vllm:request_queue_time_seconds",
    "vllm:request_inference_time_seconds",
    "vllm:request_prefill_time_seconds",
    "vllm:request_decode_time_seconds",
    "vllm:request_prefill_kv_computed_tokens",
    "vllm:cache_config_info",
};

TEST(Release, FamiliesOf029) {
  EXPECT_EQ(exposed_families(testing::basic_config(Release::kV0_29)), kFamilies029);
}

// 0.30 added vllm:request_num_preemptions; 0.31 and 0.32 expose the same set.
TEST(Release, FamiliesOf031And032) {
  std::vector<std::string> expected = kFamilies029;
  expected.insert(expected.end() - 1, "vllm:request_num_preemptions");
  EXPECT_EQ(exposed_families(testing::basic_config(Release::kV0_31)), expected);
  EXPECT_EQ(exposed_families(testing::basic_config(Release::kV0_32)), expected);
}

TEST(Release, OptionalFamiliesFollowTheConfiguration) {
  RecorderConfig c = testing::basic_config(Release::kV0_32);
  c.num_speculative_tokens = 2;
  c.lora_enabled = true;
  const std::vector<std::string> names = exposed_families(c);
  ASSERT_GE(names.size(), 4u);
  // SpecDecodingProm is built first in PrometheusStatLogger.__init__.
  EXPECT_EQ(names[0], "vllm:spec_decode_num_drafts_total");
  EXPECT_EQ(names[3], "vllm:spec_decode_num_accepted_tokens_per_pos_total");
  EXPECT_EQ(names[names.size() - 2], "vllm:lora_requests_info");
  EXPECT_EQ(names.size(), kFamilies029.size() + 1 + 4 + 1);
}

TEST(Release, NumPreemptionsHistogramIsScoped) {
  for (Release r : {Release::kV0_29, Release::kV0_31}) {
    testing::Script s(testing::basic_config(r));
    s.add(0, 10);
    s.out(0, 1, FinishReason::kStop, 0, 0, 2);
    s.flush(10);
    const bool has = s.rec.prometheus().has_family("vllm:request_num_preemptions");
    EXPECT_EQ(has, r != Release::kV0_29);
    if (has) {
      EXPECT_EQ(s.bucket("vllm:request_num_preemptions", 2), 1u);
    }
  }
}

// docs/metrics.md documents every family of the table.
TEST(Release, EveryFamilyIsDocumented) {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/docs/metrics.md");
  std::ostringstream doc;
  doc << in.rdbuf();
  ASSERT_FALSE(doc.str().empty());
  for (const FamilySpec& f : family_table()) {
    std::string exposed = f.name;
    if (f.type == MetricType::kCounter) exposed += "_total";
    EXPECT_NE(doc.str().find("`" + exposed + "`"), std::string::npos) << exposed;
  }
}

}  // namespace
}  // namespace blis::vllm::metrics
