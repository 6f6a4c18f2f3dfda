// The engine arguments BLIS Playground reads, each with the constraint vLLM's own config
// classes declare at upstream 8d9b52f7 (release 0.32.0). Older packs start from these rows
// and change the ones their release had differently (vllm_0_29.cpp, vllm_0_31.cpp).

#include <cmath>
#include <limits>

#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

namespace {

constexpr std::int64_t kI32 = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kI64 = std::numeric_limits<std::int64_t>::max();

ArgSpec int_arg(const char* key, const char* def, const char* constraint, const char* expected,
                const char* source, std::int64_t lo, std::int64_t hi, bool human = false) {
  ArgSpec a;
  a.key = key;
  a.type = "int";
  a.default_text = def;
  a.constraint = constraint;
  a.expected = expected;
  a.source = source;
  a.int_min = lo;
  a.int_max = hi;
  a.human_readable = human;
  return a;
}

ArgSpec float_arg(const char* key, const char* def, const char* constraint, const char* expected,
                  const char* source, double lo, bool lo_exclusive, double hi) {
  ArgSpec a;
  a.key = key;
  a.type = "float";
  a.default_text = def;
  a.constraint = constraint;
  a.expected = expected;
  a.source = source;
  a.float_min = lo;
  a.min_exclusive = lo_exclusive;
  a.float_max = hi;
  return a;
}

// An argument BLIS Playground does not model, checked as vLLM checks it; `neutral` is its
// default (ArgSpec::neutral).
ArgSpec unmodelled(ArgSpec a, std::optional<double> neutral) {
  a.unmodelled = true;
  a.neutral = neutral;
  return a;
}

// Keys whose EngineArgs field is not Optional (vllm/engine/arg_utils.py EngineArgs, e.g.
// l.532 `gpu_memory_utilization: float`, l.628 `watermark: float`): null reaches the config
// class and pydantic refuses it. Every other key is `X | None` there (None = vLLM's default).
const char* const kNotOptional[] = {"gpu_memory_utilization",
                                    "kv_cache_dtype",
                                    "dtype",
                                    "allow_deprecated_quantization",
                                    "long_prefill_token_threshold",
                                    "scheduling_policy",
                                    "enable_expert_parallel",
                                    "scheduler_reserve_full_isl",
                                    "watermark",
                                    "prefix_caching_hash_algo",
                                    "enforce_eager",
                                    "performance_mode",
                                    "kv_offloading_backend",
                                    "max_logprobs",
                                    "seed",
                                    "kv_cache_metrics_sample",
                                    "trust_remote_code",
                                    "skip_tokenizer_init",
                                    "kv_cache_metrics",
                                    "enable_mfu_metrics",
                                    "disable_custom_all_reduce",
                                    "tensor_parallel_size",
                                    "pipeline_parallel_size",
                                    "data_parallel_size",
                                    "stream_interval",
                                    "prefill_schedule_interval",
                                    "cpu_offload_gb",
                                    "decode_context_parallel_size",
                                    "prefill_context_parallel_size",
                                    "enable_eplb",
                                    "enable_dbo",
                                    "disable_sliding_window",
                                    "disable_cascade_attn",
                                    "disable_chunked_mm_input",
                                    "fully_sharded_loras",
                                    "enable_sleep_mode"};

std::vector<ArgSpec> arg_rows_8d9b52f7();

}  // namespace

ArgSpec other_arg(const char* key, const char* type, const char* def, const char* constraint,
                  const char* source) {
  ArgSpec a;
  a.key = key;
  a.type = type;
  a.default_text = def;
  a.constraint = constraint;
  a.source = source;
  return a;
}

std::vector<ArgSpec> arg_specs_8d9b52f7() {
  std::vector<ArgSpec> rows = arg_rows_8d9b52f7();
  for (auto& a : rows) {
    for (const char* key : kNotOptional) {
      if (a.key == key) a.nullable = false;
    }
  }
  return rows;
}

