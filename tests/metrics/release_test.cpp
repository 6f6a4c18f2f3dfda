// Which families each release exposes, and release parsing.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/vllm/metrics/cache_config_info.h"
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

// PrometheusStatLogger's registry at upstream 8d9b52f7 without speculative decoding, LoRA or
// a KV connector (the m01-m04 traces' "families", plus cache_config_info).
const std::vector<std::string> kFamilies = {
    "vllm:estimated_flops_per_gpu_total",
    "vllm:estimated_read_bytes_per_gpu_total",
    "vllm:estimated_write_bytes_per_gpu_total",
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

// Every release the project models gets the registry of 8d9b52f7.
TEST(Release, EveryReleaseExposesTheRegistryOf8d9b52f7) {
  for (Release r : {Release::kV0_29, Release::kV0_31, Release::kV0_32})
    EXPECT_EQ(exposed_families(testing::basic_config(r)), kFamilies) << release_name(r);
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
  EXPECT_EQ(names[4], "vllm:estimated_flops_per_gpu_total");
  EXPECT_EQ(names[names.size() - 2], "vllm:lora_requests_info");
  EXPECT_EQ(names.size(), kFamilies.size() + 4 + 1);
  c.register_cache_config_info = false;
  EXPECT_EQ(exposed_families(c).back(), "vllm:lora_requests_info");
}

// KVConnectorProm registers the configured connector's families first.
TEST(Release, ConnectorFamiliesComeFirst) {
  RecorderConfig c = testing::basic_config(Release::kV0_32);
  c.connector = ConnectorMetrics::kNixl;
  std::vector<std::string> names = exposed_families(c);
  ASSERT_EQ(names.size(), kFamilies.size() + 7);
  EXPECT_EQ(names[0], "vllm:nixl_xfer_time_seconds");
  EXPECT_EQ(names[6], "vllm:nixl_num_kv_expired_reqs_total");
  EXPECT_EQ(names[7], "vllm:estimated_flops_per_gpu_total");
  c.connector = ConnectorMetrics::kOffloading;
  names = exposed_families(c);
  ASSERT_EQ(names.size(), kFamilies.size() + 16);
  EXPECT_EQ(names[0], "vllm:kv_offload_total_bytes_total");
  EXPECT_EQ(names[15], "vllm:kv_offload_allocation_failure_total");
}

// vllm:cache_config_info: one label per CacheConfig.__dict__ entry at 8d9b52f7 (ext
// FORMAT.md section 6), plus "engine".
TEST(Release, CacheConfigInfoLabelsAreCacheConfigsFields) {
  const std::vector<std::string> fields = {"block_size",
                                           "user_specified_block_size",
                                           "user_specified_mamba_block_size",
                                           "prefix_match_unit",
                                           "gpu_memory_utilization",
                                           "cache_dtype",
                                           "is_attention_free",
                                           "num_gpu_blocks_override",
                                           "sliding_window",
                                           "enable_prefix_caching",
                                           "prefix_caching_hash_algo",
                                           "kv_cache_dtype_skip_layers",
                                           "mamba_page_size_padded",
                                           "skip_page_size_padded",
                                           "mamba_block_size",
                                           "mamba_cache_dtype",
                                           "mamba_ssm_cache_dtype",
                                           "mamba_cache_mode",
                                           "replayssm_buffer_len",
                                           "use_replayssm",
                                           "num_gpu_blocks",
                                           "num_cpu_blocks",
                                           "kv_cache_size_tokens",
                                           "kv_cache_max_concurrency",
                                           "kv_sharing_fast_prefill",
                                           "kv_cache_memory_bytes",
                                           "kv_offloading_size",
                                           "kv_offloading_backend",
                                           "_block_size_resolved"};
  CacheConfigInfo info;
  info.num_gpu_blocks = 100;
  info.max_model_len = 800;
  const LabelList labels = cache_config_labels(info);
  std::vector<std::string> names;
  for (const Label& l : labels) names.push_back(l.first);
  EXPECT_EQ(names, fields);
  RecorderConfig c = testing::basic_config();
  c.cache_config_info = labels;
  MetricsRecorder rec(c, 0);
  const std::string text = rec.exposition();
  EXPECT_NE(text.find("vllm:cache_config_info{_block_size_resolved=\"True\",block_size=\"16\""),
            std::string::npos);
  EXPECT_NE(text.find("engine=\"0\",gpu_memory_utilization=\"0.92\""), std::string::npos);
  EXPECT_NE(text.find("kv_cache_max_concurrency=\"2.0\",kv_cache_memory_bytes=\"None\""),
            std::string::npos);
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
