// vLLM's KV budget: the memory breakdown, the block count, the does-not-fit reasons, the
// overrides, and how the budget moves with the engine arguments.
#include "kernel/kv_capacity.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::deploy;
using testing::kGiB;

TEST(KvCapacity, BlocksAreTheBudgetOverTheBlockSize) {
  const KvCapacity k = kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  ASSERT_TRUE(k.fits) << k.reason;
  EXPECT_EQ(k.requested_memory_bytes,
            static_cast<std::int64_t>(static_cast<double>(k.total_memory_bytes) * 0.9));
  EXPECT_EQ(k.available_kv_bytes, k.requested_memory_bytes - k.weights_bytes -
                                      k.activation_peak_bytes - k.non_torch_bytes -
                                      k.cuda_graph_bytes);
  EXPECT_EQ(k.num_gpu_blocks, k.available_kv_bytes / k.bytes_per_block);
  EXPECT_EQ(k.kv_cache_tokens, k.num_gpu_blocks * 16);
  // max_concurrency = blocks / cdiv(131072, 16).
  EXPECT_DOUBLE_EQ(k.max_concurrency, static_cast<double>(k.num_gpu_blocks) / 8192.0);
}

TEST(KvCapacity, ProfileRunPeakFollowsTheBatchLimits) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  const KvCapacity base = kv_capacity(d);
  // 1024 sampler rows x 128256 logits x 14 bytes (+ the hidden states) dominate on H100.
  EXPECT_EQ(base.profile.sampler_peak_bytes,
            std::int64_t{1024} * 128256 * 14 + std::int64_t{8192} * 4096 * 2);
  // Forward: [8192, 2 x 4096 + 1.5 x 28672] bf16.
  EXPECT_EQ(base.profile.forward_peak_bytes, std::int64_t{8192} * (2 * 4096 + 43008) * 2);
  d.max_num_seqs = 256;
  EXPECT_GT(kv_capacity(d).num_gpu_blocks, base.num_gpu_blocks);
}

TEST(KvCapacity, LargerBatchedTokensNeverGiveMoreBlocks) {
  const catalog::Catalog& c = catalog::Catalog::builtin();
  for (const char* model : {"meta-llama/Llama-3.1-8B-Instruct", "Qwen/Qwen3-30B-A3B",
                            "openai/gpt-oss-20b", "mistralai/Mixtral-8x7B-v0.1"}) {
    Deployment d;
    ASSERT_FALSE(has_errors(make_deployment(c, "H100-SXM-80GB", model, 2, &d)));
    d.max_num_seqs = 128;
    d.max_model_len = 8192;
    std::int64_t previous = -1;
    for (int tokens : {256, 1024, 2048, 8192, 16384, 32768, 65536}) {
      d.max_num_batched_tokens = tokens;
      const KvCapacity k = kv_capacity(d);
      ASSERT_TRUE(k.fits) << model << " " << tokens << ": " << k.reason;
      if (previous >= 0) {
        EXPECT_LE(k.num_gpu_blocks, previous) << model << " " << tokens;
      }
      previous = k.num_gpu_blocks;
    }
  }
}

TEST(KvCapacity, UtilizationAndEagerModeMoveTheBudget) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  const KvCapacity base = kv_capacity(d);
  EXPECT_GT(base.cuda_graph_bytes, 0);
  d.gpu_memory_utilization = 0.95;
  EXPECT_GT(kv_capacity(d).num_gpu_blocks, base.num_gpu_blocks);
  d.gpu_memory_utilization = 0.9;
  d.enforce_eager = true;  // no CUDA graphs to reserve
  const KvCapacity eager = kv_capacity(d);
  EXPECT_EQ(eager.cuda_graph_bytes, 0);
  EXPECT_GT(eager.num_gpu_blocks, base.num_gpu_blocks);
}

TEST(KvCapacity, TensorParallelAddsCommunicatorBuffers) {
  const KvCapacity tp1 =
      kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  const KvCapacity tp2 =
      kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 2));
  const KvCapacity tp4 =
      kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 4));
  EXPECT_EQ(tp2.non_torch_bytes - tp1.non_torch_bytes, 358612992);
  EXPECT_EQ(tp4.non_torch_bytes - tp1.non_torch_bytes, 411041792);
}