namespace {

std::vector<ArgSpec> arg_rows_8d9b52f7() {
  return {
      int_arg("max_model_len", "the model's derived maximum (max_position_embeddings, rope-scaled)",
              "Field(ge=-1); -1 or \"auto\" fits the length to the KV cache; otherwise >= 1 and "
              "<= the derived maximum",
              "an integer >= 1 (tokens), or -1 / \"auto\" to fit it to memory",
              "vllm/config/model.py ModelConfig.max_model_len, validate_model_config_after, "
              "_get_and_verify_max_len; vllm/utils/argparse_utils.py human_readable_int_or_auto",
              -1, kI32, true),
      int_arg("max_num_seqs", "GPU-dependent (get_batch_defaults): 1024 or 256", "Field(ge=1)",
              "an integer >= 1", "vllm/config/scheduler.py SchedulerConfig.max_num_seqs", 1, kI32),
      int_arg("max_num_batched_tokens", "GPU-dependent (get_batch_defaults): 8192 or 2048",
              "Field(ge=1); >= max_num_seqs; >= max_model_len without chunked prefill",
              "an integer >= 1 (tokens per step)",
              "vllm/config/scheduler.py SchedulerConfig.max_num_batched_tokens, "
              "verify_max_model_len",
              1, kI32, true),
      int_arg("max_num_scheduled_tokens",
              "null (max_num_batched_tokens, less the drafter's slots with speculative decoding)",
              "int | None, Field(ge=0); with speculative decoding > 0 and <= "
              "max_num_batched_tokens - the drafter's slots",
              "an integer >= 0 (tokens the scheduler issues per step), or null",
              "vllm/config/scheduler.py SchedulerConfig.max_num_scheduled_tokens; vllm/config/"
              "vllm.py VllmConfig._set_max_num_scheduled_tokens",
              0, kI32, true),
      other_arg("enable_chunked_prefill", "bool", "true (generative decoder models)", "bool",
                "vllm/engine/arg_utils.py "
                "EngineArgs._set_default_chunked_prefill_and_prefix_caching_args"),
      other_arg("enable_prefix_caching", "bool", "true (generative decoder models)", "bool",
                "vllm/engine/arg_utils.py "
                "EngineArgs._set_default_chunked_prefill_and_prefix_caching_args"),
      int_arg("block_size", "16 (64 for MLA models on Hopper/Blackwell: FlashMLA)",
              "Field(gt=0); the CUDA attention backends take multiples of 16",
              "an integer > 0 (tokens per KV block)",
              "vllm/config/cache.py CacheConfig.block_size; vllm/v1/attention/backends "
              "FlashAttentionBackend.supports_block_size",
              1, kI32),
      float_arg("gpu_memory_utilization", "0.92", "Field(gt=0, le=1)", "a fraction in (0, 1]",
                "vllm/config/cache.py CacheConfig.gpu_memory_utilization", 0.0, true, 1.0),
      int_arg("kv_cache_memory_bytes", "null (sized from gpu_memory_utilization)",
              "int | None; 0 is treated as unset (the worker tests it for truth); a negative size "
              "leaves no memory for the cache blocks",
              "a number of bytes >= 0",
              "vllm/config/cache.py CacheConfig.kv_cache_memory_bytes; vllm/v1/worker/"
              "gpu_worker.py Worker.determine_available_memory",
              0, kI64, true),
      int_arg("num_gpu_blocks_override", "null (blocks from the profiled memory)",
              "int | None; the KV cache must hold one max_model_len request in that many blocks",
              "an integer >= 1 (KV blocks; vLLM finds no memory for the cache with 0)",
              "vllm/config/cache.py CacheConfig.num_gpu_blocks_override; vllm/v1/core/"
              "kv_cache_utils.py get_kv_cache_configs, _check_enough_kv_cache_memory",
              1, kI32),
      other_arg("kv_cache_dtype", "string", "\"auto\"", "CacheDType Literal",
                "vllm/config/cache.py CacheDType"),
      other_arg("dtype", "string", "\"auto\"", "ModelDType Literal",
                "vllm/config/model.py ModelDType"),
      other_arg("quantization", "string", "null (the checkpoint's)",
                "QuantizationMethods, lower-cased before the check",
                "vllm/model_executor/layers/quantization/__init__.py QuantizationMethods; "
                "vllm/config/model.py ModelConfig._verify_quantization"),
      other_arg("allow_deprecated_quantization", "bool", "false",
                "bool; without it a method of DEPRECATED_QUANTIZATION_METHODS (fbgemm_fp8, "
                "fp_quant) is refused",
                "vllm/config/model.py ModelConfig.allow_deprecated_quantization, "
                "_verify_quantization"),
      int_arg("long_prefill_token_threshold", "0 (no cap)", "Field(ge=0); <= max_model_len",
              "an integer >= 0 (tokens; 0 = no cap)",
              "vllm/config/scheduler.py SchedulerConfig.long_prefill_token_threshold, "
              "verify_max_model_len",
              0, kI32),
      other_arg("scheduling_policy", "string", "\"fcfs\"", "SchedulerPolicy Literal",
                "vllm/config/scheduler.py SchedulerPolicy"),
      other_arg("async_scheduling", "bool", "null -> true unless an incompatible option",
                "bool | None", "vllm/config/vllm.py VllmConfig.__post_init__"),
      other_arg("enable_expert_parallel", "bool", "false",
                "bool; only for MoE models (docs/parallelism.md)",
                "vllm/config/parallel.py ParallelConfig.enable_expert_parallel; "
                "vllm/model_executor/layers/fused_moe/config.py FusedMoEParallelConfig.make"),
      other_arg("scheduler_reserve_full_isl", "bool", "true", "bool",
                "vllm/config/scheduler.py SchedulerConfig.scheduler_reserve_full_isl"),
      // lt=1.0: the largest double below 1 is the inclusive bound.
      float_arg("watermark", "0.0 (no watermark)", "Field(ge=0.0, lt=1.0)", "a fraction in [0, 1)",
                "vllm/config/scheduler.py SchedulerConfig.watermark; vllm/v1/core/"
                "kv_cache_manager.py KVCacheManager (int(watermark * num_gpu_blocks) blocks)",
                0.0, false, std::nextafter(1.0, 0.0)),
      other_arg("prefix_caching_hash_algo", "string", "\"sha256\"", "PrefixCachingHashAlgo Literal",
                "vllm/config/cache.py PrefixCachingHashAlgo"),
      other_arg("enable_lora", "bool", "false", "bool",
                "vllm/engine/arg_utils.py EngineArgs.create_engine_config"),
      int_arg("max_loras", "1", "Field(ge=1), checked when enable_lora builds a LoRAConfig",
              "an integer >= 1", "vllm/config/lora.py LoRAConfig.max_loras", 1, kI32),
      other_arg("max_lora_rank", "int", "16", "MaxLoRARanks Literal (the CLI's choices)",
                "vllm/config/lora.py MaxLoRARanks"),
      int_arg("max_cpu_loras", "null -> max_loras",
              "int | None; <= 0 is treated as unset; >= max_loras",
              "an integer (<= 0 = unset, i.e. max_loras)",
              "vllm/engine/arg_utils.py EngineArgs.create_engine_config; vllm/config/lora.py "
              "LoRAConfig._validate_lora_config",
              std::numeric_limits<std::int32_t>::min(), kI32),
      other_arg("enforce_eager", "bool", "false", "bool",
                "vllm/config/model.py ModelConfig.enforce_eager"),
      other_arg("performance_mode", "string", "\"balanced\"", "PerformanceMode Literal",
                "vllm/config/vllm.py PerformanceMode"),
      other_arg("speculative_config", "object", "null (no speculative decoding)",
                "SpeculativeConfig: method, num_speculative_tokens Field(gt=0), model",
                "vllm/config/speculative.py SpeculativeConfig"),
      other_arg("kv_transfer_config", "object", "null (no KV connector)",
                "KVTransferConfig: kv_role KVRole Literal, required with kv_connector",
                "vllm/config/kv_transfer.py KVTransferConfig.__post_init__"),
      float_arg("kv_offloading_size", "null (no CPU offloading)",
                "float | None (GiB over all TP ranks); selects the offloading connector",
                "a size in GiB > 0", "vllm/config/cache.py CacheConfig.kv_offloading_size", 0.0,
                true, 1e9),
      other_arg("kv_offloading_backend", "string", "\"native\"", "KVOffloadingBackend Literal",
                "vllm/config/cache.py KVOffloadingBackend"),
      int_arg("max_logprobs", "20",
              "Field(ge=-1) (-1 = no cap); no effect on what BLIS Playground simulates",
              "an integer >= -1 (-1 = no cap)", "vllm/config/model.py ModelConfig.max_logprobs", -1,
              kI64),
      // Keys with no effect on what is simulated, still type-checked as vLLM's config classes
      // check them (a warning, then ignored).
      int_arg("seed", "0", "int; no effect on what BLIS Playground simulates", "an integer",
              "vllm/config/model.py ModelConfig.seed", std::numeric_limits<std::int64_t>::min(),
              kI64),
      float_arg("kv_cache_metrics_sample", "0.01",
                "Field(gt=0, le=1); no effect on what BLIS Playground simulates",
                "a fraction in (0, 1]",
                "vllm/config/observability.py ObservabilityConfig.kv_cache_metrics_sample", 0.0,
                true, 1.0),
      other_arg("trust_remote_code", "bool", "false",
                "bool; no effect on what BLIS Playground simulates",
                "vllm/config/model.py ModelConfig.trust_remote_code"),
      other_arg("skip_tokenizer_init", "bool", "false",
                "bool; no effect on what BLIS Playground simulates",
                "vllm/config/model.py ModelConfig.skip_tokenizer_init"),
      other_arg("kv_cache_metrics", "bool", "false",
                "bool; no effect on what BLIS Playground simulates",
                "vllm/config/observability.py ObservabilityConfig.kv_cache_metrics"),
      other_arg("enable_mfu_metrics", "bool", "false",
                "bool; no effect on what BLIS Playground simulates",
                "vllm/config/observability.py ObservabilityConfig.enable_mfu_metrics"),
      other_arg("disable_custom_all_reduce", "bool", "false",
                "bool; no effect on what BLIS Playground simulates",
                "vllm/config/parallel.py ParallelConfig.disable_custom_all_reduce"),
      // The pool's parallelism sets these; engine.args may repeat the same value.
      int_arg("tensor_parallel_size", "1", "Field(ge=1); must equal the pool's parallelism.tp",
              "an integer >= 1", "vllm/config/parallel.py ParallelConfig.tensor_parallel_size", 1,
              kI32),
      int_arg("pipeline_parallel_size", "1", "Field(ge=1); must equal the pool's parallelism.pp",
              "an integer >= 1", "vllm/config/parallel.py ParallelConfig.pipeline_parallel_size", 1,
              kI32),
      int_arg("data_parallel_size", "1", "Field(ge=1); must equal the pool's parallelism.dp",
              "an integer >= 1", "vllm/config/parallel.py ParallelConfig.data_parallel_size", 1,
              kI32),
      // Not modelled: checked as vLLM checks them; only their default is simulated.
      unmodelled(
          int_arg("stream_interval", "1", "Field(ge=1); not modelled (only 1)", "an integer >= 1",
                  "vllm/config/scheduler.py SchedulerConfig.stream_interval", 1, kI32),
          1.0),
      unmodelled(
          int_arg("prefill_schedule_interval", "1", "Field(ge=1); not modelled (only 1)",
                  "an integer >= 1",
                  "vllm/config/scheduler.py SchedulerConfig.prefill_schedule_interval", 1, kI32),
          1.0),
      unmodelled(
          float_arg("cpu_offload_gb", "0", "Field(ge=0) (GiB); not modelled (only 0)",
                    "a size in GiB >= 0", "vllm/config/offload.py UVAOffloadConfig.cpu_offload_gb",
                    0.0, false, 1e12),
          0.0),
      unmodelled(
          other_arg("disable_hybrid_kv_cache_manager", "bool", "null (decided at start)",
                    "bool | None; not modelled (only null)",
                    "vllm/config/scheduler.py SchedulerConfig.disable_hybrid_kv_cache_manager"),
          std::nullopt),
      unmodelled(
          int_arg("decode_context_parallel_size", "1", "Field(ge=1); not modelled (only 1)",
                  "an integer >= 1",
                  "vllm/config/parallel.py ParallelConfig.decode_context_parallel_size", 1, kI32),
          1.0),
      unmodelled(
          int_arg("prefill_context_parallel_size", "1", "Field(ge=1); not modelled (only 1)",
                  "an integer >= 1",
                  "vllm/config/parallel.py ParallelConfig.prefill_context_parallel_size", 1, kI32),
          1.0),
      unmodelled(other_arg("enable_eplb", "bool", "false", "bool; not modelled (only false)",
                           "vllm/config/parallel.py ParallelConfig.enable_eplb"),
                 0.0),
      unmodelled(other_arg("enable_dbo", "bool", "false", "bool; not modelled (only false)",
                           "vllm/config/parallel.py ParallelConfig.enable_dbo"),
                 0.0),
      unmodelled(
          other_arg("disable_sliding_window", "bool", "false", "bool; not modelled (only false)",
                    "vllm/config/model.py ModelConfig.disable_sliding_window"),
          0.0),
      unmodelled(other_arg("disable_cascade_attn", "bool", "true", "bool; not modelled (only true)",
                           "vllm/config/model.py ModelConfig.disable_cascade_attn"),
                 1.0),
      unmodelled(
          other_arg("disable_chunked_mm_input", "bool", "false", "bool; not modelled (only false)",
                    "vllm/config/scheduler.py SchedulerConfig.disable_chunked_mm_input"),
          0.0),
      unmodelled(
          other_arg("fully_sharded_loras", "bool", "false", "bool; not modelled (only false)",
                    "vllm/config/lora.py LoRAConfig.fully_sharded_loras"),
          0.0),
      unmodelled(other_arg("enable_sleep_mode", "bool", "false", "bool; not modelled (only false)",
                           "vllm/config/model.py ModelConfig.enable_sleep_mode"),
                 0.0),
  };
}

}  // namespace

