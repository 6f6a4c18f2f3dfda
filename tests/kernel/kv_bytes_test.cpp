// Bytes per KV block and per token: MHA/GQA/MLA, KV-cache dtypes, TP sharding and replication.
#include "kernel/kv_capacity.h"
#include "kernel/model_shape.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::deploy;

TEST(KvBytes, Llama3_8B_BlockIs2MiBAtTp1) {
  // 32 layers x 16 tokens x 2 (K, V) x 8 KV heads x 128 x 2 bytes = 2 MiB.
  const KvCapacity k = kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  EXPECT_EQ(k.page_bytes, 16 * 2 * 8 * 128 * 2);
  EXPECT_EQ(k.layers_per_group, 32);
  EXPECT_EQ(k.bytes_per_block, 2 * 1024 * 1024);
  EXPECT_EQ(k.kv_bytes_per_token, 131072);  // catalog-facts.md: 131072 B/token
}

TEST(KvBytes, TensorParallelSplitsKvHeads) {
  EXPECT_EQ(
      kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 2)).bytes_per_block,
      1024 * 1024);
  EXPECT_EQ(
      kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 8)).bytes_per_block,
      256 * 1024);
}

TEST(KvBytes, FewerKvHeadsThanRanksAreReplicated) {
  // Qwen2.5-7B has 4 KV heads: at TP 4 each rank holds one, and vLLM would replicate below.
  const Deployment d = deploy("H100-SXM-80GB", "Qwen/Qwen2.5-7B-Instruct", 4);
  EXPECT_EQ(build_model_shape(d).kv_heads, 1);
  EXPECT_EQ(kv_bytes_per_token(d), 28 * 2 * 1 * 128 * 2);
  const Deployment scout =
      deploy("H100-SXM-80GB", "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", 8);
  EXPECT_EQ(build_model_shape(scout).kv_heads, 1);  // 8 KV heads over 8 ranks
}

TEST(KvBytes, MhaModelsCacheEveryHead) {
  // Llama-2-7B: 32 KV heads -> 32 x 16 x 2 x 32 x 128 x 2 = 8 MiB per block.
  EXPECT_EQ(kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-2-7b-hf", 1)).bytes_per_block,
            8 * 1024 * 1024);
}

TEST(KvBytes, MlaCachesOneLatentIndependentOfTp) {
  // DeepSeek-V3: (kv_lora_rank 512 + qk_rope 64) x 2 bytes per token per layer, 61 layers:
  // 70272 B/token (catalog-facts.md), the same on every rank whatever the TP.
  for (int tp : {1, 2, 4, 8}) {
    Deployment d = deploy("H200-SXM-141GB", "deepseek-ai/DeepSeek-V3", tp);
    EXPECT_EQ(kv_bytes_per_token(d), 70272) << "tp " << tp;
    EXPECT_EQ(d.block_size, 64);  // FlashMLA block size on Hopper
    d.kv_cache_dtype = "fp8";
    EXPECT_EQ(kv_bytes_per_token(d), 35136) << "tp " << tp;
  }
}

TEST(KvBytes, Fp8KvCacheHalvesTheBlock) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  d.kv_cache_dtype = "fp8";
  EXPECT_EQ(kv_capacity(d).bytes_per_block, 1024 * 1024);
  d.kv_cache_dtype = "fp8_e5m2";
  EXPECT_EQ(kv_bytes_per_token(d), 65536);
}

TEST(KvBytes, BlockSizeScalesTheBlock) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  d.block_size = 32;
  EXPECT_EQ(kv_capacity(d).bytes_per_block, 4 * 1024 * 1024);
}

TEST(KvBytes, SlidingWindowModelsShareBlocksBetweenGroups) {
  // gpt-oss-20b: 12 sliding + 12 full layers -> two KV cache groups of 12 layers sharing a
  // block id (kv_cache_utils.py _get_kv_cache_config_uniform_page_size); page = 16 tokens x
  // 2 x 8 heads x 64 x 2 bytes = 32 KiB.
  const KvCapacity k = kv_capacity(deploy("H100-SXM-80GB", "openai/gpt-oss-20b", 1));
  EXPECT_EQ(k.page_bytes, 32768);
  EXPECT_EQ(k.kv_cache_groups, 2);
  EXPECT_EQ(k.layers_per_group, 12);
  EXPECT_EQ(k.bytes_per_block, 12 * 32768);
  // Tokens as vLLM reports them: concurrency x max_model_len, where one 131072-token request
  // needs 8192 blocks for the full layers and 521 for the window.
  EXPECT_EQ(k.pool_blocks_per_request, 8713);
  EXPECT_EQ(k.kv_cache_tokens,
            static_cast<std::int64_t>(static_cast<double>(k.pool_blocks) / 8713 * 131072));
  // The engine's single block table sees the full group's share of the pool.
  EXPECT_EQ(k.num_gpu_blocks, k.pool_blocks * 8192 / 8713);
}

TEST(KvBytes, ChunkedLocalAttentionHasItsOwnGroups) {
  // Llama-4: the hybrid KV cache manager is on for chunked local attention
  // (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1): 36 chunked layers and 12 global
  // ones make 3 + 1 groups of 12 layers.
  Deployment d = deploy("H100-SXM-80GB", "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", 4);
  d.max_model_len = 32768;
  d.max_num_batched_tokens = 2048;
  const KvCapacity k = kv_capacity(d);
  ASSERT_TRUE(k.fits) << k.reason;
  EXPECT_EQ(k.kv_cache_groups, 4);
  EXPECT_EQ(k.layers_per_group, 12);
  // One 32768-token request: 2048 blocks for the global group, cdiv(8192 + 2048, 16) = 640
  // for each chunked group (ChunkedLocalAttentionSpec.max_admission_blocks_per_request).
  EXPECT_EQ(k.pool_blocks_per_request, 2048 + 3 * 640);
  EXPECT_EQ(k.num_gpu_blocks, k.pool_blocks * 2048 / (2048 + 3 * 640));
  // At a max_model_len inside one chunk every group caches every token: a quarter each.
  d.max_model_len = 4096;
  const KvCapacity s = kv_capacity(d);
  EXPECT_EQ(s.num_gpu_blocks, s.pool_blocks / 4);
}

}  // namespace
}  // namespace blis::kernel
