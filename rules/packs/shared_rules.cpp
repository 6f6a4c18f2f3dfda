// The rules every pack of the 0.29-0.32 line holds (Pack::rules): each check and default of
// rules/ with its source. Sources are files of upstream vLLM at 8d9b52f7 unless a row names
// another commit.

#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

std::vector<RuleInfo> shared_rules() {
  return {
      {"args.block_size", "error",
       "block_size must be > 0 and a multiple of 16 (the CUDA attention backends' kernel block "
       "size)",
       "vllm/config/cache.py CacheConfig.block_size Field(gt=0); "
       "vllm/v1/attention/backends/flash_attn.py FlashAttentionBackend.supports_block_size"},
      {"args.gpu_memory_utilization", "error", "gpu_memory_utilization must be in (0, 1]",
       "vllm/config/cache.py CacheConfig.gpu_memory_utilization Field(gt=0, le=1)"},
      {"args.literals", "error",
       "kv_cache_dtype, prefix_caching_hash_algo, scheduling_policy, dtype, quantization, "
       "max_lora_rank, performance_mode, kv_offloading_backend take only the release's literal "
       "values (quantization is lower-cased first)",
       "vllm/config/cache.py, config/scheduler.py, config/model.py "
       "(validate_quantization_before), config/lora.py, config/vllm.py, "
       "model_executor/layers/quantization/__init__.py"},
      {"args.positive_ints", "error",
       "max_num_seqs, max_num_batched_tokens and (with enable_lora) max_loras must be >= 1",
       "vllm/config/scheduler.py Field(ge=1); vllm/config/lora.py LoRAConfig.max_loras "
       "Field(ge=1)"},
      {"args.max_model_len", "error",
       "max_model_len: Field(ge=-1); 0 is refused (must be a positive integer); -1 and \"auto\" "
       "fit it to memory",
       "vllm/config/model.py ModelConfig.max_model_len, validate_model_config_after; "
       "vllm/utils/argparse_utils.py human_readable_int_or_auto"},
      {"args.max_logprobs", "error", "max_logprobs must be >= -1 (-1 = no cap)",
       "vllm/config/model.py ModelConfig.max_logprobs Field(ge=-1)"},
      {"default.max_model_len", "default", "max_model_len defaults to the model's derived maximum",
       "vllm/config/model.py _get_and_verify_max_len"},
      {"default.max_model_len_auto", "default",
       "max_model_len -1 / \"auto\": the derived maximum while the config is built, then the "
       "largest length whose one request fits the KV cache (bisection), or an error when not even "
       "one token fits",
       "vllm/v1/core/kv_cache_utils.py get_kv_cache_configs, _auto_fit_max_model_len, "
       "_estimate_max_model_len_from_groups"},
      {"model.max_model_len_above_derived", "error",
       "max_model_len above the model's derived maximum is refused (VLLM_ALLOW_LONG_MAX_MODEL_LEN "
       "is not modelled)",
       "vllm/config/model.py _get_and_verify_max_len"},
      {"model.tp_divides_heads", "error",
       "the number of attention heads must be divisible by tensor_parallel_size",
       "vllm/config/model.py ModelConfig.verify_with_parallel_config"},
      {"default.batch", "default",
       "max_num_batched_tokens / max_num_seqs unset: >= 70 GiB and not A100 8192/1024; "
       "otherwise 2048/256 (OPENAI_API_SERVER usage context)",
       "vllm/engine/arg_utils.py EngineArgs.get_batch_defaults"},
      {"default.performance_mode_throughput", "default",
       "performance_mode=throughput doubles the unset max_num_batched_tokens and max_num_seqs",
       "vllm/engine/arg_utils.py EngineArgs._set_default_max_num_seqs_and_batched_tokens_args"},
      {"default.batch_no_chunking", "default",
       "with chunked prefill off and max_num_batched_tokens unset, max_num_batched_tokens = "
       "max(max_model_len, default)",
       "vllm/engine/arg_utils.py EngineArgs._set_default_max_num_seqs_and_batched_tokens_args"},
      {"default.batch_caps", "default",
       "an unset max_num_batched_tokens is capped at max_num_seqs * max_model_len (256 with "
       "expert parallelism over dp > 1 on the deepep_low_latency / nixl_ep all2all backend), "
       "an unset max_num_seqs at max_num_batched_tokens",
       "vllm/engine/arg_utils.py EngineArgs._set_default_max_num_seqs_and_batched_tokens_args; "
       "vllm/config/parallel.py ParallelConfig.use_batched_dp_moe"},
      {"default.chunked_prefix", "default",
       "enable_chunked_prefill and enable_prefix_caching unset -> True for generative decoder "
       "models",
       "vllm/engine/arg_utils.py "
       "EngineArgs._set_default_chunked_prefill_and_prefix_caching_args"},
      {"default.gpu_memory_utilization", "default", "gpu_memory_utilization defaults to 0.92",
       "vllm/config/cache.py CacheConfig.gpu_memory_utilization"},
      {"scheduler.batched_tokens_below_model_len", "error",
       "chunked prefill off and max_num_batched_tokens < max_model_len",
       "vllm/config/scheduler.py SchedulerConfig.verify_max_model_len"},
      {"scheduler.batched_tokens_below_seqs", "error", "max_num_batched_tokens < max_num_seqs",
       "vllm/config/scheduler.py SchedulerConfig.verify_max_model_len"},
      {"scheduler.batched_tokens_above_capacity", "warning",
       "max_num_batched_tokens > max_num_seqs * max_model_len",
       "vllm/config/scheduler.py SchedulerConfig.verify_max_model_len"},
      {"scheduler.threshold_nonnegative", "error", "long_prefill_token_threshold must be >= 0",
       "vllm/config/scheduler.py SchedulerConfig.long_prefill_token_threshold Field(ge=0) "
       "(PR #44070, 2026-06-30)"},
      {"scheduler.threshold_above_model_len", "error",
       "long_prefill_token_threshold > max_model_len",
       "vllm/config/scheduler.py SchedulerConfig.verify_max_model_len"},
      {"async.default", "default",
       "async_scheduling unset -> True, unless a speculative method outside EAGLE/MTP/draft "
       "model/ngram_gpu/dspark is configured (then False, with a warning)",
       "vllm/config/vllm.py VllmConfig.__post_init__"},
      {"async.speculative", "error",
       "async_scheduling=true with a speculative method outside EAGLE/MTP/draft model/"
       "ngram_gpu/dspark",
       "vllm/config/vllm.py VllmConfig.__post_init__"},
      {"parallel.expert_parallel_dense", "error",
       "enable_expert_parallel on a model without experts",
       "vllm/config/model.py ModelConfig._verify_with_expert_parallelism"},
      {"parallel.expert_parallel_one_rank", "warning",
       "enable_expert_parallel with tp = dp = 1 shards nothing",
       "vllm/model_executor/layers/fused_moe/config.py FusedMoEParallelConfig.make (use_ep)"},
      {"parallel.dp_launch", "error",
       "data-parallel launch options: hybrid_lb with external_lb; hybrid_lb without "
       "data_parallel_size_local; external LB (external_lb or a data_parallel_rank) without a "
       "rank, with size_local != 1, on a dense model with dp > 1, or with dp = 1; nnodes "
       "against dp x pp x tp, node_rank and data_parallel_backend; fault tolerance without "
       "external LB",
       "vllm/engine/arg_utils.py EngineArgs.create_engine_config; vllm/config/parallel.py "
       "ParallelConfig._validate_parallel_config"},
      {"parallel.dp_ranks", "error",
       "data_parallel_size_local <= dp; data_parallel_rank (or start rank) in [0, dp)",
       "vllm/config/parallel.py ParallelConfig._validate_parallel_config, __post_init__"},
      {"parallel.eplb", "error",
       "enable_eplb needs enable_expert_parallel and tp x pcp x dp > 1; "
       "eplb_config.num_redundant_experts needs enable_eplb; async EPLB refuses the torch_nccl "
       "and pynccl communicators; enable_elastic_ep needs enable_eplb, pp = 1, internal LB",
       "vllm/config/parallel.py ParallelConfig._validate_parallel_config, __post_init__, "
       "EPLBConfig._validate_eplb_config"},
      {"parallel.numa_devices_cp", "error",
       "numa_bind_nodes / numa_bind_cpus need numa_bind, non-empty, numactl CPU lists; "
       "device_ids without duplicates or mixed kinds; pcp > 1 with dp > 1; tp % dcp; "
       "dcp_comm_backend a2a needs dcp > 1; nnodes > 1 with a Ray executor; "
       "ray_workers_use_nsight needs Ray",
       "vllm/config/parallel.py ParallelConfig validators, _verify_args; vllm/engine/"
       "arg_utils.py EngineArgs._resolve_device_ids"},
      {"offload.prefetch", "error",
       "prefetch offloading (offload_backend prefetch or offload_group_size > 0): "
       "offload_num_in_group <= offload_group_size, offload_prefetch_step >= 1",
       "vllm/config/offload.py OffloadConfig.validate_offload_config"},
      {"multimodal.validators", "error",
       "on a multimodal model: mm_shm_cache_max_object_size_mb only with "
       "mm_processor_cache_type shm; the FP8 scale paths need mm_encoder_attn_dtype fp8 and "
       "not both; mm_tensor_ipc torch_shm needs VLLM_WORKER_MULTIPROC_METHOD=spawn (not "
       "modelled: refused); collect_detailed_traces needs otlp_traces_endpoint (any model)",
       "vllm/config/multimodal.py MultiModalConfig._validate_multimodal_config; "
       "vllm/config/vllm.py VllmConfig.__post_init__; "
       "vllm/config/observability.py ObservabilityConfig._validate_tracing_config"},
      {"combinations.vllm_config", "error",
       "default_mm_loras on a text model (even without enable_lora); "
       "enable_return_routed_experts with pp > 1 or an explicit KV connector; Mamba stochastic "
       "rounding without mamba_ssm_cache_dtype float16; kv_sharing_fast_prefill with an "
       "EAGLE-style method (eagle, eagle3, mtp, dflash, dspark); attention_backend with "
       "attention_config.backend, enable_flashinfer_autotune with kernel_config's, an "
       "ir_op_priority op in both; enable_dbo or ubatch_size > 1 without a DeepEP/NIXL EP "
       "all2all_backend; mamba_block_size without prefix caching; use_replayssm off "
       "Nemotron-H, with mamba_cache_mode all, speculative decoding, a non-Triton Mamba "
       "backend or a KV connector; with dcp > 1 an interleave size that does not divide "
       "block_size; mamba_cache_mode align with disable_chunked_mm_input; dcp > 1 on a "
       "GQA/MQA model needs tp > its KV heads, dcp <= tp / KV heads and dcp dividing the query "
       "heads per KV head; a configuration that needs Model Runner V2 (prefill context "
       "parallelism, dspark) with a feature V2 lacks (PCP without MLA, ngram or non-EAGLE "
       "methods, prompt embeds, logits processors, DBO, elastic EP, fast prefill, ...)",
       "vllm/engine/arg_utils.py EngineArgs.create_engine_config; vllm/config/vllm.py "
       "VllmConfig.__post_init__, validate_mamba_block_size, validate_mamba_cached_kernel, "
       "validate_block_size, _validate_v2_model_runner; vllm/config/model.py "
       "ModelConfig.verify_with_parallel_config"},
      {"config_objects.validators", "error",
       "ec_transfer_config: ec_connector needs an ec_role; structured_outputs_config: "
       "disable_any_whitespace needs backend xgrammar/guidance, disable_additional_properties "
       "guidance; profiler_config: torch_profiler_dir and capture_torch_profiler only with "
       "profiler torch, which needs torch_profiler_dir; an SSU algorithm needs mamba_backend "
       "flashinfer; pooler_config: logit_sigma != 0, pooling_type not with seq_/tok_pooling_type; "
       "attention_config.backend_per_kind keys are KVCacheSpecKind values",
       "vllm/config/ec_transfer.py, structured_outputs.py, profiler.py, mamba.py, pooler.py, "
       "attention.py validators; vllm/engine/arg_utils.py EngineArgs.create_engine_config"},
      {"quantization.config_args", "error",
       "quantization_config only with quantization unset or an online shorthand (fp8_per_tensor, "
       "fp8_per_block, fp8_per_channel, mxfp8, int8_per_channel_weight_only, nvfp4_per_token, "
       "online); its keys linear, moe (a shorthand, a quantization name or {weight, activation}) "
       "and ignore (list[str])",
       "vllm/config/quantization.py resolve_quantization_config, QuantizationConfigArgs"},
      {"compilation.post_init", "error",
       "compilation_config: one custom_ops base mode, no op both enabled and disabled; with "
       "mode VLLM_COMPILE only the backends \"\", eager, inductor; negative encoder CUDA "
       "graph limits with cudagraph_mm_encoder; inductor_passes values are strings; null for a "
       "field that is not Optional (also in kv_transfer_config)",
       "vllm/config/compilation.py CompilationConfig.__post_init__; vllm/config/"
       "kv_transfer.py KVTransferConfig"},
      {"multimodal.text_model", "warning",
       "a MultiModalConfig argument on a text model: only the ModelConfig InitVar's type is "
       "checked, then ignored (no MultiModalConfig is built)",
       "vllm/config/model.py ModelConfig.__post_init__"},
      {"lora.max_cpu_loras", "error", "max_cpu_loras < max_loras",
       "vllm/config/lora.py LoRAConfig._validate_lora_config"},
      {"lora.max_cpu_loras_unset", "default", "max_cpu_loras <= 0 or unset -> max_loras",
       "vllm/engine/arg_utils.py EngineArgs.create_engine_config; vllm/config/lora.py "
       "LoRAConfig._validate_lora_config"},
      {"lora.speculative_budget", "error",
       "LoRA with speculative decoding needs max_num_batched_tokens >= max_num_seqs * "
       "(num_speculative_tokens + 1)",
       "vllm/engine/arg_utils.py EngineArgs.create_engine_config"},
      {"lora.unused", "warning", "LoRA options without enable_lora have no effect",
       "vllm/engine/arg_utils.py EngineArgs.create_engine_config (lora_config only when "
       "enable_lora)"},
      {"speculative.num_tokens", "error",
       "num_speculative_tokens must be > 0 and is required (suffix defaults it to 24)",
       "vllm/config/speculative.py SpeculativeConfig.num_speculative_tokens Field(gt=0), "
       "_verify_args, _validate_suffix_decoding"},
      {"speculative.method", "error",
       "method must be one of the release's SpeculativeMethod values",
       "vllm/config/speculative.py SpeculativeMethod"},
      {"speculative.method_inferred", "default",
       "method unset: custom_class for a dotted class path, ngram for model \"ngram\", else "
       "draft_model, which eagle-/eagle3/dflash/dspark in the model name turn into those",
       "vllm/config/speculative.py SpeculativeConfig.__post_init__"},
      {"speculative.mtp_alias", "warning",
       "an MTP model type as method is deprecated and replaced with mtp",
       "vllm/config/speculative.py SpeculativeConfig.__post_init__"},
      {"speculative.mtp_target", "error",
       "mtp (or an MTP model type) without a draft model on a target with no MTP layers: "
       "LlamaForCausalLM, MistralForCausalLM, MixtralForCausalLM, Qwen2ForCausalLM, "
       "Qwen3ForCausalLM, Qwen3MoeForCausalLM, GptOssForCausalLM, "
       "Llama4ForConditionalGeneration (Unsupported speculative method: 'mtp')",
       "vllm/config/speculative.py SpeculativeConfig.__post_init__, hf_config_override"},
      {"speculative.model_required", "error",
       "eagle, eagle3, dflash, draft_model, medusa, mlp_speculator and custom_class need a "
       "draft model: num_speculative_tokens was provided but without speculative model",
       "vllm/config/speculative.py SpeculativeConfig.__post_init__"},
      {"speculative.draft_slots", "error",
       "draft_model adds one slot per request: max_num_batched_tokens - max_num_seqs must leave "
       "max_num_scheduled_tokens > 0 (a warning below 8192)",
       "vllm/config/vllm.py VllmConfig._set_max_num_scheduled_tokens; vllm/config/"
       "speculative.py SpeculativeConfig.max_num_new_slots_for_drafting"},
      {"scheduler.scheduled_tokens_slots", "error",
       "with speculative decoding an explicit max_num_scheduled_tokens must be > 0 and leave "
       "max_num_batched_tokens - max_num_scheduled_tokens >= the drafter's slots (a warning "
       "below 8192)",
       "vllm/config/vllm.py VllmConfig._set_max_num_scheduled_tokens"},
      {"scheduler.scheduled_tokens_zero", "warning",
       "max_num_scheduled_tokens 0 without speculative decoding: vLLM's Field(ge=0) accepts it, "
       "but its scheduler then has no token budget and never schedules a token",
       "vllm/config/scheduler.py SchedulerConfig.max_num_scheduled_tokens; vllm/v1/core/sched/"
       "scheduler.py Scheduler.schedule (token_budget); BLIS Playground"},
      {"scheduler.scheduled_tokens_above_batched", "warning",
       "max_num_scheduled_tokens above max_num_batched_tokens (vLLM does not check it; the "
       "scheduler then issues more tokens per step than the worker is sized for)",
       "vllm/config/scheduler.py SchedulerConfig.max_num_scheduled_tokens (usually equal to "
       "max_num_batched_tokens, smaller with speculative decoding)"},
      {"kv_transfer.role", "error", "kv_role outside kv_producer/kv_consumer/kv_both",
       "vllm/config/kv_transfer.py KVTransferConfig.__post_init__"},
      {"kv_transfer.role_required", "error", "kv_connector set without kv_role",
       "vllm/config/kv_transfer.py KVTransferConfig.__post_init__"},
      {"kv_transfer.connector", "error",
       "kv_connector not registered in the release: Unsupported connector type",
       "vllm/distributed/kv_transfer/kv_connector/factory.py "
       "KVConnectorFactory.get_connector_class"},
      {"kv_transfer.not_modelled", "error",
       "a registered connector other than NixlConnector/OffloadingConnector is not modelled",
       "BLIS Playground"},
      {"kv_transfer.offloading_block_size", "error",
       "OffloadingConnector block_size must be a multiple of the GPU block_size",
       "vllm/distributed/kv_transfer/kv_connector/v1/offloading_connector.py "
       "OffloadingConnectorScheduler.__init__"},
      {"kv_transfer.offloading_eviction_policy", "error",
       "OffloadingConnector kv_connector_extra_config eviction_policy must be a built-in cache "
       "policy (lru, arc): Unknown cache policy",
       "vllm/v1/kv_offload/cpu/policies/factory.py CachePolicyFactory.get_cache_policy_cls"},
      {"kv_transfer.offloading_size", "default",
       "kv_offloading_size (GiB) with backend native -> OffloadingConnector, kv_role kv_both, "
       "cpu_bytes_to_use = size * 2^30; it replaces any kv_connector given",
       "vllm/config/vllm.py VllmConfig._post_init_kv_transfer_config"},
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
       "vllm/config/cache.py CacheConfig.kv_cache_memory_bytes"},
      {"kv_cache_memory_bytes.zero", "default",
       "kv_cache_memory_bytes 0 is treated as unset (the KV cache is sized from "
       "gpu_memory_utilization)",
       "vllm/v1/worker/gpu_worker.py Worker.determine_available_memory"},
      {"kv_cache.num_gpu_blocks_override", "error",
       "num_gpu_blocks_override blocks must hold one max_model_len request, and so must the "
       "blocks other than the null block (checked by the scenario decoder with the KV layout "
       "of the model and GPU)",
       "vllm/v1/core/kv_cache_utils.py get_kv_cache_configs, _check_enough_kv_cache_memory; "
       "vllm/v1/core/block_pool.py BlockPool (null block)"},
      {"args.removed", "error",
       "an argument the release removed is an unknown key (max_num_partial_prefills, "
       "max_long_partial_prefills: PR #49244, 2026-07-21)",
       "vllm/config/scheduler.py, vllm/engine/arg_utils.py"},
  };
}

}  // namespace blis::rules::packs
