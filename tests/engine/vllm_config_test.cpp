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
  EXPECT_TRUE(c.use_eagle());
}

TEST(VllmConfig, SpecDecodeDerivesTheTokenBudget) {
  // config/vllm.py _set_max_num_scheduled_tokens: mnbt - slots x max_num_seqs, where a draft
  // model adds one slot per request; an explicit max_num_scheduled_tokens wins.
  VllmConfig c = ok();
  c.max_num_batched_tokens = 512;
  c.max_num_seqs = 16;
  c.num_speculative_tokens = 2;
  c.speculative_method = SpecMethod::kDraftModel;
  EXPECT_EQ(c.token_budget(), 512 - 16);
  EXPECT_EQ(c.num_lookahead_tokens(), 2);
  EXPECT_FALSE(c.use_eagle());
  c.speculative_method = SpecMethod::kEagle3;
  EXPECT_EQ(c.token_budget(), 512);
  EXPECT_TRUE(c.use_eagle());
  c.speculative_method = SpecMethod::kNgramGpu;
  EXPECT_EQ(c.num_lookahead_tokens(), 0);
  c.max_num_scheduled_tokens = 100;
  EXPECT_EQ(c.token_budget(), 100);
  c = ok();
  c.max_num_batched_tokens = 16;
  c.max_num_seqs = 16;
  c.num_speculative_tokens = 1;
  c.speculative_method = SpecMethod::kDraftModel;  // 16 - 16 = 0 tokens left
  EXPECT_TRUE(rejects(c, "max_num_batched_tokens"));
  SpecMethod m;
  EXPECT_TRUE(spec_method_from_string("eagle3", m));
  EXPECT_EQ(m, SpecMethod::kEagle3);
  EXPECT_FALSE(spec_method_from_string("medusa", m));
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

namespace blis::vllm {
namespace {

// vllm config/vllm.py VllmConfig.max_concurrent_batches.
TEST(VllmConfigPipeline, TheBatchQueueFollowsThePipeline) {
  VllmConfig c = ok();
  EXPECT_EQ(c.max_concurrent_batches(), 2);  // async, pp 1
  c.pipeline_parallel_size = 4;
  EXPECT_EQ(c.max_concurrent_batches(), 4);  // V1 runner: pp
  c.async_scheduling = false;
  EXPECT_EQ(c.max_concurrent_batches(), 4);
  c.pipeline_parallel_size = 1;
  EXPECT_EQ(c.max_concurrent_batches(), 1);
  c.async_scheduling = true;
  c.use_v2_model_runner = true;
  c.pipeline_parallel_size = 2;
  EXPECT_EQ(c.max_concurrent_batches(), 3);  // V2 runner: pp + 1
}

}  // namespace
}  // namespace blis::vllm
