// KV blocks against the 13 real H100 runs of the public sim-to-real campaign's training /
// validation set: vLLM 0.15.1, max_model_len 4096, gpu_memory_utilization 0.9 (vLLM's
// default; the records leave it blank), block size 16, the batch limits below. vLLM's logged
// "GPU KV cache size: N tokens" / 16 per GPU rank, extracted by
// inference-sim/sim-to-real-accuracy-validation (commit dcec3fd,
// experiment/kv_cache_extractor.py) and recorded in inference-sim/inference-sim (commit
// f90a1e3a, testdata/trained_physics_iter29.json, experiments[id].kv_blocks.total_kv_blocks).
// vLLM 0.15 sized the KV cache with the legacy memory profile (sort-based sampler warm-up,
// CUDA graphs outside the budget; catalog/coefficients/vllm-memory.json legacy_profile).
#include <cmath>
#include <cstdio>

#include "kernel/kv_capacity.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::deploy;

struct TrainvalRun {
  const char* experiment;  // the run's id in the sim-to-real records
  const char* model;
  int tp;
  int max_num_batched_tokens;
  std::int64_t vllm_blocks;  // logged GPU KV cache tokens / 16
};

// max_num_seqs 128 in every run.
constexpr TrainvalRun kRuns[] = {
    {"17-llama-4-scout-17b-16e-tp2-general-lite-2-1",
     "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", 2, 2048, 8253},
    {"20-llama-4-scout-17b-16e-tp2-codegen-2",
     "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", 2, 2048, 8253},
    {"21-llama-4-scout-17b-16e-tp2-roleplay-2",
     "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", 2, 2048, 8253},
    {"48-llama-4-scout-17b-16e-tp2-reasoning-lite-2-1",
     "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic", 2, 2048, 8253},
    {"20260217-155451-llama-2-7b-tp1-codegen", "meta-llama/Llama-2-7b-hf", 1, 2048, 7463},
    {"67-llama-2-7b-hf-tp1-reasoning-lite-1-1", "meta-llama/Llama-2-7b-hf", 1, 2048, 7463},
    {"60-llama-3-1-70b-tp4-general-lite-4-1", "meta-llama/Llama-3.1-70B-Instruct", 4, 8192, 30251},
    {"61-llama-3-1-70b-tp4-codegen-4-1", "meta-llama/Llama-3.1-70B-Instruct", 4, 2048, 30425},
    {"62-mistral-nemo-12b-tp2-general-lite-2-1", "mistralai/Mistral-Nemo-Instruct-2407", 2, 1024,
     48009},
    {"63-mistral-nemo-12b-tp1-codegen-1-1", "mistralai/Mistral-Nemo-Instruct-2407", 1, 2048, 19251},
    {"64-qwen2-5-7b-instruct-tp1-roleplay-1-1", "Qwen/Qwen2.5-7B-Instruct", 1, 2048, 65352},
    {"66-qwen2-5-7b-instruct-tp1-reasoning-lite-1-1", "Qwen/Qwen2.5-7B-Instruct", 1, 1024, 65368},
    {"65-01-ai-yi-34b-tp2-general-lite-2-1", "01-ai/Yi-34B", 2, 2048, 20793},
};

KvCapacity trainval_capacity(const TrainvalRun& r) {
  Deployment d = deploy("H100-SXM-80GB", r.model, r.tp);
  d.max_model_len = 4096;
  d.max_num_batched_tokens = r.max_num_batched_tokens;
  d.max_num_seqs = 128;
  d.gpu_memory_utilization = 0.9;
  d.memory_coefficients = d.memory_coefficients.legacy();
  return kv_capacity(d);
}

double error_of(const TrainvalRun& r, const KvCapacity& k) {
  return (static_cast<double>(k.num_gpu_blocks) - static_cast<double>(r.vllm_blocks)) /
         static_cast<double>(r.vllm_blocks);
}

// Dense models: within 2% of what vLLM logged.
TEST(KvCapacityTrainval, DenseRunsWithinTwoPercent) {
  for (const TrainvalRun& r : kRuns) {
    if (std::string(r.model).find("Scout") != std::string::npos) continue;
    const KvCapacity k = trainval_capacity(r);
    ASSERT_TRUE(k.fits) << r.experiment << ": " << k.reason;
    const double e = error_of(r, k);
    std::printf("[ trainval ] %-48s vLLM %6lld ours %6lld %+6.2f%%\n", r.experiment,
                static_cast<long long>(r.vllm_blocks), static_cast<long long>(k.num_gpu_blocks),
                100.0 * e);
    EXPECT_LT(std::fabs(e), 0.02) << r.experiment;
  }
}

// Llama-4-Scout: 36 chunked-local layers and 12 global ones form 4 KV-cache groups of 12
// layers sharing one pool; the logged count is the pool over the groups. KNOWN GAP: we leave
// about 1.5 GiB per GPU more for the KV cache than vLLM did (+12.7%); the weights are
// modelled as the checkpoint stores them (attention, router, LM head, vision tower in bf16;
// experts and shared expert FP8) and the cause is not identified (docs/catalog.md). This test
// pins the grouping and the size of the gap so a fix shows up here.
TEST(KvCapacityTrainval, ScoutHybridGroupsAndKnownGap) {
  const KvCapacity k = trainval_capacity(kRuns[0]);
  ASSERT_TRUE(k.fits) << k.reason;
  EXPECT_EQ(k.kv_cache_groups, 4);
  EXPECT_EQ(k.layers_per_group, 12);
  EXPECT_EQ(k.num_gpu_blocks, k.pool_blocks / 4);
  EXPECT_EQ(k.kv_cache_tokens / 16, k.num_gpu_blocks);
  const double e = error_of(kRuns[0], k);
  std::printf("[ trainval ] %-48s vLLM %6lld ours %6lld %+6.2f%% (known gap)\n",
              kRuns[0].experiment, static_cast<long long>(kRuns[0].vllm_blocks),
              static_cast<long long>(k.num_gpu_blocks), 100.0 * e);
  EXPECT_GT(e, 0.0);
  EXPECT_LT(e, 0.14);
}

// Without the legacy profile (vLLM 0.21 and later: CUDA graphs in the budget, Triton top-k/
// top-p in the sampler warm-up) the same deployments get fewer blocks.
TEST(KvCapacityTrainval, CurrentProfileReservesCudaGraphs) {
  const TrainvalRun& r = kRuns[6];  // Llama-3.1-70B TP4
  Deployment d = deploy("H100-SXM-80GB", r.model, r.tp);
  d.max_model_len = 4096;
  d.max_num_batched_tokens = r.max_num_batched_tokens;
  d.max_num_seqs = 128;
  const KvCapacity now = kv_capacity(d);
  const KvCapacity legacy = trainval_capacity(r);
  EXPECT_GT(now.cuda_graph_bytes, 0);
  EXPECT_EQ(legacy.cuda_graph_bytes, 0);
  EXPECT_LT(now.num_gpu_blocks, legacy.num_gpu_blocks);
}

}  // namespace
}  // namespace blis::kernel
