// The built-in catalog: the required ids, facts checked against the models' config.json,
// references between entries, and value semantics for inline entries.
#include "catalog/catalog.h"

#include <gtest/gtest.h>

namespace blis::catalog {
namespace {

TEST(CatalogBuiltin, HasTheRequiredGpusModelsAndFabricsSorted) {
  const Catalog& c = Catalog::builtin();
  EXPECT_EQ(c.gpu_ids(), (std::vector<std::string>{
                             "A100-SXM-40GB", "A100-SXM-80GB", "B200-SXM-180GB", "H100-SXM-80GB",
                             "H200-SXM-141GB", "L4-24GB", "L40S-48GB", "MI300X-192GB"}));
  for (const char* id :
       {"meta-llama/Llama-2-7b-hf", "meta-llama/Llama-2-70b-hf",
        "codellama/CodeLlama-34b-Instruct-hf", "mistralai/Mixtral-8x7B-v0.1",
        "meta-llama/Llama-3.1-8B-Instruct", "meta-llama/Llama-3.1-70B-Instruct",
        "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic",
        "mistralai/Mistral-Nemo-Instruct-2407", "mistralai/Mistral-7B-Instruct-v0.3",
        "Qwen/Qwen2.5-7B-Instruct", "Qwen/Qwen3-8B", "Qwen/Qwen3-32B", "Qwen/Qwen3-30B-A3B",
        "01-ai/Yi-34B", "deepseek-ai/DeepSeek-V3", "openai/gpt-oss-20b", "openai/gpt-oss-120b"}) {
    EXPECT_NE(c.find_model(id), nullptr) << id;
  }
  for (const char* id : {"nvlink4", "nvlink5", "pcie-gen4", "pcie-gen5", "ib-ndr", "roce-400g"}) {
    EXPECT_NE(c.find_fabric(id), nullptr) << id;
  }
  const auto ids = c.model_ids();
  EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));
  EXPECT_EQ(c.find_gpu("h100-sxm-80gb"), nullptr);  // ids are exact
}

TEST(CatalogBuiltin, EveryEntryNamesItsSourceAndItsLinksResolve) {
  const Catalog& c = Catalog::builtin();
  for (const auto& id : c.gpu_ids()) {
    const Gpu* g = c.find_gpu(id);
    EXPECT_FALSE(g->source.empty()) << id;
    EXPECT_NE(c.find_fabric(g->scale_up.fabric), nullptr) << id;
    EXPECT_NE(c.find_fabric(g->host_link.fabric), nullptr) << id;
    EXPECT_GT(g->usable_memory_bytes, 0) << id;
  }
  for (const auto& id : c.model_ids()) EXPECT_FALSE(c.find_model(id)->source.empty()) << id;
  for (const auto& id : c.fabric_ids()) EXPECT_FALSE(c.find_fabric(id)->source.empty()) << id;
  EXPECT_FALSE(c.memory_coefficients().provenance.empty());
  EXPECT_FALSE(c.gpu_coefficients("default").provenance.empty());
}

// vLLM builds a MultiModalConfig only for the architectures of its multimodal registry
// (vllm/model_executor/models/registry.py _MULTIMODAL_MODELS at 8d9b52f7): of the built-in
// models, Llama-4-Scout (Llama4ForConditionalGeneration) is multimodal, the rest are text models.
TEST(CatalogBuiltin, OnlyLlama4ScoutIsMultimodal) {
  const Catalog& c = Catalog::builtin();
  for (const auto& id : c.model_ids()) {
    EXPECT_EQ(c.find_model(id)->is_multimodal(),
              id == "RedHatAI/Llama-4-Scout-17B-16E-Instruct-FP8-dynamic")
        << id << " (" << c.find_model(id)->architecture << ")";
  }
}

