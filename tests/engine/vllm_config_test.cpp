// VllmConfig: derived values and what vLLM would reject.
#include "engine/vllm/vllm_config.h"

#include <gtest/gtest.h>

namespace blis::vllm {
namespace {

bool rejects(const VllmConfig& c, const std::string& field) {
  for (const ConfigError& e : validate(c)) {
    if (e.field == field) return true;
  }
  return false;
}

VllmConfig ok() {
  VllmConfig c;
  c.num_gpu_blocks = 100;
  return c;
}

TEST(VllmConfig, DefaultsAreVllmsAndValid) {
  const VllmConfig c = ok();
  EXPECT_TRUE(validate(c).empty());
  EXPECT_EQ(c.block_size, 16);
  EXPECT_TRUE(c.async_scheduling);
  EXPECT_EQ(c.max_concurrent_batches(), 2);
  EXPECT_EQ(c.token_budget(), 2048);
  EXPECT_TRUE(c.scheduler_reserve_full_isl);
}

TEST(VllmConfig, DerivedValues) {
  VllmConfig c = ok();
  c.async_scheduling = false;
  EXPECT_EQ(c.max_concurrent_batches(), 1);
  c.max_num_scheduled_tokens = 100;
  EXPECT_EQ(c.token_budget(), 100);
  c.num_speculative_tokens = 4;
  EXPECT_EQ(c.num_lookahead_tokens(), 0);  // n-gram drafts need no KV slots
  c.speculative_method = SpecMethod::kEagle;
  EXPECT_EQ(c.num_lookahead_tokens(), 4);
}

TEST(VllmConfig, RejectsWhatVllmRejects) {
  VllmConfig c = ok();
  c.block_size = 0;
  EXPECT_TRUE(rejects(c, "block_size"));
  c = ok();
  c.num_gpu_blocks = 1;
  EXPECT_TRUE(rejects(c, "num_gpu_blocks"));
  c = ok();
  c.enable_chunked_prefill = false;
  c.max_num_batched_tokens = 1024;
  c.max_model_len = 4096;
  EXPECT_TRUE(rejects(c, "max_num_batched_tokens"));
  c = ok();
  c.max_num_seqs = 4096;
  EXPECT_TRUE(rejects(c, "max_num_batched_tokens"));
  c = ok();
  c.watermark = 1.5;
  EXPECT_TRUE(rejects(c, "watermark"));
  c = ok();
  c.long_prefill_token_threshold = -1;
  EXPECT_TRUE(rejects(c, "long_prefill_token_threshold"));
}

}  // namespace
}  // namespace blis::vllm