std::vector<ArgSpec> speculative_arg_specs() {
  return {
      other_arg("speculative_config.method", "string",
                "inferred from model: a dotted class path -> custom_class, \"ngram\" -> ngram, "
                "else draft_model (eagle-/eagle3/dflash/dspark in the name pick those)",
                "SpeculativeMethod Literal; MTP model types are replaced by \"mtp\"",
                "vllm/config/speculative.py SpeculativeConfig.__post_init__"),
      int_arg("speculative_config.num_speculative_tokens",
              "required (suffix: suffix_decoding_max_tree_depth = 24)", "Field(gt=0)",
              "an integer > 0 (draft tokens per step; BLIS Playground models up to 1024)",
              "vllm/config/speculative.py SpeculativeConfig.num_speculative_tokens, _verify_args",
              1, 1024),
      other_arg("speculative_config.model", "string",
                "null; eagle, eagle3, dflash, draft_model, medusa, mlp_speculator and "
                "custom_class need one",
                "num_speculative_tokens without a speculative model is refused",
                "vllm/config/speculative.py SpeculativeConfig.__post_init__"),
      int_arg("speculative_config.prompt_lookup_min", "prompt_lookup_max, or 5 when both unset",
              "Field(ge=1); <= prompt_lookup_max (ngram, ngram_gpu); no effect on what BLIS "
              "Playground simulates",
              "an integer >= 1 (tokens)", "vllm/config/speculative.py SpeculativeConfig", 1, kI32),
      int_arg("speculative_config.prompt_lookup_max", "prompt_lookup_min, or 5 when both unset",
              "Field(ge=1); >= prompt_lookup_min (ngram, ngram_gpu); no effect on what BLIS "
              "Playground simulates",
              "an integer >= 1 (tokens)", "vllm/config/speculative.py SpeculativeConfig", 1, kI32),
      int_arg("speculative_config.draft_tensor_parallel_size", "the target's tensor_parallel_size",
              "Field(ge=1); 1 or the target's tensor_parallel_size (draft-model methods); no "
              "effect on what BLIS Playground simulates",
              "an integer >= 1",
              "vllm/config/speculative.py SpeculativeConfig.draft_tensor_parallel_size, "
              "_verify_and_get_draft_tp",
              1, kI32),
      int_arg("speculative_config.max_model_len", "the draft's and target's smaller maximum",
              "Field(ge=1); <= the target's max_model_len (draft-model methods); no effect on "
              "what BLIS Playground simulates",
              "an integer >= 1 (tokens)",
              "vllm/config/speculative.py SpeculativeConfig.max_model_len, "
              "_maybe_override_draft_max_model_len",
              1, kI32),
      int_arg("speculative_config.dspark_draft_topk", "null",
              "Field(ge=1); only with method dspark; no effect on what BLIS Playground simulates",
              "an integer >= 1", "vllm/config/speculative.py SpeculativeConfig.dspark_draft_topk",
              1, kI32),
      other_arg("speculative_config.rejection_sample_method", "string", "\"standard\"",
                "RejectionSampleMethod Literal (standard, synthetic, block); synthetic needs "
                "exactly one of synthetic_acceptance_rates (k entries in [0, 1], non-increasing) "
                "and synthetic_acceptance_length (in [1, k + 1]); no effect on what BLIS "
                "Playground simulates (acceptance comes from acceptance_rate)",
                "vllm/config/speculative.py SpeculativeConfig._verify_args, "
                "_resolve_synthetic_acceptance_rates"),
      other_arg("speculative_config.suffix_decoding_max_tree_depth", "int", "24",
                "with method suffix: >= 1, and the default num_speculative_tokens; the other "
                "suffix_decoding_* fields: max_cached_requests >= 0, max_spec_factor >= 0, "
                "min_token_prob in [0, 1]",
                "vllm/config/speculative.py SpeculativeConfig._validate_suffix_decoding"),
      other_arg("speculative_config.(other fields)", "mixed", "vLLM's",
                "enforce_eager, quantization, kv_cache_dtype (CacheDType), revision, "
                "code_revision, disable_padded_drafter_batch (turns an unset async_scheduling off; "
                "refused with async_scheduling: true), use_local_argmax_reduction, "
                "use_heterogeneous_vocab (draft_model, greedy only), parallel_drafting, "
                "draft_sample_method (greedy, probabilistic), moe_backend (MoEBackend, as "
                "written), attention_backend (AttentionBackendEnum name or \"auto\"), "
                "draft_load_config (LoadConfig), num_speculative_tokens_per_batch_size "
                "(list[tuple[int, int, int]]: dynamic speculative decoding is not modelled): "
                "type-checked, then ignored; "
                "tensor_parallel_size is refused (use draft_tensor_parallel_size); any other "
                "key is refused (extra=\"forbid\")",
                "vllm/config/speculative.py SpeculativeConfig; vllm/config/utils.py config"),
      float_arg("speculative_config.acceptance_rate", "0.7 (BLIS Playground)",
                "BLIS Playground: per-draft-token acceptance probability",
                "a probability in [0, 1]",
                "BLIS Playground (vLLM measures acceptance from the draft model)", 0.0, false, 1.0),
  };
}

}  // namespace blis::rules::packs