// Values from each model's Hugging Face config.json (the first four also in
// tests/catalog/fixtures/hf-configs).
TEST(CatalogBuiltin, ModelFactsMatchTheirConfigJson) {
  const Catalog& c = Catalog::builtin();
  const Model* l2 = c.find_model("meta-llama/Llama-2-7b-hf");
  EXPECT_EQ(l2->num_hidden_layers, 32);
  EXPECT_EQ(l2->num_key_value_heads, 32);
  EXPECT_EQ(l2->intermediate_size, 11008);
  EXPECT_EQ(l2->vocab_size, 32000);
  EXPECT_EQ(l2->max_position_embeddings, 4096);
  EXPECT_EQ(l2->torch_dtype, "float16");
  const Model* cl = c.find_model("codellama/CodeLlama-34b-Instruct-hf");
  EXPECT_EQ(cl->num_hidden_layers, 48);
  EXPECT_EQ(cl->intermediate_size, 22016);
  EXPECT_EQ(cl->max_position_embeddings, 16384);
  const Model* mx = c.find_model("mistralai/Mixtral-8x7B-v0.1");
  EXPECT_EQ(mx->moe.num_experts, 8);
  EXPECT_EQ(mx->moe.experts_per_token, 2);
  EXPECT_EQ(mx->moe.expert_intermediate_size, 14336);
  const Model* mx22 = c.find_model("mistralai/Mixtral-8x22B-v0.1");
  ASSERT_NE(mx22, nullptr);
  EXPECT_EQ(mx22->num_hidden_layers, 56);
  EXPECT_EQ(mx22->moe.expert_intermediate_size, 16384);
  EXPECT_EQ(mx22->vocab_size, 32000);
  const Model* mx22i = c.find_model("mistralai/Mixtral-8x22B-Instruct-v0.1");
  ASSERT_NE(mx22i, nullptr);
  EXPECT_EQ(mx22i->vocab_size, 32768);  // the v3 tokenizer
  const Model* q14 = c.find_model("Qwen/Qwen3-14B");
  ASSERT_NE(q14, nullptr);
  EXPECT_EQ(q14->num_hidden_layers, 40);
  EXPECT_EQ(q14->intermediate_size, 17408);
  EXPECT_TRUE(q14->qk_norm);
  // head_dim from the config where it differs from hidden / heads.
  EXPECT_EQ(c.find_model("Qwen/Qwen3-32B")->head_dim, 128);                        // 5120 / 64 = 80
  EXPECT_EQ(c.find_model("mistralai/Mistral-Nemo-Instruct-2407")->head_dim, 128);  // 160
  EXPECT_EQ(c.find_model("openai/gpt-oss-120b")->head_dim, 64);                    // 2880 / 64 = 45
  const Model* ds = c.find_model("deepseek-ai/DeepSeek-V3");
  EXPECT_TRUE(ds->is_mla());
  EXPECT_EQ(ds->mla.kv_lora_rank + ds->mla.qk_rope_head_dim, 576);
  EXPECT_EQ(ds->moe.first_dense_layers, 3);
  EXPECT_FALSE(ds->layer_is_moe(2));
  EXPECT_TRUE(ds->layer_is_moe(3));
  const Model* oss = c.find_model("openai/gpt-oss-20b");
  EXPECT_EQ(oss->layer_attention_kind(0), AttentionKind::kSliding);
  EXPECT_EQ(oss->layer_attention_kind(1), AttentionKind::kFull);
  EXPECT_EQ(oss->quantization.method, "mxfp4");
  EXPECT_TRUE(oss->quantization.applies_to("experts"));
  EXPECT_FALSE(oss->quantization.applies_to("attention"));
  EXPECT_TRUE(c.find_model("Qwen/Qwen2.5-7B-Instruct")->attention_bias);
}

TEST(CatalogBuiltin, GpuFactsKeepVendorAndDeviceMemoryApart) {
  const Gpu* h100 = Catalog::builtin().find_gpu("H100-SXM-80GB");
  EXPECT_EQ(h100->memory_bytes, 80000000000);
  EXPECT_EQ(h100->usable_memory_bytes, 84944093184);  // 79.11 GiB
  EXPECT_DOUBLE_EQ(h100->bf16_dense_tflops, 989.5);
  EXPECT_DOUBLE_EQ(Catalog::builtin().find_gpu("L40S-48GB")->fp8_dense_tflops, 733);  // dense
  EXPECT_EQ(Catalog::builtin().find_gpu("A100-SXM-80GB")->fp8_dense_tflops, 0);
}

