// Every schema rule, one failing example each: the error names the JSON pointer and the
// reason. Entries go through Catalog::add_inline, the run-time path; catalog_gen runs the same
// schema code at build time (see the catalog_gen_rejects_bad_entries test).
#include <functional>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"

namespace blis::catalog {
namespace {

using Mutation = std::function<void(nlohmann::json&)>;

Diagnostics add_mutated(Kind kind, const std::string& id, const Mutation& mutate) {
  Catalog c = Catalog::builtin();
  nlohmann::json j = nlohmann::json::parse(*c.entry_json(kind, id));
  mutate(j);
  return c.add_inline(kind, j.dump(), "/catalog/entries/0");
}

// The diagnostics contain one error at `pointer` whose message contains `reason`.
::testing::AssertionResult HasError(const Diagnostics& d, const std::string& pointer,
                                    const std::string& reason) {
  std::string all;
  for (const auto& x : d) {
    if (x.pointer == pointer && x.message.find(reason) != std::string::npos) {
      return ::testing::AssertionSuccess();
    }
    all += "\n  " + format_diagnostic(x);
  }
  return ::testing::AssertionFailure()
         << "no error at " << pointer << " containing \"" << reason << "\"; got:" << all;
}

const std::string kP = "/catalog/entries/0";

TEST(GpuSchema, Rules) {
  const std::string id = "H100-SXM-80GB";
  EXPECT_TRUE(add_mutated(Kind::kGpu, id, [](auto&) {}).empty());
  EXPECT_TRUE(HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j.erase("sm_count"); }),
                       kP + "/sm_count", "missing, expected"));
  EXPECT_TRUE(HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["sm_count"] = 0; }),
                       kP + "/sm_count", "0 is out of range, expected an integer >= 1"));
  EXPECT_TRUE(HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["sm_count"] = 1.5; }),
                       kP + "/sm_count", "1.5 is not a whole number, expected an integer >= 1"));
  EXPECT_TRUE(HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["name"] = 7; }), kP + "/name",
                       "7 is an integer, expected a non-empty string"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kGpu, id, [](auto& j) { j["vendor"] = "acme"; }), kP + "/vendor",
      R"("acme" is not one of the accepted values (accepted: "nvidia", "amd", "intel", "other"))"));
  EXPECT_TRUE(
      HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["hbm_bandwidth_bytes_per_s"] = 0; }),
               kP + "/hbm_bandwidth_bytes_per_s", "expected a number in [1000000, "));
  EXPECT_TRUE(HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["memory_gb"] = 80; }),
                       kP + "/memory_gb", "unknown key"));
  EXPECT_TRUE(HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["scale_up"] = "nvlink4"; }),
                       kP + "/scale_up", "expected an object"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kGpu, id, [](auto& j) { j["scale_up"].erase("bandwidth_bytes_per_s"); }),
      kP + "/scale_up/bandwidth_bytes_per_s", "missing, expected"));
  EXPECT_TRUE(
      HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["scale_up"]["fabric"] = "nvlnk4"; }),
               kP + "/scale_up/fabric", "unknown fabric \"nvlnk4\" (did you mean \"nvlink4\""));
  EXPECT_TRUE(HasError(add_mutated(Kind::kGpu, id, [](auto& j) { j["sources"]["/x"] = 3; }),
                       kP + "/sources/~1x", "expected a non-empty string"));
}

TEST(ModelSchema, Rules) {
  const std::string llama = "meta-llama/Llama-3.1-8B-Instruct";
  EXPECT_TRUE(add_mutated(Kind::kModel, llama, [](auto&) {}).empty());
  EXPECT_TRUE(
      HasError(add_mutated(Kind::kModel, llama, [](auto& j) { j["num_key_value_heads"] = 5; }),
               kP + "/num_key_value_heads", "must divide num_attention_heads (32), got 5"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kModel, llama, [](auto& j) { j["torch_dtype"] = "int8"; }),
      kP + "/torch_dtype",
      R"("int8" is not one of the accepted values (accepted: "bfloat16", "float16", "float32"))"));
  EXPECT_TRUE(
      HasError(add_mutated(Kind::kModel, llama, [](auto& j) { j["intermediate_size"] = 0; }),
               kP + "/intermediate_size", "must be >= 1: the model has dense FFN layers"));
  EXPECT_TRUE(HasError(add_mutated(Kind::kModel, llama, [](auto& j) { j["head_dim"] = -1; }),
                       kP + "/head_dim", "-1 is out of range, expected an integer in [1, 4096]"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kModel, llama,
                  [](auto& j) {
                    j["layer_attention"] = {{"pattern", {"full", "local"}}, {"window", 4096}};
                  }),
      kP + "/layer_attention/pattern/1", "expected one of full, sliding, chunked"));
  EXPECT_TRUE(HasError(add_mutated(Kind::kModel, llama,
                                   [](auto& j) {
                                     j["layer_attention"] = {{"pattern", {"sliding"}}};
                                   }),
                       kP + "/layer_attention/window", "missing, expected"));
  const std::string mixtral = "mistralai/Mixtral-8x7B-v0.1";
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kModel, mixtral, [](auto& j) { j["moe"]["experts_per_token"] = 9; }),
      kP + "/moe/experts_per_token", "must not exceed num_experts (8), got 9"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kModel, mixtral, [](auto& j) { j["moe"]["num_shared_experts"] = 1; }),
      kP + "/moe/shared_expert_intermediate_size", "required when num_shared_experts > 0"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kModel, mixtral, [](auto& j) { j["moe"]["first_dense_layers"] = 32; }),
      kP + "/moe/first_dense_layers", "must be less than num_hidden_layers (32)"));
  const std::string oss = "openai/gpt-oss-20b";
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kModel, oss, [](auto& j) { j["quantization"]["scope"] = {"lm_head"}; }),
      kP + "/quantization/scope/0", "expected one of attention, dense_mlp, experts"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kModel, oss, [](auto& j) { j["quantization"]["method"] = "awq"; }),
      kP + "/quantization/method",
      R"("awq" is not one of the accepted values (accepted: "fp8", "int8", "int4", "mxfp4", "nvfp4")"));
  EXPECT_TRUE(
      HasError(add_mutated(Kind::kModel, oss,
                           [](auto& j) { j["quantization"]["weight_bytes_per_param"] = 0; }),
               kP + "/quantization/weight_bytes_per_param", "expected a number in (0, 4]"));
  EXPECT_TRUE(HasError(add_mutated(Kind::kModel, "deepseek-ai/DeepSeek-V3",
                                   [](auto& j) { j["mla"].erase("kv_lora_rank"); }),
                       kP + "/mla/kv_lora_rank", "missing, expected"));
}

