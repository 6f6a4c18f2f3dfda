// Every constraint of vLLM's config classes (8d9b52f7, release 0.32.0) on every argument
// the packs read, at its boundary: the last accepted value passes with no error, the first
// refused one fails at its JSON pointer with vLLM's reason. Older packs where they differ.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "facts.h"
#include "rules/json_fields.h"
#include "rules/rules.h"

namespace blis::rules {
namespace {

using nlohmann::json;
using testing::deployment;

constexpr const char* kArgs = "/pools/0/engine/args";

using ::blis::testing::all_diagnostics;

Resolved resolve(const std::string& release, const std::string& args,
                 const DeploymentFacts& f = deployment()) {
  const Pack* p = find_pack(release);
  EXPECT_NE(p, nullptr) << release;
  return resolve_engine_args(*p, json::parse(args), kArgs, f);
}

struct Accepted {
  const char* name;
  const char* release;
  const char* args;
};

void PrintTo(const Accepted& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Accepted> accepted() {
  return {
      {"mml_one", "0.32.0",
       R"({"max_model_len": 1, "max_num_seqs": 1, "max_num_batched_tokens": 1})"},
      {"mml_derived", "0.32.0", R"({"max_model_len": 131072})"},
      {"mml_minus_one", "0.32.0", R"({"max_model_len": -1})"},
      {"mml_auto", "0.32.0", R"({"max_model_len": "auto"})"},
      {"mml_auto_any_case", "0.31.0", R"({"max_model_len": " Auto "})"},
      {"mml_minus_one_string", "0.29.x", R"({"max_model_len": "-1"})"},
      {"mml_decimal_k", "0.32.0", R"({"max_model_len": "25.6k"})"},
      {"seqs_one", "0.32.0", R"({"max_num_seqs": 1})"},
      {"mnbt_equals_seqs", "0.32.0", R"({"max_num_seqs": 256, "max_num_batched_tokens": 256})"},
      {"block_16", "0.32.0", R"({"block_size": 16})"},
      // vLLM's CLI and pydantic's lax mode read numbers written as strings.
      {"numeric_strings", "0.32.0",
       R"({"block_size": "32", "max_num_seqs": " 64 ", "gpu_memory_utilization": "0.8"})"},
      {"block_48", "0.32.0", R"({"block_size": 48})"},
      {"gmu_one", "0.32.0", R"({"gpu_memory_utilization": 1})"},
      {"gmu_tiny", "0.32.0", R"({"gpu_memory_utilization": 0.0001})"},
      {"kv_bytes_zero_is_unset", "0.32.0", R"({"kv_cache_memory_bytes": 0})"},
      {"blocks_override_one", "0.32.0", R"({"num_gpu_blocks_override": 1})"},
      {"threshold_zero", "0.32.0", R"({"long_prefill_token_threshold": 0})"},
      {"threshold_at_mml", "0.32.0",
       R"({"long_prefill_token_threshold": 8192, "max_model_len": 8192})"},
      {"threshold_above_mml_without_partial", "0.31.0",
       R"({"long_prefill_token_threshold": 9000, "max_model_len": 8192})"},
      {"partial_prefills_0_31", "0.31.0",
       R"({"max_num_partial_prefills": 2, "max_long_partial_prefills": 2})"},
      {"max_logprobs_minus_one", "0.32.0", R"({"max_logprobs": -1})"},
      {"max_logprobs_0_31_unchecked", "0.31.0", R"({"max_logprobs": -2})"},
      {"max_loras_one", "0.32.0", R"({"enable_lora": true, "max_loras": 1})"},
      {"max_loras_zero_without_lora", "0.32.0", R"({"max_loras": 0})"},
      {"cpu_loras_zero_is_unset", "0.32.0",
       R"({"enable_lora": true, "max_loras": 4, "max_cpu_loras": 0})"},
      {"cpu_loras_negative_is_unset", "0.32.0", R"({"enable_lora": true, "max_cpu_loras": -3})"},
      {"cpu_loras_equal", "0.32.0", R"({"enable_lora": true, "max_loras": 4, "max_cpu_loras": 4})"},
      {"lora_rank_512", "0.32.0", R"({"enable_lora": true, "max_lora_rank": 512})"},
      {"quantization_upper_case", "0.32.0", R"({"quantization": "FP8_PER_TENSOR"})"},
      {"kv_dtype_nvfp4", "0.32.0", R"({"kv_cache_dtype": "nvfp4"})"},
      {"spec_one_token", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 1}})"},
      {"spec_eagle_with_model", "0.32.0",
       R"({"speculative_config": {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}})"},
      {"spec_draft_model", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 3}})"},
      {"spec_method_inferred", "0.32.0",
       R"({"speculative_config": {"model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 2}})"},
      {"spec_mtp_without_model", "0.32.0",
       R"({"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}})"},
      {"spec_suffix_defaults_k", "0.32.0", R"({"speculative_config": {"method": "suffix"}})"},
      {"spec_lookup_equal", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 3, "prompt_lookup_max": 3}})"},
      {"lora_spec_budget_exact", "0.32.0",
       R"({"enable_lora": true, "max_num_seqs": 256, "max_num_batched_tokens": 1024,
           "speculative_config": {"method": "ngram", "num_speculative_tokens": 3}})"},
      {"draft_slots_one_left", "0.32.0",
       R"({"max_num_seqs": 256, "max_num_batched_tokens": 257,
           "speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 1}})"},
      {"fp8_online_0_32", "0.32.0", R"({"quantization": "fp8"})"},
  };
}

