// The refused half of the argument tables: the first value vLLM's config classes (8d9b52f7,
// release 0.32.0) refuse fails at its JSON pointer with vLLM's reason; each row cites the vLLM
// source line that refuses it. Older packs where they differ.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "facts.h"
#include "resolve_args.h"
#include "rules/rules.h"

namespace blis::rules {
namespace {

using ::blis::testing::all_diagnostics;
using testing::deployment;
using testing::has_error_at;
using testing::kArgs;
using testing::resolve;

// Sources are files of upstream vLLM (vllm/...) at 8d9b52f7 with their line, unless a row
// names an older release's rule.
struct Refused {
  const char* name;
  const char* release;
  const char* args;
  const char* pointer;  // below /pools/0/engine/args
  const char* message;  // substring of the error at the pointer
  const char* source;
};

void PrintTo(const Refused& c, std::ostream* os) {
  *os << c.name;
}

std::vector<Refused> refused() {
  return {
      {"mml_zero", "0.32.0", R"({"max_model_len": 0})", "/max_model_len",
       "max_model_len must be a positive integer, got int: 0",
       "config/model.py:929 validate_model_config_after: must be a positive integer"},
      {"mml_minus_two", "0.32.0", R"({"max_model_len": -2})", "/max_model_len", "Field(ge=-1)",
       "config/model.py:210 max_model_len Field(ge=-1)"},
      {"mml_above_derived", "0.32.0", R"({"max_model_len": 131073})", "/max_model_len",
       "above the model's derived max_model_len (131072)",
       "config/model.py:2469 _get_and_verify_max_len (VLLM_ALLOW_LONG_MAX_MODEL_LEN)"},
      {"mml_word", "0.32.0", R"({"max_model_len": "fit"})", "/max_model_len", "is not an integer",
       "utils/argparse_utils.py:75 human_readable_int_or_auto"},
      {"seqs_zero", "0.32.0", R"({"max_num_seqs": 0})", "/max_num_seqs", "Field(ge=1)",
       "config/scheduler.py:63 max_num_seqs Field(ge=1)"},
      {"mnbt_zero", "0.32.0", R"({"max_num_batched_tokens": 0})", "/max_num_batched_tokens",
       "Field(ge=1)", "config/scheduler.py:49 max_num_batched_tokens Field(ge=1)"},
      {"mnbt_below_seqs", "0.32.0", R"({"max_num_seqs": 256, "max_num_batched_tokens": 255})",
       "/max_num_batched_tokens", "must be greater than or equal to max_num_seqs (256)",
       "config/scheduler.py:264 verify_max_model_len"},
      {"block_zero", "0.32.0", R"({"block_size": 0})", "/block_size", "Field(gt=0)",
       "config/cache.py:49 block_size Field(gt=0)"},
      {"block_24", "0.32.0", R"({"block_size": 24})", "/block_size", "multiples of 16",
       "v1/attention/backends/flash_attn.py:89 MultipleOf(16)"},
      {"block_string_zero", "0.32.0", R"({"block_size": "0"})", "/block_size", "Field(gt=0)",
       "config/cache.py:49 Field(gt=0) after pydantic's lax int"},
      {"seqs_human_readable", "0.32.0", R"({"max_num_seqs": "1k"})", "/max_num_seqs",
       "is not a valid integer",
       "engine/arg_utils.py: max_num_seqs is a plain int (no human_readable_int); pydantic-core "
       "shared.rs str_as_int refuses \"1k\""},
      {"gmu_zero", "0.32.0", R"({"gpu_memory_utilization": 0})", "/gpu_memory_utilization",
       "Field(gt=0, le=1)", "config/cache.py:68 Field(gt=0, le=1)"},
      {"gmu_above_one", "0.32.0", R"({"gpu_memory_utilization": 1.0001})",
       "/gpu_memory_utilization", "Field(gt=0, le=1)", "config/cache.py:68 Field(gt=0, le=1)"},
      {"kv_bytes_negative", "0.32.0", R"({"kv_cache_memory_bytes": -1})", "/kv_cache_memory_bytes",
       "out of range", "config/cache.py:177 kv_cache_memory_bytes; v1/worker/gpu_worker.py:475"},
      {"blocks_override_zero", "0.32.0", R"({"num_gpu_blocks_override": 0})",
       "/num_gpu_blocks_override", "vLLM finds no memory for the cache with 0",
       "v1/core/kv_cache_utils.py:731 _check_enough_kv_cache_memory"},
      {"threshold_minus_one", "0.32.0", R"({"long_prefill_token_threshold": -1})",
       "/long_prefill_token_threshold", "Field(ge=0)",
       "config/scheduler.py:70 long_prefill_token_threshold Field(ge=0)"},
      {"threshold_above_mml", "0.32.0",
       R"({"long_prefill_token_threshold": 8193, "max_model_len": 8192})",
       "/long_prefill_token_threshold",
       "long_prefill_token_threshold (8193) cannot be greater than the max_model_len (8192)",
       "config/scheduler.py:279 verify_max_model_len"},
      {"threshold_above_derived_auto", "0.32.0",
       R"({"long_prefill_token_threshold": 200000, "max_model_len": "auto"})",
       "/long_prefill_token_threshold", "cannot be greater than the max_model_len (131072)",
       "config/scheduler.py:279 verify_max_model_len (with the derived length)"},
      {"partial_prefills_removed", "0.32.0", R"({"max_num_partial_prefills": 2})",
       "/max_num_partial_prefills", "removed upstream on 2026-07-21 (PR #49244)",
       "config/scheduler.py at 8d9b52f7: no such field (PR #49244); config/utils.py:69 "
       "extra=\"forbid\""},
      {"long_partial_removed", "0.32.0", R"({"max_long_partial_prefills": 1})",
       "/max_long_partial_prefills", "unknown key",
       "config/scheduler.py at 8d9b52f7: no such field (PR #49244)"},
      {"partial_prefills_zero_0_31", "0.31.0", R"({"max_num_partial_prefills": 0})",
       "/max_num_partial_prefills", "Field(ge=1)",
       "scheduler.py max_num_partial_prefills Field(ge=1) before PR #49244"},
      {"max_logprobs_minus_two", "0.32.0", R"({"max_logprobs": -2})", "/max_logprobs",
       "Field(ge=-1)", "config/model.py:244 max_logprobs Field(ge=-1)"},
      {"max_loras_zero", "0.32.0", R"({"enable_lora": true, "max_loras": 0})", "/max_loras",
       "Field(ge=1)", "config/lora.py:37 max_loras Field(ge=1)"},
      {"cpu_loras_below", "0.32.0", R"({"enable_lora": true, "max_loras": 4, "max_cpu_loras": 3})",
       "/max_cpu_loras", "max_cpu_loras (3) must be >= max_loras (4)",
       "config/lora.py:122 _validate_lora_config"},
      {"lora_rank_2", "0.32.0", R"({"max_lora_rank": 2})", "/max_lora_rank",
       "2 is not accepted by vLLM 0.32.0", "config/lora.py:27 MaxLoRARanks"},
      {"lora_spec_budget", "0.32.0",
       R"({"enable_lora": true, "max_num_seqs": 256, "max_num_batched_tokens": 1023,
           "speculative_config": {"method": "ngram", "num_speculative_tokens": 3}})",
       "/max_num_batched_tokens",
       "Consider increasing max_num_batched_tokens or decreasing num_speculative_tokens",
       "engine/arg_utils.py:2348 create_engine_config"},
      {"draft_slots_none_left", "0.32.0",
       R"({"max_num_seqs": 256, "max_num_batched_tokens": 256,
           "speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 1}})",
       "/max_num_batched_tokens", "which does not allow any tokens to be scheduled",
       "config/vllm.py:1755 _set_max_num_scheduled_tokens"},
      {"scheduled_tokens_negative", "0.32.0", R"({"max_num_scheduled_tokens": -1})",
       "/max_num_scheduled_tokens", "is out of range",
       "config/scheduler.py:56 max_num_scheduled_tokens Field(ge=0)"},
      {"scheduled_tokens_zero_spec", "0.32.0",
       R"({"max_num_scheduled_tokens": 0,
           "speculative_config": {"method": "ngram", "num_speculative_tokens": 2}})",
       "/max_num_scheduled_tokens", "which does not allow any tokens to be scheduled",
       "config/vllm.py:1774 _set_max_num_scheduled_tokens (<= 0)"},
      {"scheduled_tokens_no_draft_slots", "0.32.0",
       R"({"max_num_seqs": 256, "max_num_batched_tokens": 8448, "max_num_scheduled_tokens": 8193,
           "speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 1}})",
       "/max_num_scheduled_tokens", "It should be greater by at least 256",
       "config/vllm.py:1794 _set_max_num_scheduled_tokens (mnbt < mnst + slots)"},
      {"kv_dtype_nvfp4_ds_mla", "0.32.0", R"({"kv_cache_dtype": "nvfp4_ds_mla"})",
       "/kv_cache_dtype", "is not accepted by vLLM 0.32.0",
       "config/cache.py:19 CacheDType (no nvfp4_ds_mla)"},
      {"quantization_gguf_0_32", "0.32.0", R"({"quantization": "gguf"})", "/quantization",
       "is not accepted by vLLM 0.32.0",
       "model_executor/layers/quantization/__init__.py:12 QuantizationMethods (gguf a plugin since "
       "PR #39612)"},
      // gguf is still a method of 0.31.0: it is refused for the checkpoint, not as a name.
      {"quantization_gguf_0_31", "0.31.0", R"({"quantization": "gguf"})", "/quantization",
       "needs a checkpoint quantized with gguf",
       "model_executor/model_loader/weight_utils.py get_quant_config (needs a quantized "
       "checkpoint)"},
      {"quantization_number", "0.32.0", R"({"quantization": 8})", "/quantization", "is an integer",
       "config/model.py:225 quantization: QuantizationMethods | str | None"},
      {"dtype_bf16", "0.32.0", R"({"dtype": "bf16"})", "/dtype", "is not accepted",
       "config/model.py:100 ModelDType"},
      {"policy", "0.32.0", R"({"scheduling_policy": "sjf"})", "/scheduling_policy",
       "is not accepted", "config/scheduler.py:22 SchedulerPolicy"},
      {"hash_algo", "0.32.0", R"({"prefix_caching_hash_algo": "md5"})", "/prefix_caching_hash_algo",
       "is not accepted", "config/cache.py:39 PrefixCachingHashAlgo"},
      {"performance_mode", "0.32.0", R"({"performance_mode": "latency"})", "/performance_mode",
       "is not accepted", "config/vllm.py:119 PerformanceMode"},
      {"offloading_backend", "0.32.0", R"({"kv_offloading_backend": "mooncake"})",
       "/kv_offloading_backend", "is not accepted", "config/cache.py:40 KVOffloadingBackend"},
      {"spec_zero_tokens", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 0}})",
       "/speculative_config/num_speculative_tokens", "Field(gt=0)",
       "config/speculative.py:90 num_speculative_tokens Field(gt=0)"},
      {"spec_eagle_without_model", "0.32.0",
       R"({"speculative_config": {"method": "eagle", "num_speculative_tokens": 3}})",
       "/speculative_config/model",
       "num_speculative_tokens was provided but without speculative model",
       "config/speculative.py:770 __post_init__"},
      {"spec_draft_model_without_model", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "num_speculative_tokens": 3}})",
       "/speculative_config/model", "without speculative model",
       "config/speculative.py:770 __post_init__"},
      {"spec_no_method_no_model", "0.32.0",
       R"({"speculative_config": {"num_speculative_tokens": 3}})", "/speculative_config/model",
       "without speculative model",
       "config/speculative.py:723,770 method None -> draft_model, no model"},
      {"spec_custom_class_without_model", "0.32.0",
       R"({"speculative_config": {"method": "custom_class", "num_speculative_tokens": 3}})",
       "/speculative_config/model", "method='custom_class' requires 'model'",
       "config/speculative.py:765 __post_init__"},
      {"spec_mtp_without_tokens", "0.32.0", R"({"speculative_config": {"method": "mtp"}})",
       "/speculative_config/num_speculative_tokens", "num_speculative_tokens must be provided",
       "config/speculative.py:1348 _verify_args"},
      {"spec_method_never_upstream", "0.32.0",
       R"({"speculative_config": {"method": "glm5_next_mtp", "num_speculative_tokens": 1}})",
       "/speculative_config/method", "is not a speculative method of vLLM 0.32.0",
       "config/speculative.py:37,68 MTPModelTypes, SpeculativeMethod"},
      {"spec_lookup_zero", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 0}})",
       "/speculative_config/prompt_lookup_max", "Field(ge=1)",
       "config/speculative.py:159 prompt_lookup_max Field(ge=1)"},
      {"spec_lookup_min_above_max", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_min": 4, "prompt_lookup_max": 3}})",
       "/speculative_config/prompt_lookup_min", "must be <= prompt_lookup_max=3",
       "config/speculative.py:799 __post_init__"},
      {"kv_role", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "both"}})",
       "/kv_transfer_config/kv_role", "Unsupported kv_role: both",
       "config/kv_transfer.py:98 KVTransferConfig.__post_init__"},
      {"offloading_size_zero", "0.32.0", R"({"kv_offloading_size": 0})", "/kv_offloading_size",
       "a size in GiB > 0",
       "v1/kv_offload/cpu/spec.py:81 `if not cpu_bytes_to_use` raises (config/vllm.py:934)"},
      {"watermark_one", "0.32.0", R"({"watermark": 1})", "/watermark", "Field(ge=0.0, lt=1.0)",
       "config/scheduler.py:136 watermark Field(ge=0.0, lt=1.0)"},
      {"watermark_negative", "0.32.0", R"({"watermark": -0.01})", "/watermark",
       "Field(ge=0.0, lt=1.0)", "config/scheduler.py:136 watermark Field(ge=0.0, lt=1.0)"},
      {"bool_word", "0.32.0", R"({"enforce_eager": "maybe"})", "/enforce_eager",
       "is not a valid boolean", "pydantic-core shared.rs str_as_bool (bool_parsing)"},
      {"bool_two", "0.32.0", R"({"enable_prefix_caching": 2})", "/enable_prefix_caching",
       "is not a valid boolean", "pydantic-core shared.rs int_as_bool"},
      {"bool_padded", "0.32.0", R"({"enable_lora": " true"})", "/enable_lora",
       "is not a valid boolean", "pydantic-core shared.rs str_as_bool (no stripping)"},
      {"bool_half", "0.32.0", R"({"async_scheduling": 0.5})", "/async_scheduling",
       "is not a valid boolean", "pydantic-core input_python.rs lax_bool"},
      {"quantization_deprecated", "0.32.0", R"({"quantization": "fbgemm_fp8"})", "/quantization",
       "To bypass, set allow_deprecated_quantization: true",
       "config/model.py:1292 _verify_quantization; quantization/__init__.py:50"},
      {"quantization_deprecated_upper", "0.32.0", R"({"quantization": "FP_QUANT"})",
       "/quantization", "is deprecated",
       "config/model.py:913 (lower-cased), :1292 DEPRECATED_QUANTIZATION_METHODS"},
      {"allow_deprecated_word", "0.32.0", R"({"allow_deprecated_quantization": "sometimes"})",
       "/allow_deprecated_quantization", "is not a valid boolean",
       "config/model.py:235 allow_deprecated_quantization: bool"},
      {"spec_draft_tp_zero", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "draft_tensor_parallel_size": 0}})",
       "/speculative_config/draft_tensor_parallel_size", "Field(ge=1)",
       "config/speculative.py:104 draft_tensor_parallel_size Field(ge=1)"},
      {"spec_draft_tp_not_target", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 2, "draft_tensor_parallel_size": 2}})",
       "/speculative_config/draft_tensor_parallel_size",
       "cannot be other value than 1 or target model tensor_parallel_size",
       "config/speculative.py:1280 _verify_and_get_draft_tp"},
      {"spec_tensor_parallel_size", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "tensor_parallel_size": 1}})",
       "/speculative_config/tensor_parallel_size", "Please pass 'draft_tensor_parallel_size'",
       "config/speculative.py:1340 _verify_args"},
      {"spec_unknown_key", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "draft_tp": 1}})",
       "/speculative_config/draft_tp", "unknown key",
       "config/utils.py:69 @config: extra=\"forbid\""},
      {"spec_draft_max_model_len", "0.32.0",
       R"({"speculative_config": {"method": "draft_model", "model": "m/small", "num_speculative_tokens": 2, "max_model_len": 131073}})",
       "/speculative_config/max_model_len", "cannot be larger than target_max_model_len=131072",
       "config/speculative.py:1196 _maybe_override_draft_max_model_len"},
      {"spec_draft_max_model_len_zero", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "max_model_len": 0}})",
       "/speculative_config/max_model_len", "Field(ge=1)",
       "config/speculative.py:128 max_model_len Field(ge=1)"},
      {"spec_dspark_topk_not_dspark", "0.32.0",
       R"({"speculative_config": {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 2, "dspark_draft_topk": 4}})",
       "/speculative_config/dspark_draft_topk", "dspark_draft_topk is only supported by DSpark",
       "config/speculative.py:1064 __post_init__"},
      {"spec_suffix_depth_zero", "0.32.0",
       R"({"speculative_config": {"method": "suffix", "suffix_decoding_max_tree_depth": 0}})",
       "/speculative_config/suffix_decoding_max_tree_depth", "an integer >= 1",
       "config/speculative.py:1155 _validate_suffix_decoding"},
      {"spec_suffix_prob", "0.32.0",
       R"({"speculative_config": {"method": "suffix", "suffix_decoding_min_token_prob": 1.5}})",
       "/speculative_config/suffix_decoding_min_token_prob", "in [0, 1]",
       "config/speculative.py:1170 _validate_suffix_decoding"},
      {"spec_synthetic_without_method", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "synthetic_acceptance_length": 2}})",
       "/speculative_config/synthetic_acceptance_length",
       "only valid with rejection_sample_method='synthetic'",
       "config/speculative.py:1367 _verify_args"},
      {"spec_synthetic_both", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic",
           "synthetic_acceptance_length": 2, "synthetic_acceptance_rates": [0.5, 0.5]}})",
       "/speculative_config/rejection_sample_method", "requires exactly one of",
       "config/speculative.py:258 _resolve_synthetic_acceptance_rates"},
      {"spec_synthetic_rates_increasing", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic",
           "synthetic_acceptance_rates": [0.5, 0.7]}})",
       "/speculative_config/synthetic_acceptance_rates", "must be non-increasing",
       "config/speculative.py:273 _resolve_synthetic_acceptance_rates"},
      {"spec_synthetic_rates_length", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 3, "rejection_sample_method": "synthetic",
           "synthetic_acceptance_rates": [0.5, 0.4]}})",
       "/speculative_config/synthetic_acceptance_rates", "must have length 3",
       "config/speculative.py:264 _resolve_synthetic_acceptance_rates"},
      {"spec_synthetic_length_range", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "rejection_sample_method": "synthetic",
           "synthetic_acceptance_length": 4}})",
       "/speculative_config/synthetic_acceptance_length", "must be in [1, 3]",
       "config/speculative.py:279 _resolve_synthetic_acceptance_rates"},
      {"spec_rejection_literal", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "rejection_sample_method": "greedy"}})",
       "/speculative_config/rejection_sample_method", "is not a RejectionSampleMethod",
       "config/speculative.py:79 RejectionSampleMethod"},
      {"spec_draft_sample_literal", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "draft_sample_method": "beam"}})",
       "/speculative_config/draft_sample_method", "is not accepted",
       "config/speculative.py:80 DraftSampleMethod"},
      {"spec_heterogeneous_vocab_ngram", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "use_heterogeneous_vocab": true}})",
       "/speculative_config/use_heterogeneous_vocab", "only works with method='draft_model'",
       "config/speculative.py:1380 _verify_args"},
      {"spec_padded_drafter_async", "0.32.0",
       R"({"async_scheduling": true, "speculative_config": {"method": "eagle", "model": "yuhuili/EAGLE-LLaMA3.1-Instruct-8B",
           "num_speculative_tokens": 2, "disable_padded_drafter_batch": true}})",
       "/async_scheduling", "not compatible with speculative_config.disable_padded_drafter_batch",
       "config/vllm.py:1104 VllmConfig.__post_init__"},
      {"kv_load_failure_policy", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_load_failure_policy": "retry"}})",
       "/kv_transfer_config/kv_load_failure_policy", "is not accepted",
       "config/kv_transfer.py:69 kv_load_failure_policy Literal"},
      {"ignored_bool_word", "0.32.0", R"({"trust_remote_code": "sure"})", "/trust_remote_code",
       "is not a valid boolean", "config/model.py:166 trust_remote_code: bool"},
      {"ignored_sample_zero", "0.32.0", R"({"kv_cache_metrics_sample": 0})",
       "/kv_cache_metrics_sample", "Field(gt=0, le=1)",
       "config/observability.py:53 kv_cache_metrics_sample Field(gt=0, le=1)"},
      {"ignored_seed_word", "0.32.0", R"({"seed": "x"})", "/seed", "is not a valid integer",
       "config/model.py:179 seed: int"},
  };
}

