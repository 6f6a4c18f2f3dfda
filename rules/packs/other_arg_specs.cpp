// The engine arguments of upstream 8d9b52f7 that BLIS Playground does not model (beyond those of
// arg_specs.cpp) and those that change nothing it simulates, each with the type its config
// class (or EngineArgs) gives it. rules/read_typed.cpp reads them: a value vLLM refuses is
// refused, any other is accepted with a warning and simulated as vLLM's default.

#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

ArgSpec typed(const char* key, const char* type, const char* def, const char* constraint,
              const char* source, bool unmodelled, bool nullable) {
  ArgSpec a = other_arg(key, type, def, constraint, source);
  a.unmodelled = unmodelled;
  a.nullable = nullable;
  return a;
}

ArgSpec with_choices(ArgSpec a, std::vector<std::string> choices, char fold, std::string neutral) {
  a.choices = std::move(choices);
  a.fold = fold;
  a.neutral_text = std::move(neutral);
  return a;
}

ArgSpec with_keys(ArgSpec a, std::vector<std::string> keys) {
  a.object_keys = std::move(keys);
  return a;
}

std::vector<ArgSpec> other_arg_specs() {
  constexpr bool U = true;   // unmodelled: accepted, simulated as vLLM's default
  constexpr bool I = false;  // no effect on what is simulated
  return {
      with_choices(typed("attention_backend", "string", "null (automatic selection)",
                         "AttentionBackendEnum name (upper-cased) or \"auto\" (= null)",
                         "vllm/config/attention.py AttentionConfig.validate_backend_before; "
                         "vllm/v1/attention/backends/registry.py AttentionBackendEnum",
                         U),
                   {"AUTO",
                    "FLASH_ATTN",
                    "FLASH_ATTN_DIFFKV",
                    "TRITON_ATTN",
                    "TRITON_ATTN_DIFFKV",
                    "ROCM_ATTN",
                    "ROCM_AITER_MLA",
                    "ROCM_AITER_TRITON_MLA",
                    "ROCM_AITER_FA",
                    "ROCM_AITER_MLA_SPARSE",
                    "XPU_MLA_SPARSE",
                    "TORCH_SDPA",
                    "FLASHINFER",
                    "FLASHINFER_MLA",
                    "TOKENSPEED_MLA",
                    "FLASHINFER_MLA_SPARSE",
                    "FLASHINFER_MLA_SPARSE_SM120",
                    "TRITON_MLA",
                    "CUTLASS_MLA",
                    "FLASHMLA",
                    "FLASHMLA_SPARSE",
                    "FLASHMLA_SPARSE_DSV4",
                    "FLASHINFER_MLA_SPARSE_DSV4",
                    "ROCM_FLASHMLA_SPARSE_DSV4",
                    "FLASH_ATTN_MLA",
                    "FLASH_ATTN_MLA_SPARSE",
                    "MINIMAX_M3_SPARSE",
                    "CUTLASS_MSA",
                    "TRITON_MSA",
                    "NO_ATTENTION",
                    "FLEX_ATTENTION",
                    "HPC_ATTN",
                    "ROCM_AITER_UNIFIED_ATTN",
                    "CPU_ATTN",
                    "CPU_MLA",
                    "TURBOQUANT",
                    "CUSTOM",
                    "MAMBA1",
                    "MAMBA2",
                    "SHORT_CONV",
                    "LINEAR",
                    "GDN_ATTN"},
                   'u', "AUTO"),
      typed("distributed_executor_backend", "string", "null (mp on one node)",
            "str | DistributedExecutorBackend (ray, mp, uni, external_launcher) | None",
            "vllm/config/parallel.py ParallelConfig.distributed_executor_backend", U),
      with_choices(
          typed("all2all_backend", "string", "\"allgather_reducescatter\"",
                "All2AllBackend Literal", "vllm/config/parallel.py All2AllBackend", U, false),
          {"naive", "pplx", "deepep_high_throughput", "deepep_low_latency", "deepep_v2",
           "mori_high_throughput", "mori_low_latency", "nixl_ep", "allgather_reducescatter",
           "flashinfer_all2allv", "flashinfer_nvlink_two_sided", "flashinfer_nvlink_one_sided"},
          0, "allgather_reducescatter"),
      typed("kv_cache_dtype_skip_layers", "list[str]", "[]", "list[str]",
            "vllm/config/cache.py CacheConfig.kv_cache_dtype_skip_layers", U, false),
      typed("quantization_config", "object", "null",
            "dict[str, Any] | QuantizationConfigArgs | None; a dict becomes a "
            "QuantizationConfigArgs (linear, moe: a shorthand, a quantization name or "
            "{weight, activation}; ignore: list[str]), only with quantization unset or an "
            "online shorthand (resolve_quantization_config)",
            "vllm/engine/arg_utils.py EngineArgs.quantization_config", U),
      with_choices(typed("lora_dtype", "string", "\"auto\"",
                         "torch.dtype | LoRADType Literal (auto, float16, bfloat16), checked when "
                         "enable_lora builds a LoRAConfig",
                         "vllm/config/lora.py LoRAConfig.lora_dtype", U),
                   {"auto", "float16", "bfloat16"}, 0, "auto"),
      typed("lora_target_modules", "list[str]", "null (every supported module)",
            "list[str] | None, checked when enable_lora builds a LoRAConfig",
            "vllm/config/lora.py LoRAConfig.target_modules", U),
      typed("default_mm_loras", "dict[str,str]", "null",
            "dict[str, str] | None, checked when enable_lora builds a LoRAConfig",
            "vllm/config/lora.py LoRAConfig.default_mm_loras", U),
      typed("scheduler_cls", "string", "null (vLLM's Scheduler)",
            "str (a class path) | type | None",
            "vllm/config/scheduler.py SchedulerConfig.scheduler_cls", U),
      with_keys(typed("kv_events_config", "object", "null (no KV events)",
                      "KVEventsConfig | None (extra=\"forbid\")",
                      "vllm/config/kv_events.py KVEventsConfig", U),
                {"enable_kv_cache_events", "publisher", "endpoint", "replay_endpoint",
                 "buffer_steps", "hwm", "max_queue_size", "topic"}),
      with_keys(typed("ec_transfer_config", "object", "null (no encoder-cache transfer)",
                      "ECTransferConfig | None (extra=\"forbid\")",
                      "vllm/config/ec_transfer.py ECTransferConfig", U),
                {"ec_connector", "engine_id", "ec_buffer_device", "ec_buffer_size", "ec_role",
                 "ec_rank", "ec_parallel_size", "ec_ip", "ec_port", "ec_connector_extra_config",
                 "ec_connector_module_path"}),
      // A ModelConfig InitVar (dict | None, vllm/config/model.py:378): None is dropped before
      // MultiModalConfig is built, so it is accepted; applies only to a multimodal model.
      [] {
        ArgSpec a = typed("limit_mm_per_prompt", "object", "{}", "dict[str, int | dict[str, int]]",
                          "vllm/config/multimodal.py MultiModalConfig.limit_per_prompt", U, true);
        a.multimodal = true;
        return a;
      }(),
      typed("hf_overrides", "object", "{}", "dict | callable (HfOverrides)",
            "vllm/config/model.py ModelConfig.hf_overrides", U, false),
      [] {
        ArgSpec a = typed("prefix_match_unit", "int", "null (the KV block size)",
                          "int | None, Field(gt=0); every KV cache group's block_size must be "
                          "divisible by it",
                          "vllm/config/cache.py CacheConfig.prefix_match_unit", U);
        a.expected = "an integer > 0 (tokens), or null";
        a.int_min = 1;
        a.int_max = 2147483647;
        return a;
      }(),
      [] {
        ArgSpec a =
            typed("mm_processor_cache_gb", "float", "4", "Field(ge=0) (GiB)",
                  "vllm/config/multimodal.py MultiModalConfig.mm_processor_cache_gb", U, true);
        // ModelConfig InitVar[float | None] (vllm/config/model.py:382): None is dropped, the
        // bound is MultiModalConfig's (a multimodal model only).
        a.multimodal = true;
        a.initvar_type = "float";
        a.expected = "a size in GiB >= 0";
        a.float_min = 0;
        a.float_max = 1e12;
        a.neutral = 4.0;
        return a;
      }(),
      [] {
        ArgSpec a = typed("max_parallel_loading_workers", "int", "null", "int | None",
                          "vllm/config/parallel.py ParallelConfig.max_parallel_loading_workers", I);
        a.expected = "an integer, or null";
        a.int_min = -9223372036854775807LL - 1;
        a.int_max = 9223372036854775807LL;
        return a;
      }(),
      // No effect on what BLIS Playground simulates (naming, loading, logging).
      typed("served_model_name", "str|list[str]", "null (the model)", "str | list[str] | None",
            "vllm/config/model.py ModelConfig.served_model_name", I),
      typed("tokenizer", "string", "null (the model)", "str | None",
            "vllm/config/model.py ModelConfig.tokenizer", I),
      typed("tokenizer_mode", "string", "\"auto\"", "TokenizerMode | str",
            "vllm/config/model.py ModelConfig.tokenizer_mode", I, false),
      typed("revision", "string", "null", "str | None", "vllm/config/model.py ModelConfig.revision",
            I),
      typed("code_revision", "string", "null", "str | None",
            "vllm/config/model.py ModelConfig.code_revision", I),
      typed("tokenizer_revision", "string", "null", "str | None",
            "vllm/config/model.py ModelConfig.tokenizer_revision", I),
      typed("download_dir", "string", "null", "str | None",
            "vllm/config/load.py LoadConfig.download_dir", I),
      typed("load_format", "string", "\"auto\"", "str | LoadFormats (lower-cased)",
            "vllm/config/load.py LoadConfig.load_format", I, false),
      with_choices(typed("logprobs_mode", "string", "\"raw_logprobs\"", "LogprobsMode Literal",
                         "vllm/config/model.py LogprobsMode", I, false),
                   {"raw_logits", "raw_logprobs", "processed_logits", "processed_logprobs"}, 0, ""),
      typed("hf_token", "str|bool", "null", "bool | str | None",
            "vllm/config/model.py ModelConfig.hf_token", I),
      typed("otlp_traces_endpoint", "string", "null", "str | None",
            "vllm/config/observability.py ObservabilityConfig.otlp_traces_endpoint", I),
      with_choices(typed("collect_detailed_traces", "list[str]", "null",
                         "list[DetailedTraceModules] | None (model, worker, all)",
                         "vllm/config/observability.py DetailedTraceModules", I),
                   {"model", "worker", "all"}, 0, ""),
      typed("generation_config", "string", "\"auto\"", "str",
            "vllm/config/model.py ModelConfig.generation_config", I, false),
      typed("override_generation_config", "object", "{}", "dict[str, Any]",
            "vllm/config/model.py ModelConfig.override_generation_config", I, false),
      typed("show_hidden_metrics_for_version", "string", "null", "str | None",
            "vllm/config/observability.py ObservabilityConfig.show_hidden_metrics_for_version", I),
      typed("reasoning_parser", "string", "\"\"", "str",
            "vllm/config/structured_outputs.py StructuredOutputsConfig.reasoning_parser", I, false),
      typed("config_format", "string", "\"auto\"", "str | ConfigFormat",
            "vllm/config/model.py ModelConfig.config_format", I, false),
      typed("model_impl", "string", "\"auto\"",
            "str (ModelImpl: auto, vllm, transformers, "
            "terratorch)",
            "vllm/config/model.py ModelConfig.model_impl", I, false),
      typed("disable_log_stats", "bool", "false", "bool",
            "vllm/engine/arg_utils.py EngineArgs.disable_log_stats", I),
      typed("enable_log_requests", "bool", "false", "bool (vllm serve's AsyncEngineArgs)",
            "vllm/engine/arg_utils.py AsyncEngineArgs.enable_log_requests", I),
  };
}

}  // namespace blis::rules::packs
