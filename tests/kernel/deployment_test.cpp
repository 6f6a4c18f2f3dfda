// Deployments from catalog ids: vLLM's defaults per GPU and the rules vLLM enforces.
#include "kernel/deployment.h"

#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::deploy;

TEST(Deployment, VllmBatchDefaultsDependOnTheGpu) {
  const catalog::Catalog& c = catalog::Catalog::builtin();
  // >= 70 GiB and not an A100: 8192 tokens / 1024 sequences; else 2048 / 256.
  EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("H100-SXM-80GB")).max_num_batched_tokens, 8192);
  EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("H200-SXM-141GB")).max_num_seqs, 1024);
  EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("MI300X-192GB")).max_num_seqs, 1024);
  // The table is the rules pack's (rules::batch_defaults): vLLM 8d9b52f7 has no ">= 160 GiB"
  // row, so the largest devices get 8192 too (the kernel's own copy had a 16384 row).
  EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("MI300X-192GB")).max_num_batched_tokens, 8192);
  EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("B200-SXM-180GB")).max_num_batched_tokens, 8192);
  // Per release: every pack has the same table today, and an unknown release is the default's.
  for (const std::string& r : rules::known_releases()) {
    EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("L40S-48GB"), r).max_num_batched_tokens, 2048) << r;
  }
  EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("A100-SXM-80GB")).max_num_batched_tokens, 2048);
  EXPECT_EQ(vllm_batch_defaults(*c.find_gpu("L40S-48GB")).max_num_seqs, 256);
}

TEST(Deployment, DefaultsComeFromTheModelAndTheCatalog) {
  const Deployment d = deploy("H100-SXM-80GB", "Qwen/Qwen3-8B", 2);
  EXPECT_EQ(d.max_model_len, 40960);
  EXPECT_EQ(d.block_size, 16);
  EXPECT_EQ(d.coefficients.id, "H100-SXM-80GB");
  EXPECT_EQ(d.memory_coefficients.id, "vllm-memory");
  EXPECT_EQ(deploy("L4-24GB", "Qwen/Qwen3-8B", 1).coefficients.id, "L4-24GB");
  EXPECT_EQ(deploy("H200-SXM-141GB", "deepseek-ai/DeepSeek-V3", 8).block_size, 64);
  EXPECT_EQ(deploy("A100-SXM-80GB", "deepseek-ai/DeepSeek-V3", 8).block_size, 16);
}

// The memory profile picks the coefficients' legacy_profile values for "vllm-0.15" only.
TEST(Deployment, MemoryProfileSelectsTheCoefficients) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  EXPECT_EQ(d.memory_profile, kMemoryProfileCurrent);
  EXPECT_TRUE(d.profiled_memory_coefficients().cuda_graph_in_budget);
  EXPECT_DOUBLE_EQ(d.profiled_memory_coefficients().sampler_bytes_per_logit,
                   d.memory_coefficients.sampler_bytes_per_logit);
  d.memory_profile = kMemoryProfileVllm015;
  EXPECT_TRUE(validate_deployment(d).empty());
  EXPECT_FALSE(d.profiled_memory_coefficients().cuda_graph_in_budget);
  EXPECT_DOUBLE_EQ(d.profiled_memory_coefficients().sampler_bytes_per_logit,
                   d.memory_coefficients.legacy_sampler_bytes_per_logit);
  d.memory_profile = "vllm-0.14";
  const Diagnostics bad = validate_deployment(d);
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0].pointer, "/memory_profile");
  EXPECT_EQ(bad[0].message, "expected \"current\" or \"vllm-0.15\", got \"vllm-0.14\"");
}

TEST(Deployment, UnknownIdsSuggestTheClosest) {
  Deployment d;
  const Diagnostics diags =
      make_deployment(catalog::Catalog::builtin(), "H100", "Llama-3.1-8B", 1, &d);
  ASSERT_EQ(diags.size(), 2u);
  EXPECT_EQ(diags[0].pointer, "/hardware");
  EXPECT_NE(diags[0].message.find("unknown GPU \"H100\" (did you mean \"H100-SXM-80GB\""),
            std::string::npos);
  EXPECT_EQ(diags[1].pointer, "/model");
  EXPECT_NE(diags[1].message.find("\"meta-llama/Llama-3.1-8B-Instruct\""), std::string::npos);
}

TEST(Deployment, VllmRulesWithVllmsReasons) {
  Deployment d = deploy("H100-SXM-80GB", "Qwen/Qwen2.5-7B-Instruct", 1);
  auto first = [](const Diagnostics& x) {
    return x.empty() ? std::string() : format_diagnostic(x[0]);
  };
  d.tp = 8;
  EXPECT_EQ(first(validate_deployment(d)),
            "/tp: Total number of attention heads (28) must be divisible by tensor parallel size "
            "(8).");
  d.tp = 1;
  d.block_size = 48;  // vLLM 0.29+ accepts multiples of 16 on CUDA; the kernel prices them
  EXPECT_TRUE(validate_deployment(d).empty());
  d.block_size = 0;
  EXPECT_EQ(first(validate_deployment(d)), "/block_size: must be an integer from 1 to 4096, got 0");
  d.block_size = 16;
  d.gpu_memory_utilization = 1.5;
  EXPECT_EQ(first(validate_deployment(d)), "/gpu_memory_utilization: must be in (0, 1], got 1.5");
  d.gpu_memory_utilization = 0.9;
  d.max_num_batched_tokens = 100;
  EXPECT_NE(first(validate_deployment(d)).find("must be greater than or equal to max_num_seqs"),
            std::string::npos);
  d.max_num_batched_tokens = 8192;
  d.kv_cache_dtype = "int4";
  EXPECT_NE(first(validate_deployment(d)).find("/kv_cache_dtype: expected one of"),
            std::string::npos);
  d.kv_cache_dtype = "auto";
  EXPECT_TRUE(validate_deployment(d).empty());

  Deployment oss = deploy("H100-SXM-80GB", "openai/gpt-oss-20b", 1);
  oss.quantization = "fp8";
  EXPECT_NE(first(validate_deployment(oss))
                .find("Quantization method specified in the model "
                      "config (mxfp4) does not match"),
            std::string::npos);
}

}  // namespace
}  // namespace blis::kernel