TEST(FabricSchema, Rules) {
  EXPECT_TRUE(HasError(add_mutated(Kind::kFabric, "ib-ndr", [](auto& j) { j["efficiency"] = 1.2; }),
                       kP + "/efficiency", "1.2 is out of range, expected a number in [0.01, 1]"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kFabric, "ib-ndr", [](auto& j) { j["scope"] = "wan"; }), kP + "/scope",
      R"("wan" is not one of the accepted values (accepted: "scale-up", "scale-out", "host")"));
  EXPECT_TRUE(
      HasError(add_mutated(Kind::kFabric, "ib-ndr", [](auto& j) { j["latency_us"] = "fast"; }),
               kP + "/latency_us", "expected a number in [0, "));
}

TEST(CoefficientsSchema, Rules) {
  const std::string id = "H100-SXM-80GB";
  EXPECT_TRUE(add_mutated(Kind::kCoefficients, id, [](auto&) {}).empty());
  EXPECT_TRUE(HasError(add_mutated(Kind::kCoefficients, id, [](auto& j) { j["id"] = "H100"; }),
                       kP + "/id", "unknown GPU \"H100\" (did you mean \"H100-SXM-80GB\""));
  EXPECT_TRUE(HasError(add_mutated(Kind::kCoefficients, id, [](auto& j) { j.erase("kind"); }),
                       kP + "/kind", "missing, expected"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kCoefficients, id, [](auto& j) { j["gemm"]["bf16"]["eps_max"] = 1.5; }),
      kP + "/gemm/bf16/eps_max", "1.5 is out of range, expected a number in (0, 1]"));
  EXPECT_TRUE(HasError(
      add_mutated(Kind::kCoefficients, id, [](auto& j) { j["moe"]["routing_imbalance"] = 0.5; }),
      kP + "/moe/routing_imbalance", "expected a number in [1, "));
  EXPECT_TRUE(HasError(add_mutated(Kind::kCoefficients, "vllm-memory",
                                   [](auto& j) { j["cuda_graphs"]["in_budget"] = "yes"; }),
                       kP + "/cuda_graphs/in_budget", "expected true or false"));
}

TEST(EntrySchema, NotJsonOrNotAnObject) {
  Catalog c = Catalog::builtin();
  EXPECT_TRUE(HasError(c.add_inline(Kind::kModel, "{\"id\": ", kP), kP, "not valid JSON"));
  EXPECT_TRUE(HasError(c.add_inline(Kind::kModel, "[1, 2]", kP), kP, "expected an object"));
}

TEST(EntrySchema, AnInlineCoefficientsEntryTunesAGpuWithoutCode) {
  Catalog c = Catalog::builtin();
  const double builtin = Catalog::builtin().gpu_coefficients("H100-SXM-80GB").hbm_derate;
  ASSERT_NE(builtin, 0.7);
  nlohmann::json j = nlohmann::json::parse(*c.entry_json(Kind::kCoefficients, "H100-SXM-80GB"));
  j["memory"]["hbm_derate"] = 0.7;
  ASSERT_TRUE(c.add_inline(Kind::kCoefficients, j.dump(), kP).empty());
  EXPECT_DOUBLE_EQ(c.gpu_coefficients("H100-SXM-80GB").hbm_derate, 0.7);
  EXPECT_DOUBLE_EQ(Catalog::builtin().gpu_coefficients("H100-SXM-80GB").hbm_derate, builtin);
}

}  // namespace
}  // namespace blis::catalog