class RefusedValues : public ::testing::TestWithParam<Refused> {};

TEST_P(RefusedValues, FailAtThePointerWithVllmsReason) {
  const Refused& c = GetParam();
  const Resolved r = resolve(c.release, c.args);
  const std::string ptr = std::string(kArgs) + c.pointer;
  EXPECT_TRUE(has_error_at(r, c.pointer, c.message))
      << "expected an error at " << ptr << " containing: " << c.message << "\ngot:\n"
      << all_diagnostics(r.diagnostics);
}

INSTANTIATE_TEST_SUITE_P(Boundaries, RefusedValues, ::testing::ValuesIn(refused()),
                         [](const ::testing::TestParamInfo<Refused>& i) {
                           return std::string(i.param.name);
                         });

// vllm/config/vllm.py:2420 VllmConfig.validate_nvfp4_kv_cache_with_mla: the model decides.
TEST(ModelDependent, Nvfp4KvCacheIsRefusedWithMla) {
  const char* args = R"({"kv_cache_dtype": "nvfp4"})";
  const Resolved mla = resolve("0.32.0", args, deployment(testing::h100(), testing::mla_model()));
  EXPECT_TRUE(has_error_at(mla, "/kv_cache_dtype", "nvfp4 KV cache is not supported with MLA"))
      << all_diagnostics(mla.diagnostics);
  EXPECT_FALSE(has_errors(resolve("0.32.0", args).diagnostics));
}

// vllm/config/model.py:1292 _verify_quantization: a deprecated method on its own checkpoint
// is refused, and with allow_deprecated_quantization only warned about.
TEST(ModelDependent, DeprecatedQuantizationNeedsTheFlag) {
  const DeploymentFacts f = deployment(testing::h100(), testing::fbgemm_model());
  const Resolved refused = resolve("0.32.0", R"({"quantization": "fbgemm_fp8"})", f);
  EXPECT_TRUE(has_error_at(refused, "/quantization", "allow_deprecated_quantization"));
  const Resolved allowed = resolve(
      "0.32.0", R"({"quantization": "fbgemm_fp8", "allow_deprecated_quantization": "yes"})", f);
  EXPECT_FALSE(has_errors(allowed.diagnostics)) << all_diagnostics(allowed.diagnostics);
  bool warned = false;
  for (const auto& d : allowed.diagnostics) {
    warned = warned || (d.severity == Severity::kWarning &&
                        d.message.find("is deprecated") != std::string::npos);
  }
  EXPECT_TRUE(warned) << all_diagnostics(allowed.diagnostics);
}

}  // namespace
}  // namespace blis::rules