class AcceptedValues : public ::testing::TestWithParam<Accepted> {};

TEST_P(AcceptedValues, ResolveWithoutError) {
  const Accepted& c = GetParam();
  const Resolved r = resolve(c.release, c.args);
  EXPECT_FALSE(has_errors(r.diagnostics)) << c.args << "\n" << all_diagnostics(r.diagnostics);
}

INSTANTIATE_TEST_SUITE_P(Boundaries, AcceptedValues, ::testing::ValuesIn(accepted()),
                         [](const ::testing::TestParamInfo<Accepted>& i) {
                           return std::string(i.param.name);
                         });

struct Refused {
  const char* name;
  const char* release;
  const char* args;
  const char* pointer;  // below /pools/0/engine/args
  const char* message;  // substring of the error at the pointer
};

void PrintTo(const Refused& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Refused> refused() {
  return {
      {"mml_zero", "0.32.0", R"({"max_model_len": 0})", "/max_model_len",
       "max_model_len must be a positive integer, got int: 0"},
      {"mml_minus_two", "0.32.0", R"({"max_model_len": -2})", "/max_model_len", "Field(ge=-1)"},
      {"mml_above_derived", "0.32.0", R"({"max_model_len": 131073})", "/max_model_len",
       "above the model's derived max_model_len (131072)"},
      {"mml_word", "0.32.0", R"({"max_model_len": "fit"})", "/max_model_len", "is not an integer"},
      {"seqs_zero", "0.32.0", R"({"max_num_seqs": 0})", "/max_num_seqs", "Field(ge=1)"},
      {"mnbt_zero", "0.32.0", R"({"max_num_batched_tokens": 0})", "/max_num_batched_tokens",
       "Field(ge=1)"},
      {"mnbt_below_seqs", "0.32.0", R"({"max_num_seqs": 256, "max_num_batched_tokens": 255})",
       "/max_num_batched_tokens", "must be greater than or equal to max_num_seqs (256)"},
      {"block_zero", "0.32.0", R"({"block_size": 0})", "/block_size", "Field(gt=0)"},
      {"block_24", "0.32.0", R"({"block_size": 24})", "/block_size", "multiples of 16"},
      {"block_string_zero", "0.32.0", R"({"block_size": "0"})", "/block_size", "Field(gt=0)"},
      {"seqs_human_readable", "0.32.0", R"({"max_num_seqs": "1k"})", "/max_num_seqs",
       "is a string"},
      {"gmu_zero", "0.32.0", R"({"gpu_memory_utilization": 0})", "/gpu_memory_utilization",
       "Field(gt=0, le=1)"},
      {"gmu_above_one", "0.32.0", R"({"gpu_memory_utilization": 1.0001})",
       "/gpu_memory_utilization", "Field(gt=0, le=1)"},
      {"kv_bytes_negative", "0.32.0", R"({"kv_cache_memory_bytes": -1})", "/kv_cache_memory_bytes",
       "out of range"},
      {"blocks_override_zero", "0.32.0", R"({"num_gpu_blocks_override": 0})",
       "/num_gpu_blocks_override", "vLLM finds no memory for the cache with 0"},
      {"threshold_minus_one", "0.32.0", R"({"long_prefill_token_threshold": -1})",
       "/long_prefill_token_threshold", "Field(ge=0)"},
      {"threshold_above_mml", "0.32.0",
       R"({"long_prefill_token_threshold": 8193, "max_model_len": 8192})",
       "/long_prefill_token_threshold",
       "long_prefill_token_threshold (8193) cannot be greater than the max_model_len (8192)"},
      {"threshold_above_derived_auto", "0.32.0",
       R"({"long_prefill_token_threshold": 200000, "max_model_len": "auto"})",
       "/long_prefill_token_threshold", "cannot be greater than the max_model_len (131072)"},
      {"partial_prefills_removed", "0.32.0", R"({"max_num_partial_prefills": 2})",
       "/max_num_partial_prefills", "removed upstream on 2026-07-21 (PR #49244)"},
      {"long_partial_removed", "0.32.0", R"({"max_long_partial_prefills": 1})",
       "/max_long_partial_prefills", "unknown key"},
      {"partial_prefills_zero_0_31", "0.31.0", R"({"max_num_partial_prefills": 0})",
       "/max_num_partial_prefills", "Field(ge=1)"},
      {"max_logprobs_minus_two", "0.32.0", R"({"max_logprobs": -2})", "/max_logprobs",
       "Field(ge=-1)"},
      {"max_loras_zero", "0.32.0", R"({"enable_lora": true, "max_loras": 0})", "/max_loras",
       "Field(ge=1)"},
      {"cpu_loras_below", "0.32.0", R"({"enable_lora": true, "max_loras": 4, "max_cpu_loras": 3})",
       "/max_cpu_loras", "max_cpu_loras (3) must be >= max_loras (4)"},
      {"lora_rank_2", "0.32.0", R"({"max_lora_rank": 2})", "/max_lora_rank",
       "2 is not accepted by vLLM 0.32.0"},
      {"lora_spec_budget", "0.32.0",
       R"({"enable_lora": true, "max_num_seqs": 256, "max_num_batched_tokens": 1023,
           "speculative_config": {"method": "ngram", "num_speculative_tokens": 3}})",
       "/max_num_batched_tokens",
       "Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens"},
      {"draft_slots_none_left", "0.32.0",
       R"({"max_num_seqs": 256, "max_num_batched_tokens": 256,
           "speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 1}})",
       "/max_num_batched_tokens", "which does not allow any tokens to be scheduled"},
      {"kv_dtype_nvfp4_ds_mla", "0.32.0", R"({"kv_cache_dtype": "nvfp4_ds_mla"})",
       "/kv_cache_dtype", "is not accepted by vLLM 0.32.0"},
      {"quantization_gguf_0_32", "0.32.0", R"({"quantization": "gguf"})", "/quantization",
       "is not accepted by vLLM 0.32.0"},
      // gguf is still a method of 0.31.0: it is refused for the checkpoint, not as a name.
      {"quantization_gguf_0_31", "0.31.0", R"({"quantization": "gguf"})", "/quantization",
       "needs a checkpoint quantized with gguf"},
      {"quantization_number", "0.32.0", R"({"quantization": 8})", "/quantization", "is an integer"},
      {"dtype_bf16", "0.32.0", R"({"dtype": "bf16"})", "/dtype", "is not accepted"},
      {"policy", "0.32.0", R"({"scheduling_policy": "sjf"})", "/scheduling_policy",
       "is not accepted"},
      {"hash_algo", "0.32.0", R"({"prefix_caching_hash_algo": "md5"})", "/prefix_caching_hash_algo",
       "is not accepted"},
      {"performance_mode", "0.32.0", R"({"performance_mode": "latency"})", "/performance_mode",
       "is not accepted"},
      {"offloading_backend", "0.32.0", R"({"kv_offloading_backend": "mooncake"})",
       "/kv_offloading_backend", "is not accepted"},
      {"spec_zero_tokens", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 0}})",
       "/speculative_config/num_speculative_tokens", "Field(gt=0)"},
      {"spec_eagle_without_model", "0.32.0",
       R"({"speculative_config": {"method": "eagle", "num_speculative_tokens": 3}})",
       "/speculative_config/model",
       "num_speculative_tokens was provided but without speculative model"},
      {"spec_draft_model_without_model", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "num_speculative_tokens": 3}})",
       "/speculative_config/model", "without speculative model"},
      {"spec_no_method_no_model", "0.32.0",
       R"({"speculative_config": {"num_speculative_tokens": 3}})", "/speculative_config/model",
       "without speculative model"},
      {"spec_custom_class_without_model", "0.32.0",
       R"({"speculative_config": {"method": "custom_class", "num_speculative_tokens": 3}})",
       "/speculative_config/model", "method='custom_class' requires 'model'"},
      {"spec_mtp_without_tokens", "0.32.0", R"({"speculative_config": {"method": "mtp"}})",
       "/speculative_config/num_speculative_tokens", "num_speculative_tokens must be provided"},
      {"spec_method_never_upstream", "0.32.0",
       R"({"speculative_config": {"method": "glm5_next_mtp", "num_speculative_tokens": 1}})",
       "/speculative_config/method", "is not a speculative method of vLLM 0.32.0"},
      {"spec_lookup_zero", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 0}})",
       "/speculative_config/prompt_lookup_max", "Field(ge=1)"},
      {"spec_lookup_min_above_max", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 3}})",
       "/speculative_config/prompt_lookup_min", "must be <= prompt_lookup_max=3"},
      {"kv_role", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "both"}})",
       "/kv_transfer_config/kv_role", "Unsupported kv_role: both"},
  };
}

