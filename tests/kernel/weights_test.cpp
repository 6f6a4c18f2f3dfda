// Weight bytes per GPU: parameter counts against the published ones, SwiGLU's three
// matrices, vocabulary and TP sharding, quantized checkpoints.
#include <nlohmann/json.hpp>

#include "kernel/kv_capacity.h"
#include "kernel/model_shape.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::deploy;
using testing::kGiB;

// Parameters = (weight bytes without the rotary cache) / 2 for a 16-bit checkpoint.
std::int64_t params(const std::string& model) {
  const ModelShape s = build_model_shape(deploy("H100-SXM-80GB", model, 1));
  return (s.weights.total() - s.weights.rotary_cache) / 2;
}

TEST(Weights, ParameterCountsMatchThePublishedOnes) {
  // Counted from each model's safetensors (as Hugging Face reports them).
  EXPECT_EQ(params("meta-llama/Llama-2-7b-hf"), 6738415616);
  EXPECT_EQ(params("meta-llama/Llama-3.1-8B-Instruct"), 8030261248);
  EXPECT_EQ(params("mistralai/Mistral-7B-Instruct-v0.3"), 7248023552);
  EXPECT_EQ(params("Qwen/Qwen2.5-7B-Instruct"), 7615616512);
  EXPECT_EQ(params("mistralai/Mixtral-8x7B-v0.1"), 46702792704);
}

TEST(Weights, Llama3_8BMatchesVllmsModelLoadingLine) {
  // vLLM logs "Model loading took 14.99 GiB" for Llama-3.1-8B on one GPU: 8.03B x 2 bytes
  // plus the rotary cos/sin cache of 131072 positions x 128 x 2 bytes.
  const ModelShape s =
      build_model_shape(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  EXPECT_EQ(s.weights.rotary_cache, 131072 * 128 * 2);
  EXPECT_NEAR(s.weights.total() / kGiB, 14.99, 0.005);
}

TEST(Weights, SwiGluHasThreeMatrices) {
  const ModelShape s =
      build_model_shape(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  EXPECT_EQ(s.weights.dense_mlp, std::int64_t{32} * 3 * 4096 * 14336 * 2);
}

TEST(Weights, TensorParallelShardsEmbeddingsAndHead) {
  const ModelShape s1 =
      build_model_shape(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  const ModelShape s4 =
      build_model_shape(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 4));
  EXPECT_EQ(s4.weights.embedding * 4, s1.weights.embedding);
  EXPECT_EQ(s4.weights.lm_head * 4, s1.weights.lm_head);
  EXPECT_EQ(s4.weights.norms, s1.weights.norms);  // replicated
}

TEST(Weights, MoreTensorParallelNeverMoreBytesPerGpu) {
  const catalog::Catalog& c = catalog::Catalog::builtin();
  for (const auto& model : c.model_ids()) {
    std::int64_t previous = -1;
    for (int tp : {1, 2, 4, 8}) {
      Deployment d;
      if (has_errors(make_deployment(c, "H100-SXM-80GB", model, tp, &d))) continue;
      const std::int64_t w = build_model_shape(d).weights.total();
      if (previous >= 0) {
        EXPECT_LE(w, previous) << model << " tp " << tp;
      }
      previous = w;
    }
  }
}

TEST(Weights, QuantizedCheckpointsStoreFewerBytes) {
  // DeepSeek-V3: FP8 (1 byte + 128x128 block scales) for every linear but embeddings, LM head
  // and router; 671B parameters come to about 627 GiB.
  const ModelShape ds = build_model_shape(deploy("H200-SXM-141GB", "deepseek-ai/DeepSeek-V3", 8));
  EXPECT_NEAR(ds.weights.total() * 8 / kGiB, 634, 8);
  EXPECT_TRUE(ds.expert_fp8_compute);
  // gpt-oss-120b: MXFP4 experts (4.25 bits each), intermediate 2880 padded to 3072 per rank;
  // vLLM logs "Model loading took 64.38 GiB" on one H100 (vllm issue #33155).
  const ModelShape oss = build_model_shape(deploy("H100-SXM-80GB", "openai/gpt-oss-120b", 1));
  EXPECT_EQ(oss.expert_intermediate, 3072);
  EXPECT_FALSE(oss.expert_fp8_compute);
  EXPECT_NEAR(oss.weights.total() / kGiB, 64.38, 0.35);
}

TEST(Weights, OnlineFp8QuantizesEveryLinearButTheHead) {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  const ModelShape bf16 = build_model_shape(d);
  d.quantization = "fp8";
  const ModelShape fp8 = build_model_shape(d);
  EXPECT_EQ(fp8.weights.dense_mlp * 2, bf16.weights.dense_mlp);
  EXPECT_EQ(fp8.weights.attention * 2, bf16.weights.attention);
  EXPECT_EQ(fp8.weights.lm_head, bf16.weights.lm_head);
  for (const auto& g : fp8.gemms) EXPECT_TRUE(g.fp8_compute) << g.name;
  // On A100 (no FP8 tensor cores) the same checkpoint runs weight-only at the 16-bit rate.
  Deployment a = deploy("A100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  a.quantization = "fp8";
  for (const auto& g : build_model_shape(a).gemms) EXPECT_FALSE(g.fp8_compute) << g.name;
}

TEST(Weights, Int4WeightOnlyCheckpointsRunAtTheSixteenBitRate) {
  // A W4A16 checkpoint (4-bit weights, one bf16 scale per group of 128: 0.515625 bytes per
  // weight) as an inline model: smaller weights, BF16 compute (latency-kernel.md A.2).
  catalog::Catalog c = catalog::Catalog::builtin();
  nlohmann::json j = nlohmann::json::parse(
      *c.entry_json(catalog::Kind::kModel, "meta-llama/Llama-3.1-8B-Instruct"));
  j["id"] = "example/Llama-3.1-8B-Instruct-w4a16";
  j["quantization"] = {{"method", "int4"},
                       {"weight_bytes_per_param", 0.515625},
                       {"activation", "bf16"},
                       {"scope", {"attention", "dense_mlp"}}};
  ASSERT_TRUE(c.add_inline(catalog::Kind::kModel, j.dump(), "/catalog/models/0").empty());
  const ModelShape q =
      build_model_shape(deploy("H100-SXM-80GB", "example/Llama-3.1-8B-Instruct-w4a16", 1, c));
  const ModelShape b =
      build_model_shape(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  EXPECT_EQ(q.weights.dense_mlp,
            static_cast<std::int64_t>(b.weights.dense_mlp / 2 * 0.515625 + 0.5));
  EXPECT_EQ(q.weights.embedding, b.weights.embedding);
  for (const auto& g : q.gemms) EXPECT_FALSE(g.fp8_compute) << g.name;
}

}  // namespace
}  // namespace blis::kernel
