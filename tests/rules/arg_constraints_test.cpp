// Every constraint of vLLM's config classes (8d9b52f7, release 0.32.0) on every argument
// the packs read, at its boundary: the last accepted value passes with no error (here), the
// first refused one fails at its JSON pointer with vLLM's reason (arg_refused_test.cpp).
// Older packs where they differ. Every row cites the vLLM source line that decides it.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "facts.h"
#include "resolve_args.h"
#include "rules/json_fields.h"
#include "rules/rules.h"

namespace blis::rules {
namespace {

using ::blis::testing::all_diagnostics;
using nlohmann::json;
using testing::deployment;
using testing::resolve;

// Sources are files of upstream vLLM (vllm/...) at 8d9b52f7 with their line, unless a row
// names an older release's rule.
struct Accepted {
  const char* name;
  const char* release;
  const char* args;
  const char* source;
};

void PrintTo(const Accepted& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Accepted> accepted() {
  return {
      {"mml_one", "0.32.0",
       R"({"max_model_len": 1, "max_num_seqs": 1, "max_num_batched_tokens": 1})",
       "config/model.py:210 ModelConfig.max_model_len Field(ge=-1); config/scheduler.py:49,63 "
       "Field(ge=1)"},
      {"mml_derived", "0.32.0", R"({"max_model_len": 131072})",
       "config/model.py:1953 get_and_verify_max_len (<= the derived maximum)"},
      {"mml_minus_one", "0.32.0", R"({"max_model_len": -1})",
       "config/model.py:210 Field(ge=-1); -1 fits to memory (v1/core/kv_cache_utils.py "
       "_auto_fit_max_model_len)"},
      {"mml_auto", "0.32.0", R"({"max_model_len": "auto"})",
       "utils/argparse_utils.py:88 human_readable_int_or_auto: \"auto\" -> -1"},
      {"mml_auto_any_case", "0.31.0", R"({"max_model_len": " Auto "})",
       "utils/argparse_utils.py:88 value.lower() == \"auto\""},
      {"mml_minus_one_string", "0.29.x", R"({"max_model_len": "-1"})",
       "utils/argparse_utils.py:88 value == \"-1\""},
      {"mml_decimal_k", "0.32.0", R"({"max_model_len": "25.6k"})",
       "utils/argparse_utils.py:29 human_readable_int (decimal with a suffix)"},
      {"seqs_one", "0.32.0", R"({"max_num_seqs": 1})",
       "config/scheduler.py:63 max_num_seqs Field(ge=1)"},
      {"mnbt_equals_seqs", "0.32.0", R"({"max_num_seqs": 256, "max_num_batched_tokens": 256})",
       "config/scheduler.py:264 verify_max_model_len (mnbt >= max_num_seqs)"},
      {"block_16", "0.32.0", R"({"block_size": 16})",
       "config/cache.py:49 block_size Field(gt=0); v1/attention/backends/flash_attn.py:89 "
       "MultipleOf(16)"},
      // vLLM's CLI and pydantic's lax mode read numbers written as strings.
      {"numeric_strings", "0.32.0",
       R"({"block_size": "32", "max_num_seqs": " 64 ", "gpu_memory_utilization": "0.8"})",
       "pydantic lax int/float (pydantic-core shared.rs str_as_int, str_as_float)"},
      {"block_48", "0.32.0", R"({"block_size": 48})",
       "v1/attention/backends/flash_attn.py:89 MultipleOf(16)"},
      {"gmu_one", "0.32.0", R"({"gpu_memory_utilization": 1})",
       "config/cache.py:68 gpu_memory_utilization Field(gt=0, le=1)"},
      {"gmu_tiny", "0.32.0", R"({"gpu_memory_utilization": 0.0001})",
       "config/cache.py:68 Field(gt=0, le=1)"},
      {"kv_bytes_zero_is_unset", "0.32.0", R"({"kv_cache_memory_bytes": 0})",
       "v1/worker/gpu_worker.py:475 `if kv_cache_memory_bytes :=` (0 is unset)"},
      {"blocks_override_one", "0.32.0", R"({"num_gpu_blocks_override": 1})",
       "config/cache.py:87 num_gpu_blocks_override; v1/core/kv_cache_utils.py:947"},
      {"threshold_zero", "0.32.0", R"({"long_prefill_token_threshold": 0})",
       "config/scheduler.py:70 long_prefill_token_threshold Field(ge=0)"},
      {"threshold_at_mml", "0.32.0",
       R"({"long_prefill_token_threshold": 8192, "max_model_len": 8192})",
       "config/scheduler.py:279 verify_max_model_len (threshold <= max_model_len)"},
      {"threshold_above_mml_without_partial", "0.31.0",
       R"({"long_prefill_token_threshold": 9000, "max_model_len": 8192})",
       "scheduler.py verify_max_model_len before PR #49244 (only with partial prefills)"},
      {"partial_prefills_0_31", "0.31.0",
       R"({"max_num_partial_prefills": 2, "max_long_partial_prefills": 2})",
       "scheduler.py max_num_partial_prefills before PR #49244 (2026-07-21)"},
      {"max_logprobs_minus_one", "0.32.0", R"({"max_logprobs": -1})",
       "config/model.py:244 max_logprobs Field(ge=-1)"},
      {"max_logprobs_0_31_unchecked", "0.31.0", R"({"max_logprobs": -2})",
       "config/model.py max_logprobs before PR #44070 (2026-06-30): no bound"},
      {"max_loras_one", "0.32.0", R"({"enable_lora": true, "max_loras": 1})",
       "config/lora.py:37 max_loras Field(ge=1)"},
      {"max_loras_zero_without_lora", "0.32.0", R"({"max_loras": 0})",
       "engine/arg_utils.py:2328 LoRAConfig only `if self.enable_lora`"},
      {"cpu_loras_zero_is_unset", "0.32.0",
       R"({"enable_lora": true, "max_loras": 4, "max_cpu_loras": 0})",
       "engine/arg_utils.py:2340 max_cpu_loras if > 0 else None"},
      {"cpu_loras_negative_is_unset", "0.32.0", R"({"enable_lora": true, "max_cpu_loras": -3})",
       "engine/arg_utils.py:2340 max_cpu_loras if > 0 else None"},
      {"cpu_loras_equal", "0.32.0", R"({"enable_lora": true, "max_loras": 4, "max_cpu_loras": 4})",
       "config/lora.py:117 _validate_lora_config (max_cpu_loras >= max_loras)"},
      {"lora_rank_512", "0.32.0", R"({"enable_lora": true, "max_lora_rank": 512})",
       "config/lora.py:27 MaxLoRARanks"},
      {"quantization_upper_case", "0.32.0", R"({"quantization": "FP8_PER_TENSOR"})",
       "config/model.py:913 validate_quantization_before (lower-cased)"},
      {"kv_dtype_nvfp4", "0.32.0", R"({"kv_cache_dtype": "nvfp4"})",
       "config/cache.py:35 CacheDType \"nvfp4\" (a non-MLA model)"},
      {"spec_one_token", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 1}})",
       "config/speculative.py:90 num_speculative_tokens Field(gt=0)"},
      {"spec_eagle_with_model", "0.32.0",
       R"({"speculative_config": {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}})",
       "config/speculative.py:68 SpeculativeMethod; __post_init__"},
      {"spec_draft_model", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 3}})",
       "config/speculative.py:705 __post_init__"},
      {"spec_method_inferred", "0.32.0",
       R"({"speculative_config": {"model": "meta-llama/Llama-3.2-1B-Instruct", "num_speculative_tokens": 2}})",
       "config/speculative.py:721 method None -> draft_model"},
      {"spec_mtp_without_model", "0.32.0",
       R"({"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}})",
       "config/speculative.py:731 mtp uses the target's model"},
      {"spec_suffix_defaults_k", "0.32.0", R"({"speculative_config": {"method": "suffix"}})",
       "config/speculative.py:1147 _validate_suffix_decoding: k = suffix_decoding_max_tree_depth"},
      {"spec_lookup_equal", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 3, "prompt_lookup_max": 3}})",
       "config/speculative.py:799 prompt_lookup_min <= prompt_lookup_max"},
      {"lora_spec_budget_exact", "0.32.0",
       R"({"enable_lora": true, "max_num_seqs": 256, "max_num_batched_tokens": 1024,
           "speculative_config": {"method": "ngram", "num_speculative_tokens": 3}})",
       "engine/arg_utils.py:2348 mnbt >= max_num_seqs * (k + 1)"},
      {"draft_slots_one_left", "0.32.0",
       R"({"max_num_seqs": 256, "max_num_batched_tokens": 257,
           "speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 1}})",
       "config/vllm.py:1755 _set_max_num_scheduled_tokens (> 0 left)"},
      {"scheduled_tokens_one", "0.32.0", R"({"max_num_scheduled_tokens": 1})",
       "config/scheduler.py:56 max_num_scheduled_tokens Field(ge=0)"},
      {"scheduled_tokens_human", "0.32.0", R"({"max_num_scheduled_tokens": "1k"})",
       "engine/arg_utils.py:366 human_readable_int_args"},
      {"scheduled_tokens_null", "0.32.0", R"({"max_num_scheduled_tokens": null})",
       "config/scheduler.py:56 int | None (None = max_num_batched_tokens)"},
      {"scheduled_tokens_draft_slots_exact", "0.32.0",
       R"({"max_num_seqs": 256, "max_num_batched_tokens": 8448, "max_num_scheduled_tokens": 8192,
           "speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 1}})",
       "config/vllm.py:1794 mnbt >= mnst + max_num_new_slots_for_drafting x max_num_seqs"},
      {"fp8_online_0_32", "0.32.0", R"({"quantization": "fp8"})",
       "model_executor/layers/quantization/fp8.py Fp8Config.get_quant_method (online per tensor)"},
      // pydantic's lax bool (pydantic-core src/input/shared.rs str_as_bool, int_as_bool;
      // input_python.rs lax_bool: 0.0 and 1.0 too).
      {"bool_strings_lax", "0.32.0",
       R"({"enable_prefix_caching": "yes", "enable_chunked_prefill": "TRUE", "enforce_eager": "off", "scheduler_reserve_full_isl": "t", "async_scheduling": "0"})",
       "pydantic-core shared.rs str_as_bool (config/utils.py:51 pydantic dataclasses)"},
      {"bool_numbers_lax", "0.32.0", R"({"enable_prefix_caching": 1, "enforce_eager": 0.0})",
       "pydantic-core shared.rs int_as_bool; input_python.rs lax_bool (float_as_int)"},
      {"watermark_below_one", "0.32.0", R"({"watermark": 0.999})",
       "config/scheduler.py:136 watermark Field(ge=0.0, lt=1.0)"},
      {"spec_fields", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 2,
           "draft_tensor_parallel_size": 1, "max_model_len": 4096, "quantization": "fp8", "revision": "main",
           "code_revision": "main", "enforce_eager": "true", "parallel_drafting": false,
           "use_local_argmax_reduction": true, "kv_cache_dtype": "fp8", "draft_sample_method": "probabilistic",
           "rejection_sample_method": "synthetic", "synthetic_acceptance_length": 2.5}})",
       "config/speculative.py:87-234 SpeculativeConfig fields; :1359 _verify_args (synthetic)"},
      {"spec_synthetic_rates", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 3,
           "rejection_sample_method": "synthetic", "synthetic_acceptance_rates": [0.9, 0.9, 0.4]}})",
       "config/speculative.py:251 _resolve_synthetic_acceptance_rates"},
      {"spec_suffix_fields", "0.32.0",
       R"({"speculative_config": {"method": "suffix", "suffix_decoding_max_tree_depth": 8,
           "suffix_decoding_max_cached_requests": 0, "suffix_decoding_max_spec_factor": 0,
           "suffix_decoding_min_token_prob": 1}})",
       "config/speculative.py:1140 _validate_suffix_decoding"},
      {"spec_suffix_fields_unchecked_for_ngram", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "suffix_decoding_max_tree_depth": 0}})",
       "config/speculative.py:809 _validate_suffix_decoding only for method suffix"},
      {"spec_dspark_topk_unchecked_for_ngram", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "dspark_draft_topk": 4}})",
       "config/speculative.py:1063 checked in the draft-model branch only"},
      {"spec_heterogeneous_vocab", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 2, "use_heterogeneous_vocab": true}})",
       "config/speculative.py:1380 _verify_args (draft_model, greedy)"},
      {"kv_transfer_fields_unbounded", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_port": 70000,
           "kv_rank": -1, "kv_parallel_size": 0, "kv_load_failure_policy": "recompute", "enable_permute_local_kv": "no"}})",
       "config/kv_transfer.py:26-69 KVTransferConfig (plain int fields, Literal policy)"},
      {"ignored_typed", "0.32.0",
       R"({"seed": "7", "trust_remote_code": "true", "kv_cache_metrics_sample": 1})",
       "config/model.py:166,179 ModelConfig; config/observability.py:53 Field(gt=0, le=1)"},
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

