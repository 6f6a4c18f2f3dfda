#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

Pack shared_v029_to_v032() {
  Pack p;

  // vllm/config/cache.py@002f10e0 CacheConfig.block_size: `int = Field(default=None, gt=0)`,
  // None -> DEFAULT_BLOCK_SIZE = 16 (_apply_block_size_default). The CUDA attention
  // backends then take only multiples of 16 (FlashAttentionBackend / TritonAttentionBackend
  // .supports_block_size: block_size % 16 == 0, get_supported_kernel_block_sizes ->
  // [MultipleOf(16)]); with no backend left the selector raises.
  p.block_size = {{}, 16, 16};

  // vllm/config/cache.py@002f10e0 CacheDType.
  p.kv_cache_dtypes = {"auto",
                       "float16",
                       "bfloat16",
                       "fp8",
                       "fp8_e4m3",
                       "fp8_e5m2",
                       "fp8_inc",
                       "fp8_ds_mla",
                       "nvfp4_ds_mla",
                       "turboquant_k8v4",
                       "turboquant_4bit_nc",
                       "turboquant_k3v4_nc",
                       "turboquant_3bit_nc",
                       "int4_per_token_head",
                       "int8_per_token_head",
                       "fp8_per_token_head",
                       "nvfp4",
                       "nvfp4_4over6"};
  // vllm/config/cache.py@002f10e0 PrefixCachingHashAlgo.
  p.prefix_caching_hash_algos = {"sha256", "sha256_cbor", "xxhash", "xxhash_cbor"};
  // vllm/config/scheduler.py@1f8758d5 SchedulerPolicy.
  p.scheduling_policies = {"fcfs", "priority"};
  // vllm/config/model.py ModelDType (index text idx:69165789532).
  p.dtypes = {"auto", "half", "float16", "bfloat16", "float", "float32"};
  // vllm/model_executor/layers/quantization/__init__.py QuantizationMethods: union of the
  // two newest literals in the index (idx:54655195330, idx:58475535266).
  p.quantization_methods = {"awq",
                            "auto_awq",
                            "fp8",
                            "fbgemm_fp8",
                            "fp_quant",
                            "modelopt",
                            "modelopt_fp4",
                            "modelopt_mxfp8",
                            "modelopt_mixed",
                            "gguf",
                            "auto_gptq",
                            "gptq",
                            "gptq_marlin",
                            "awq_marlin",
                            "humming",
                            "compressed-tensors",
                            "bitsandbytes",
                            "experts_int8",
                            "quark",
                            "moe_wna16",
                            "torchao",
                            "inc",
                            "mxfp4",
                            "gpt_oss_mxfp4",
                            "deepseek_v4_fp8",
                            "cpu_awq",
                            "online",
                            "fp8_per_tensor",
                            "fp8_per_block",
                            "fp8_per_channel",
                            "int8_per_channel_weight_only",
                            "nvfp4_per_token",
                            "mxfp8"};
  // vllm/config/quantization.py ONLINE_QUANT_SHORTHAND_NAMES (fp8_per_tensor, fp8_per_block,
  // fp8_per_channel, int8_per_channel_weight_only, nvfp4_per_token, mxfp8, "online"), plus the
  // in-flight methods that need no quantized checkpoint (bitsandbytes, experts_int8, inc,
  // torchao). "fp8" is handled per release (fp8_online_refused).
  p.online_quantization_methods = {
      "fp8_per_tensor",  "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only",
      "nvfp4_per_token", "mxfp8",         "online",          "bitsandbytes",
      "experts_int8",    "inc",           "torchao"};
  // vllm/config/lora.py MaxLoRARanks (pinned at v0.26.0 by idx:63623082014; same literal in
  // every newer copy in the index).
  p.max_lora_ranks = {1, 8, 16, 32, 64, 128, 256, 320, 512};
  p.max_lora_rank_default = 16;
  // vllm/config/vllm.py PerformanceMode (idx:66028953566).
  p.performance_modes = {"balanced", "interactivity", "throughput"};
  // vllm/config/cache.py@002f10e0 KVOffloadingBackend.
  p.kv_offloading_backends = {"native", "lmcache"};
  // vllm/config/kv_transfer.py@007c643b KVRole.
  p.kv_roles = {"kv_producer", "kv_consumer", "kv_both"};

  // vllm/config/speculative.py SpeculativeMethod with EagleModelTypes (MTP types, dflash),
  // NgramGPUTypes and DSparkModelTypes (idx:57350804838, the newest copy in the index).
  const std::vector<std::string> mtp = {"deepseek_mtp",
                                        "mimo_mtp",
                                        "mimo_v2_mtp",
                                        "glm4_moe_mtp",
                                        "glm4_moe_lite_mtp",
                                        "glm_ocr_mtp",
                                        "ernie_mtp",
                                        "nemotron_h_mtp",
                                        "exaone_moe_mtp",
                                        "exaone4_5_mtp",
                                        "qwen3_next_mtp",
                                        "qwen3_5_mtp",
                                        "longcat_flash_mtp",
                                        "bailing_hybrid_v3_mtp",
                                        "minimax_m3_mtp",
                                        "bailing_hybrid_mtp",
                                        "mtp",
                                        "kimi_k3_mtp",
                                        "pangu_ultra_moe_mtp",
                                        "step3p5_mtp",
                                        "hy_v3_mtp",
                                        "hy_v4_mtp",
                                        "gemma4_mtp",
                                        "inkling_mtp",
                                        "glm5_next_mtp"};
  std::vector<std::string> eagle = {"eagle", "eagle3", "extract_hidden_states"};
  eagle.insert(eagle.end(), mtp.begin(), mtp.end());
  eagle.push_back("dflash");
  p.speculative_methods = {"ngram",       "medusa", "mlp_speculator",
                           "draft_model", "suffix", "custom_class"};
  p.speculative_methods.insert(p.speculative_methods.end(), eagle.begin(), eagle.end());
  p.speculative_methods.push_back("ngram_gpu");
  p.speculative_methods.push_back("dspark");
  // vllm/config/vllm.py@000fc94b VllmConfig.__post_init__: async scheduling works with
  // EagleModelTypes, NgramGPUTypes, "draft_model" and "dspark".
  p.async_speculative_methods = eagle;
  p.async_speculative_methods.push_back("ngram_gpu");
  p.async_speculative_methods.push_back("draft_model");
  p.async_speculative_methods.push_back("dspark");

  // vllm/config/cache.py: Field(default=0.92, gt=0, le=1) at 002f10e0; third-party copies
  // pin 0.92 at v0.25.0 (idx:67514956263) and v0.30.0 (idx:70976838443).
  p.gpu_memory_utilization_default = 0.92;
  // vllm/config/scheduler.py@1f8758d5 `async_scheduling: bool = Field(default=None)`,
  // resolved in vllm/config/vllm.py@000fc94b; None -> True pinned at v0.30.0
  // (idx:68443118723).
  p.async_scheduling_default = AsyncDefault::kAutoOn;
  // vllm/engine/arg_utils.py@002f10e0 EngineArgs.get_batch_defaults, OPENAI_API_SERVER.
  p.batch_defaults = {{160.0, "", 16384, 1024}, {70.0, "a100", 8192, 1024}, {0.0, "", 2048, 256}};
  // vllm/config/scheduler.py@1f8758d5 DEFAULT_MAX_NUM_BATCHED_TOKENS / DEFAULT_MAX_NUM_SEQS.
  p.scheduler_default_max_num_batched_tokens = 2048;
  p.scheduler_default_max_num_seqs = 128;

  // vllm/distributed/kv_transfer/kv_connector/factory.py, registration list of the newest
  // copies in the index (idx:61709974063, idx:61488935776). NixlPushConnector landed in
  // PR #35264 (June 2026) and is confirmed in the v0.27.1 tag by ai-dynamo/dynamo#13327.
  p.connectors = {{"ExampleConnector", false},
                  {"ExampleHiddenStatesConnector", false},
                  {"LMCacheConnectorV1", false},
                  {"LMCacheMPConnector", false},
                  {"NixlConnector", true},
                  {"NixlPullConnector", false},
                  {"NixlPushConnector", false},
                  {"MultiConnector", false},
                  {"MoRIIOConnector", false},
                  {"OffloadingConnector", true},
                  {"DecodeBenchConnector", false},
                  {"MooncakeConnector", false},
                  {"MooncakeStoreConnector", false},
                  {"FlexKVConnectorV1", false},
                  {"SimpleCPUOffloadConnector", false},
                  {"HF3FSKVConnector", false}};
  p.removed_connectors = {
      {"P2pNcclConnector", "vLLM removed P2pNcclConnector in PR #44854 (June 2026, before 0.23)"},
      {"SharedStorageConnector",
       "vLLM renamed SharedStorageConnector to ExampleConnector (factory.py registration list)"},
      {"PyNcclConnector", "vLLM removed the V0 PyNcclConnector (PR #24151, September 2025)"},
  };

  // EngineArgs fields (vllm/engine/arg_utils.py@002f10e0) that change what vLLM does but
  // that BLIS Playground does not simulate. Setting one is an error, not silence.
  p.unmodelled_args = {"cpu_offload_gb",
                       "compilation_config",
                       "cudagraph_capture_sizes",
                       "max_cudagraph_capture_size",
                       "attention_backend",
                       "distributed_executor_backend",
                       "decode_context_parallel_size",
                       "prefill_context_parallel_size",
                       "enable_expert_parallel",
                       "enable_eplb",
                       "enable_dbo",
                       "all2all_backend",
                       "max_num_scheduled_tokens",
                       "max_num_active_seqs",
                       "max_num_queued_reqs",
                       "max_num_queued_tokens",
                       "disable_hybrid_kv_cache_manager",
                       "disable_sliding_window",
                       "disable_cascade_attn",
                       "disable_chunked_mm_input",
                       "watermark",
                       "prefill_schedule_interval",
                       "kv_cache_dtype_skip_layers",
                       "prefix_match_unit",
                       "attn_group_size",
                       "prefix_cache_retention_interval",
                       "quantization_config",
                       "fully_sharded_loras",
                       "lora_dtype",
                       "lora_target_modules",
                       "default_mm_loras",
                       "scheduler_cls",
                       "stream_interval",
                       "kv_events_config",
                       "ec_transfer_config",
                       "limit_mm_per_prompt",
                       "mm_processor_cache_gb",
                       "hf_overrides",
                       "enable_sleep_mode",
                       "spec_method",
                       "spec_model",
                       "spec_tokens"};

  p.rules = {
      {"args.block_size", "error",
       "block_size must be > 0 and a multiple of 16 (the CUDA attention backends' kernel block "
       "size)",
       "vllm/config/cache.py@002f10e0 CacheConfig.block_size; "
       "vllm/v1/attention/backends/flash_attn.py FlashAttentionBackend.supports_block_size"},
      {"args.gpu_memory_utilization", "error", "gpu_memory_utilization must be in (0, 1]",
       "vllm/config/cache.py@002f10e0 CacheConfig.gpu_memory_utilization Field(gt=0, le=1)"},
      {"args.literals", "error",
       "kv_cache_dtype, prefix_caching_hash_algo, scheduling_policy, dtype, quantization, "
       "max_lora_rank, performance_mode, kv_offloading_backend take only the release's literal "
       "values",
       "vllm/config/cache.py@002f10e0, config/scheduler.py@1f8758d5, config/model.py, "
       "config/lora.py, model_executor/layers/quantization/__init__.py"},
      {"args.positive_ints", "error",
       "max_num_seqs, max_num_batched_tokens, max_num_partial_prefills, "
       "max_long_partial_prefills, max_loras must be >= 1",
       "vllm/config/scheduler.py@1f8758d5 Field(ge=1); vllm/config/lora.py Field(ge=1)"},
      {"default.max_model_len", "default", "max_model_len defaults to the model's derived maximum",
       "vllm/config/model.py ModelConfig.get_and_verify_max_len"},
      {"model.max_model_len_above_derived", "error",
       "max_model_len above the model's derived maximum is refused (VLLM_ALLOW_LONG_MAX_MODEL_LEN "
       "is not modelled)",
       "vllm/config/model.py ModelConfig.get_and_verify_max_len"},
      {"model.tp_divides_heads", "error",
       "the number of attention heads must be divisible by tensor_parallel_size",
       "vllm/config/model.py ModelConfig.verify_with_parallel_config"},
      {"default.batch", "default",
       "max_num_batched_tokens / max_num_seqs unset: >= 160 GiB GPUs 16384/1024; >= 70 GiB and "
       "not A100 8192/1024; otherwise 2048/256 (OPENAI_API_SERVER usage context)",
       "vllm/engine/arg_utils.py@002f10e0 EngineArgs.get_batch_defaults"},
      {"default.performance_mode_throughput", "default",
       "performance_mode=throughput doubles the unset max_num_batched_tokens and max_num_seqs",
       "vllm/engine/arg_utils.py@002f10e0 "
       "EngineArgs._set_default_max_num_seqs_and_batched_tokens_args"},
      {"default.batch_no_chunking", "default",
       "with chunked prefill off and max_num_batched_tokens unset, max_num_batched_tokens = "
       "max(max_model_len, default)",
       "vllm/engine/arg_utils.py@002f10e0 "
       "EngineArgs._set_default_max_num_seqs_and_batched_tokens_args"},
      {"default.chunked_prefix", "default",
       "enable_chunked_prefill and enable_prefix_caching unset -> True for generative decoder "
       "models",
       "vllm/engine/arg_utils.py@002f10e0 "
       "EngineArgs._set_default_chunked_prefill_and_prefix_caching_args"},
      {"default.gpu_memory_utilization", "default", "gpu_memory_utilization defaults to 0.92",
       "vllm/config/cache.py@002f10e0; pinned at v0.25.0 and v0.30.0 by third-party copies"},
      {"default.long_prefill_token_threshold", "default",
       "max_num_partial_prefills > 1 and threshold 0 -> int(max_model_len * 0.04)",
       "vllm/config/scheduler.py@1f8758d5 SchedulerConfig.__post_init__"},
      {"scheduler.batched_tokens_below_model_len", "error",
       "chunked prefill off and max_num_batched_tokens < max_model_len",
       "vllm/config/scheduler.py@1f8758d5 SchedulerConfig.verify_max_model_len"},
      {"scheduler.batched_tokens_below_seqs", "error", "max_num_batched_tokens < max_num_seqs",
       "vllm/config/scheduler.py@1f8758d5 SchedulerConfig.verify_max_model_len"},
      {"scheduler.batched_tokens_above_capacity", "warning",
       "max_num_batched_tokens > max_num_seqs * max_model_len",
       "vllm/config/scheduler.py@1f8758d5 SchedulerConfig.verify_max_model_len"},
      {"scheduler.partial_prefills_need_chunking", "error",
       "max_num_partial_prefills > 1 needs chunked prefill",
       "vllm/config/scheduler.py@1f8758d5 SchedulerConfig.verify_max_model_len"},
      {"scheduler.threshold_above_model_len", "error",
       "max_num_partial_prefills > 1 and long_prefill_token_threshold > max_model_len",
       "vllm/config/scheduler.py@1f8758d5 SchedulerConfig.verify_max_model_len"},
      {"scheduler.long_above_partial", "error",
       "max_long_partial_prefills > max_num_partial_prefills",
       "vllm/config/scheduler.py@1f8758d5 SchedulerConfig.verify_max_model_len"},
      {"async.default", "default",
       "async_scheduling unset -> True, unless a speculative method outside EAGLE/MTP/draft "
       "model/ngram_gpu/dspark is configured (then False, with a warning)",
       "vllm/config/vllm.py@000fc94b VllmConfig.__post_init__"},
      {"async.speculative", "error",
       "async_scheduling=true with a speculative method outside EAGLE/MTP/draft model/"
       "ngram_gpu/dspark",
       "vllm/config/vllm.py@000fc94b VllmConfig.__post_init__"},
      {"lora.max_cpu_loras", "error", "max_cpu_loras < max_loras",
       "vllm/config/lora.py LoRAConfig._validate_lora_config"},
      {"lora.unused", "warning", "LoRA options without enable_lora have no effect",
       "vllm/engine/arg_utils.py EngineArgs.create_engine_config (lora_config only when "
       "enable_lora)"},
      {"speculative.num_tokens", "error", "num_speculative_tokens must be > 0",
       "vllm/config/speculative.py SpeculativeConfig.num_speculative_tokens Field(gt=0)"},
      {"speculative.method", "error",
       "method must be one of the release's SpeculativeMethod values",
       "vllm/config/speculative.py SpeculativeMethod"},
      {"kv_transfer.role", "error", "kv_role outside kv_producer/kv_consumer/kv_both",
       "vllm/config/kv_transfer.py@007c643b KVTransferConfig.__post_init__"},
      {"kv_transfer.role_required", "error", "kv_connector set without kv_role",
       "vllm/config/kv_transfer.py@007c643b KVTransferConfig.__post_init__"},
      {"kv_transfer.connector", "error",
       "kv_connector not registered in the release: Unsupported connector type",
       "vllm/distributed/kv_transfer/kv_connector/factory.py "
       "KVConnectorFactory.get_connector_class"},
      {"kv_transfer.not_modelled", "error",
       "a registered connector other than NixlConnector/OffloadingConnector is not modelled",
       "BLIS Playground"},
      {"kv_transfer.offloading_block_size", "error",
       "OffloadingConnector block_size must be a multiple of the GPU block_size",
       "vllm/distributed/kv_transfer/kv_connector/v1/offloading_connector.py@0072b0b7 "
       "OffloadingConnectorScheduler.__init__"},
      {"kv_transfer.offloading_size", "default",
       "kv_offloading_size (GiB) with backend native -> OffloadingConnector, kv_role kv_both, "
       "cpu_bytes_to_use = size * 2^30; it replaces any kv_connector given",
       "vllm/config/vllm.py@000fc94b VllmConfig._post_init_kv_transfer_config"},
      {"quantization.checkpoint", "error",
       "a method other than the online ones needs a checkpoint quantized with it; a quantized "
       "checkpoint refuses a different method (its _marlin kernel variant aside)",
       "vllm/config/model.py ModelConfig._verify_quantization; "
       "vllm/model_executor/model_loader/weight_utils.py get_quant_config"},
      {"cuda.flashmla_block_size", "default",
       "MLA models on Hopper/Blackwell use FlashMLA: block_size defaults to (and is forced to) 64",
       "vllm/platforms/cuda.py CudaPlatform.check_and_update_config"},
      {"kv_cache_memory_bytes.overrides", "warning",
       "kv_cache_memory_bytes set: gpu_memory_utilization is ignored",
       "vllm/config/cache.py@002f10e0 CacheConfig.kv_cache_memory_bytes"},
  };
  return p;
}

}  // namespace blis::rules::packs