class RefusedValues : public ::testing::TestWithParam<Refused> {};

TEST_P(RefusedValues, FailAtThePointerWithVllmsReason) {
  const Refused& c = GetParam();
  const Resolved r = resolve(c.release, c.args);
  const std::string ptr = std::string(kArgs) + c.pointer;
  bool found = false;
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::kError && d.pointer == ptr &&
        d.message.find(c.message) != std::string::npos) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "expected an error at " << ptr << " containing: " << c.message << "\ngot:\n"
                     << all_diagnostics(r.diagnostics);
}

INSTANTIATE_TEST_SUITE_P(Boundaries, RefusedValues, ::testing::ValuesIn(refused()),
                         [](const ::testing::TestParamInfo<Refused>& i) {
                           return std::string(i.param.name);
                         });

TEST(ResolvedValues, FollowVllm) {
  // max_cpu_loras <= 0 is unset: max_loras (EngineArgs.create_engine_config).
  EXPECT_EQ(resolve("0.32.0", R"({"enable_lora": true, "max_loras": 3, "max_cpu_loras": 0})")
                .args.max_cpu_loras,
            3);
  // kv_cache_memory_bytes 0 is unset (Worker.determine_available_memory).
  EXPECT_FALSE(resolve("0.32.0", R"({"kv_cache_memory_bytes": 0})").args.kv_cache_memory_bytes);
  // -1 / "auto": the derived maximum until the decoder fits it to the KV cache.
  const Resolved a = resolve("0.32.0", R"({"max_model_len": "auto"})");
  EXPECT_TRUE(a.auto_fit_max_model_len);
  EXPECT_EQ(a.args.max_model_len, 131072);
  EXPECT_FALSE(resolve("0.32.0", R"({"max_model_len": 4096})").auto_fit_max_model_len);
  // MTP model types are replaced by "mtp"; suffix decoding defaults k to 24; a model whose
  // name says EAGLE-3 selects eagle3.
  const auto spec = [](const char* args) {
    return *resolve("0.32.0", args).args.speculative_config;
  };
  EXPECT_EQ(
      spec(R"({"speculative_config": {"method": "qwen3_next_mtp", "num_speculative_tokens": 1}})")
          .method,
      "mtp");
  EXPECT_EQ(spec(R"({"speculative_config": {"method": "suffix"}})").num_speculative_tokens, 24);
  EXPECT_EQ(
      spec(
          R"({"speculative_config": {"model": "AngelSlim/Qwen3-8B_eagle3", "num_speculative_tokens": 2}})")
          .method,
      "eagle3");
  EXPECT_EQ(
      spec(R"({"speculative_config": {"model": "my_pkg.MyProposer", "num_speculative_tokens": 2}})")
          .method,
      "custom_class");
  // 0.32.0 quantizes "fp8" online per tensor; the method is lower-cased first.
  EXPECT_EQ(resolve("0.32.0", R"({"quantization": "Fp8"})").args.quantization, "fp8_per_tensor");
  // An unset async_scheduling stays on with draft_model from PR #48341 (2026-08-06) on.
  const char* draft = R"({"speculative_config": {"method": "draft_model", "model": "m/small",
      "num_speculative_tokens": 2}, "max_num_batched_tokens": 16384})";
  EXPECT_TRUE(resolve("0.32.0", draft).args.async_scheduling);
  EXPECT_FALSE(resolve("0.31.0", draft).args.async_scheduling);
  // Before Field(ge=0) a negative threshold capped nothing: it is 0 (the engine refuses < 0).
  EXPECT_EQ(resolve("0.31.0", R"({"long_prefill_token_threshold": -5})")
                .args.long_prefill_token_threshold,
            0);
  // The older packs keep the partial-prefill default of the threshold.
  EXPECT_EQ(resolve("0.31.0", R"({"max_num_partial_prefills": 2, "max_model_len": 10000})")
                .args.long_prefill_token_threshold,
            400);
}

// Every key an ArgSpec describes is one the reader knows, so the table cannot list an
// argument that is never checked.
TEST(ArgSpecs, DescribeOnlyKeysTheReaderKnows) {
  for (const auto& release : known_releases()) {
    for (const auto& a : find_pack(release)->args) {
      std::string key = a.key;
      const std::vector<std::string>* keys = &accepted_arg_keys();
      if (key.rfind("speculative_config.", 0) == 0) {
        key = key.substr(std::string("speculative_config.").size());
        keys = &accepted_speculative_keys();
      }
      const bool known = std::find(keys->begin(), keys->end(), key) != keys->end() ||
                         std::find(ignored_arg_keys().begin(), ignored_arg_keys().end(), key) !=
                             ignored_arg_keys().end();
      EXPECT_TRUE(known) << release << ": " << a.key;
      if (a.type == "int") {
        EXPECT_LE(a.int_min, a.int_max) << a.key;
      }
    }
  }
}

}  // namespace
}  // namespace blis::rules