TEST(ResolvedValues, SpeculativeFieldsThatDecide) {
  // config/speculative.py:1147: suffix decoding's k is suffix_decoding_max_tree_depth.
  EXPECT_EQ(resolve("0.32.0", R"({"speculative_config": {"method": "suffix",
                "suffix_decoding_max_tree_depth": 8}})")
                .args.speculative_config->num_speculative_tokens,
            8);
  // config/vllm.py:1138: disable_padded_drafter_batch turns an unset async_scheduling off.
  const Resolved r = resolve("0.32.0", R"({"speculative_config": {"method": "eagle",
      "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 2,
      "disable_padded_drafter_batch": true}})");
  EXPECT_FALSE(has_errors(r.diagnostics)) << all_diagnostics(r.diagnostics);
  EXPECT_FALSE(r.args.async_scheduling);
  // Lax bools keep their meaning: "off" is false, "yes" is true.
  const Resolved b = resolve("0.32.0", R"({"enable_prefix_caching": "off", "enforce_eager": "Y"})");
  EXPECT_FALSE(b.args.enable_prefix_caching);
  EXPECT_TRUE(b.args.enforce_eager);
}

// Every key an ArgSpec describes is one the reader knows, so the table cannot list an
// argument that is never checked.
TEST(ArgSpecs, DescribeOnlyKeysTheReaderKnows) {
  for (const auto& release : known_releases()) {
    for (const auto& a : find_pack(release)->args) {
      std::string key = a.key;
      if (key == "speculative_config.(other fields)") continue;  // a summary row of the docs
      // "<object>.<field>": a field of a config object the pack reads (read_typed.cpp).
      if (const auto dot = key.rfind('.');
          dot != std::string::npos && key.rfind("speculative_config.", 0) != 0) {
        const ArgSpec* parent = find_pack(release)->arg(key.substr(0, dot));
        ASSERT_NE(parent, nullptr) << release << ": " << a.key;
        const auto& fields = parent->object_keys;
        EXPECT_NE(std::find(fields.begin(), fields.end(), key.substr(dot + 1)), fields.end())
            << release << ": " << a.key;
        continue;
      }
      const std::vector<std::string>* keys = &accepted_arg_keys();
      if (key.rfind("speculative_config.", 0) == 0) {
        key = key.substr(std::string("speculative_config.").size());
        keys = &accepted_speculative_keys();
      }
      const auto& unmodelled = find_pack(release)->unmodelled_args;
      const bool parallel = key == "tensor_parallel_size" || key == "pipeline_parallel_size" ||
                            key == "data_parallel_size";
      const bool known = std::find(keys->begin(), keys->end(), key) != keys->end() ||
                         std::find(ignored_arg_keys().begin(), ignored_arg_keys().end(), key) !=
                             ignored_arg_keys().end() ||
                         parallel ||
                         (a.unmodelled &&
                          std::find(unmodelled.begin(), unmodelled.end(), key) != unmodelled.end());
      EXPECT_TRUE(known) << release << ": " << a.key;
      if (a.type == "int") {
        EXPECT_LE(a.int_min, a.int_max) << a.key;
      }
    }
  }
}

}  // namespace
}  // namespace blis::rules