TEST(KvCapacity, OverridesReplaceTheProfile) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  d.max_model_len = 8192;
  d.kv_cache_memory_bytes = std::int64_t{10} << 30;  // 10 GiB -> 5120 blocks of 2 MiB
  EXPECT_EQ(kv_capacity(d).num_gpu_blocks, 5120);
  d.max_model_len = 131072;  // one request needs 16 GiB: vLLM refuses to start
  EXPECT_FALSE(kv_capacity(d).fits);
  d.kv_cache_memory_bytes.reset();
  d.num_gpu_blocks_override = 1000;
  const KvCapacity k = kv_capacity(d);
  EXPECT_EQ(k.num_gpu_blocks, 1000);
  EXPECT_EQ(k.kv_cache_tokens, 16000);
}

TEST(KvCapacity, WeightsLargerThanTheGpuDoNotFit) {
  const KvCapacity k = kv_capacity(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 1));
  EXPECT_FALSE(k.fits);
  EXPECT_EQ(k.num_gpu_blocks, 0);
  EXPECT_NE(k.reason.find("model weights need 131.45 GiB per GPU at tp=1, more than the 79.11 GiB"),
            std::string::npos)
      << k.reason;
}

TEST(KvCapacity, NothingLeftForTheCacheDoesNotFit) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  d.gpu_memory_utilization = 0.2;  // 15.8 GiB requested < 15 GiB of weights + profile
  const KvCapacity k = kv_capacity(d);
  EXPECT_FALSE(k.fits);
  EXPECT_LT(k.available_kv_bytes, 0);
  EXPECT_NE(k.reason.find("No available memory for the cache blocks"), std::string::npos)
      << k.reason;
}

TEST(KvCapacity, MaxModelLenMustFitOneRequest) {
  // vLLM's check_enough_kv_cache_memory: Mistral-Nemo's config allows 1,024,000 tokens, which
  // needs 156.25 GiB of KV cache on one GPU.
  Deployment d = deploy("H100-SXM-80GB", "mistralai/Mistral-Nemo-Instruct-2407", 1);
  KvCapacity k = kv_capacity(d);
  EXPECT_FALSE(k.fits);
  EXPECT_NE(k.reason.find("To serve at least one request with the models's max seq len (1024000), "
                          "(156.25 GiB KV cache is needed"),
            std::string::npos)
      << k.reason;
  EXPECT_GT(k.estimated_max_model_len, 0);
  // The estimate is the longest length that fits: it fits, one block more does not.
  d.max_model_len = k.estimated_max_model_len;
  EXPECT_TRUE(kv_capacity(d).fits);
  d.max_model_len = k.estimated_max_model_len + d.block_size;
  EXPECT_FALSE(kv_capacity(d).fits);
}

TEST(KvCapacity, SlidingLayersNeedOnlyTheWindowPerRequest) {
  // gpt-oss-20b at max_model_len 131072: 12 full layers x 8192 blocks x 32 KiB, plus 12
  // sliding layers x (cdiv(127 + 8192, 16) + 1) blocks x 32 KiB.
  const KvCapacity k = kv_capacity(deploy("H100-SXM-80GB", "openai/gpt-oss-20b", 1));
  EXPECT_EQ(k.kv_bytes_for_max_model_len,
            std::int64_t{12} * 8192 * 32768 + std::int64_t{12} * (520 + 1) * 32768);
}

TEST(KvCapacity, PipelineStagesTakeTheSmallestBudget) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 4);
  const KvCapacity tp4 = kv_capacity(d);
  d.tp = 2;
  d.pp = 2;
  const KvCapacity tp2pp2 = kv_capacity(d);
  ASSERT_TRUE(tp2pp2.fits) << tp2pp2.reason;
  // Each stage holds 40 of the 80 layers at twice the per-layer KV of TP 4.
  EXPECT_EQ(tp2pp2.layers_per_group, 40);
  EXPECT_EQ(tp2pp2.bytes_per_block, tp4.bytes_per_block);
  EXPECT_NEAR(tp2pp2.weights_bytes, tp4.weights_bytes, 1.2 * kGiB);
}

TEST(KvCapacity, InvalidDeploymentsExplainThemselves) {
  Deployment d = deploy("H100-SXM-80GB", "Qwen/Qwen2.5-7B-Instruct", 4);
  d.tp = 8;
  const KvCapacity k = kv_capacity(d);
  EXPECT_FALSE(k.fits);
  EXPECT_EQ(k.reason,
            "/tp: Total number of attention heads (28) must be divisible by tensor parallel size "
            "(8).");
}

}  // namespace
}  // namespace blis::kernel