TEST(CatalogBuiltin, CoefficientsFallBackToDefault) {
  const Catalog& c = Catalog::builtin();
  EXPECT_TRUE(c.has_measured_coefficients("H100-SXM-80GB"));
  EXPECT_DOUBLE_EQ(c.gpu_coefficients("H100-SXM-80GB").gemm_bf16.m_half, 160);
  // Every built-in GPU has an entry of its own (catalog/coefficients); an inline GPU without one
  // falls back to "default".
  for (const auto& id : c.gpu_ids()) EXPECT_TRUE(c.has_measured_coefficients(id)) << id;
  EXPECT_FALSE(c.has_measured_coefficients("inline-gpu"));
  EXPECT_EQ(c.gpu_coefficients("inline-gpu").id, "default");
}

TEST(CatalogInline, CopyAddsAndReplacesWithoutTouchingTheBuiltin) {
  Catalog c = Catalog::builtin();
  const std::string gpu = R"({
    "id": "H100-SXM-80GB", "name": "H100 with more memory", "vendor": "nvidia",
    "memory_bytes": 96000000000, "usable_memory_bytes": 96000000000,
    "hbm_bandwidth_bytes_per_s": 3.35e12, "bf16_dense_tflops": 989.5, "fp8_dense_tflops": 1979,
    "sm_count": 132,
    "scale_up": {"fabric": "nvlink4", "bandwidth_bytes_per_s": 450e9},
    "host_link": {"fabric": "pcie-gen5", "bandwidth_bytes_per_s": 64e9},
    "source": "test"})";
  EXPECT_TRUE(c.add_inline(Kind::kGpu, gpu, "/catalog/gpus/0").empty());
  EXPECT_EQ(c.find_gpu("H100-SXM-80GB")->usable_memory_bytes, 96000000000);
  EXPECT_EQ(c.entry_origin(Kind::kGpu, "H100-SXM-80GB"), "inline");
  EXPECT_EQ(Catalog::builtin().find_gpu("H100-SXM-80GB")->usable_memory_bytes, 84944093184);
  EXPECT_EQ(Catalog::builtin().entry_origin(Kind::kGpu, "H100-SXM-80GB"),
            "gpus/H100-SXM-80GB.json");

  std::string fabric = R"({"id": "ib-xdr", "name": "IB XDR", "scope": "scale-out",
    "bandwidth_bytes_per_s": 100e9, "latency_us": 5, "efficiency": 0.9, "source": "test"})";
  EXPECT_TRUE(c.add_inline(Kind::kFabric, fabric, "/catalog/fabrics/0").empty());
  EXPECT_NE(c.find_fabric("ib-xdr"), nullptr);
  EXPECT_EQ(Catalog::builtin().find_fabric("ib-xdr"), nullptr);
}

TEST(CatalogInline, InvalidEntryIsNotAdded) {
  Catalog c = Catalog::builtin();
  const Diagnostics d = c.add_inline(Kind::kFabric, R"({"id": "x"})", "/catalog/fabrics/3");
  ASSERT_FALSE(d.empty());
  EXPECT_EQ(d.front().pointer, "/catalog/fabrics/3/name");
  EXPECT_EQ(c.find_fabric("x"), nullptr);
}

// The "did you mean" of an unknown model id (util/did_you_mean.h) finds it by its short name.
TEST(ClosestIds, FindsModelsByTheirShortName) {
  const auto near = closest_ids("Llama-3.1-8B", Catalog::builtin().model_ids());
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near.front(), "meta-llama/Llama-3.1-8B-Instruct");
  // A short name whose words are in the id, not as one substring (`blis catalog show
  // llama-8b` used to suggest GPUs and fabrics).
  const auto all = Catalog::builtin();
  std::vector<std::string> ids = all.gpu_ids();
  for (const auto& v : {all.model_ids(), all.fabric_ids()})
    ids.insert(ids.end(), v.begin(), v.end());
  for (const auto& id : closest_ids("llama-8b", ids)) {
    EXPECT_NE(id.find("Llama"), std::string::npos) << id;
    EXPECT_NE(id.find("8B"), std::string::npos) << id;
  }
}

}  // namespace
}  // namespace blis::catalog
