// The EngineArgs fields of upstream 8d9b52f7 that vLLM builds a config dataclass from
// (EngineArgs.__post_init__ `X(**value)` for a dict, or pydantic for VllmConfig's and
// ModelConfig's fields). Each dataclass is @config (vllm/config/utils.py config:
// extra="forbid"), so the object takes only its fields; the row "<key>.<field>" gives a field
// its type and bounds (rules/read_typed.cpp reads it). Every one is accepted and simulated as
// vLLM's default.

#include <limits>

#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

namespace {

constexpr bool U = true;   // unmodelled: accepted, simulated as vLLM's default
constexpr bool I = false;  // no effect on what is simulated

// `from`'s row of `rows` as the field `key` of a config object (the same type and check).
ArgSpec same_as(const std::vector<ArgSpec>& rows, const char* from, const char* key,
                const char* source) {
  for (const auto& a : rows) {
    if (a.key != from) continue;
    ArgSpec b = a;
    b.key = key;
    b.source = source;
    return b;
  }
  return typed(key, "string", "", "", source, U);
}

ArgSpec obj(const char* key, const char* def, const char* cls, const char* source, bool unmodelled,
            std::vector<std::string> fields, bool nullable = false) {
  return with_keys(typed(key, "object", def, cls, source, unmodelled, nullable), std::move(fields));
}

void eplb(std::vector<ArgSpec>& v) {
  const char* src = "vllm/config/parallel.py EPLBConfig";
  v.push_back(obj("eplb_config", "{} (EPLBConfig())", "EPLBConfig", src, U,
                  {"window_size", "step_interval", "num_redundant_experts", "log_balancedness",
                   "log_balancedness_interval", "use_async", "policy", "communicator"}));
  v.push_back(int_row("eplb_config.window_size", 1000, 1, kAnyMax, "Field(gt=0)", src, U));
  v.push_back(int_row("eplb_config.step_interval", 3000, 1, kAnyMax, "Field(gt=0)", src, U));
  v.push_back(int_row("eplb_config.num_redundant_experts", 0, 0, kAnyMax, "Field(ge=0)", src, U));
  v.push_back(bool_row("eplb_config.log_balancedness", 0, src, U));
  v.push_back(
      int_row("eplb_config.log_balancedness_interval", 1, 1, kAnyMax, "Field(gt=0)", src, U));
  v.push_back(bool_row("eplb_config.use_async", 1, src, U));
  v.push_back(with_choices(typed("eplb_config.policy", "string", "\"default\"",
                                 "EPLBPolicyOption Literal (default)", src, U, false),
                           {"default"}, 0, "default"));
  v.push_back(with_choices(
      typed("eplb_config.communicator", "string", "null (automatic)",
            "EPLBCommunicatorBackend Literal (torch_nccl, torch_gloo, nixl, pynccl) | None", src,
            U),
      {"torch_nccl", "torch_gloo", "nixl", "pynccl"}, 0, ""));
}

void structured_outputs(std::vector<ArgSpec>& v) {
  const char* src = "vllm/config/structured_outputs.py StructuredOutputsConfig";
  v.push_back(obj("structured_outputs_config", "{} (StructuredOutputsConfig())",
                  "StructuredOutputsConfig", src, I,
                  {"backend", "disable_any_whitespace", "disable_additional_properties",
                   "reasoning_parser", "reasoning_parser_plugin", "enable_in_reasoning"}));
  v.push_back(
      with_choices(typed("structured_outputs_config.backend", "string", "\"auto\"",
                         "StructuredOutputsBackend Literal (auto, xgrammar, guidance, outlines, "
                         "lm-format-enforcer)",
                         src, I, false),
                   {"auto", "xgrammar", "guidance", "outlines", "lm-format-enforcer"}, 0, ""));
  v.push_back(bool_row("structured_outputs_config.disable_any_whitespace", 0, src, I));
  v.push_back(bool_row("structured_outputs_config.disable_additional_properties", 0, src, I));
  v.push_back(
      typed("structured_outputs_config.reasoning_parser", "string", "\"\"", "str", src, I, false));
  v.push_back(typed("structured_outputs_config.reasoning_parser_plugin", "string", "\"\"", "str",
                    src, I, false));
  v.push_back(bool_row("structured_outputs_config.enable_in_reasoning", 0, src, I));
}

void diffusion_and_pooler(std::vector<ArgSpec>& v) {
  const char* d =
      "vllm/config/diffusion.py DiffusionConfig; vllm/engine/arg_utils.py "
      "EngineArgs.create_diffusion_config";
  v.push_back(obj("diffusion_config", "null (not a diffusion model)", "DiffusionConfig", d, U,
                  {"canvas_length", "max_denoising_steps"}, true));
  v.back().json_string = true;  // create_diffusion_config: json.loads of a str
  // canvas_length: int = Field(default=None, gt=0): the default is not validated, an explicit
  // None is (not Optional).
  v.push_back(
      int_row("diffusion_config.canvas_length", std::nullopt, 1, kAnyMax, "Field(gt=0)", d, U));
  v.back().nullable = false;
  v.push_back(int_row("diffusion_config.max_denoising_steps", std::nullopt, kAnyMin, kAnyMax,
                      "int | None", d, U));
  const char* p = "vllm/config/pooler.py PoolerConfig";
  v.push_back(obj("pooler_config", "null (the model's)", "PoolerConfig", p, U,
                  {"task", "pooling_type", "seq_pooling_type", "tok_pooling_type", "use_activation",
                   "dimensions", "enable_chunked_processing", "max_embed_len", "logit_mean",
                   "logit_sigma", "step_tag_id", "returned_token_ids"},
                  true));
  v.push_back(with_choices(
      typed("pooler_config.task", "string", "null", "PoolingTask Literal | None (vllm/tasks.py)", p,
            U),
      {"embed", "classify", "token_embed", "token_classify", "plugin", "embed&token_classify"}, 0,
      ""));
  v.push_back(with_choices(
      typed("pooler_config.pooling_type", "string", "null",
            "SequencePoolingType | TokenPoolingType Literal (CLS, LAST, MEAN, ALL, STEP) | None", p,
            U),
      {"CLS", "LAST", "MEAN", "ALL", "STEP"}, 0, ""));
  v.push_back(with_choices(typed("pooler_config.seq_pooling_type", "string", "null",
                                 "SequencePoolingType Literal (CLS, LAST, MEAN) | None", p, U),
                           {"CLS", "LAST", "MEAN"}, 0, ""));
  v.push_back(with_choices(typed("pooler_config.tok_pooling_type", "string", "null",
                                 "TokenPoolingType Literal (ALL, STEP) | None", p, U),
                           {"ALL", "STEP"}, 0, ""));
  v.push_back(bool_row("pooler_config.use_activation", -1, p, U));
  v.push_back(
      int_row("pooler_config.dimensions", std::nullopt, kAnyMin, kAnyMax, "int | None", p, U));
  v.push_back(bool_row("pooler_config.enable_chunked_processing", 0, p, U));
  v.push_back(
      int_row("pooler_config.max_embed_len", std::nullopt, kAnyMin, kAnyMax, "int | None", p, U));
  v.push_back(float_row("pooler_config.logit_mean", std::nullopt, -1e308, false, 1e308,
                        "float | None", p, U));
  v.push_back(float_row("pooler_config.logit_sigma", std::nullopt, -1e308, false, 1e308,
                        "float | None", p, U));
  v.push_back(
      int_row("pooler_config.step_tag_id", std::nullopt, kAnyMin, kAnyMax, "int | None", p, U));
  ArgSpec ids =
      typed("pooler_config.returned_token_ids", "list[int]", "null", "list[int] | None", p, U);
  ids.int_min = kAnyMin;
  ids.int_max = kAnyMax;
  v.push_back(ids);
}

void attention(std::vector<ArgSpec>& v, const std::vector<ArgSpec>& other) {
  const char* src = "vllm/config/attention.py AttentionConfig";
  v.push_back(
      obj("attention_config", "{} (AttentionConfig())", "AttentionConfig", src, U,
          {"backend", "minimax_m3_msa_decode_backend", "backend_per_kind", "flash_attn_version",
           "use_prefill_decode_attention", "flash_attn_max_num_splits_for_cuda_graph",
           "tq_max_kv_splits_for_cuda_graph", "use_trtllm_attention",
           "disable_flashinfer_q_quantization", "mla_prefill_backend",
           "use_prefill_query_quantization", "use_fp4_indexer_cache", "indexer_kv_dtype",
           "use_non_causal", "sparse_mla_force_mqa", "flex_attn_block_m", "flex_attn_block_n",
           "flex_attn_q_block_size", "flex_attn_kv_block_size"}));
  v.push_back(same_as(other, "attention_backend", "attention_config.backend",
                      "vllm/config/attention.py AttentionConfig.validate_backend_before"));
  v.push_back(
      with_choices(typed("attention_config.minimax_m3_msa_decode_backend", "string", "\"triton\"",
                         "MiniMaxM3MSADecodeBackend Literal (triton, cutlass)", src, U, false),
                   {"triton", "cutlass"}, 0, ""));
  v.push_back(typed("attention_config.backend_per_kind", "dict[str,str]", "{}",
                    "dict[str, AttentionBackendEnum] (KVCacheSpecKind -> backend name)", src, U,
                    false));
  // An int Literal: pydantic-core's LiteralLookup.validate matches an exact int only (no lax
  // "3", 3.0 or true), so it is not read as an int_row.
  v.push_back(with_choices(typed("attention_config.flash_attn_version", "literal[int]", "null",
                                 "Literal[2, 3, 4] | None", src, U),
                           {"2", "3", "4"}, 0, ""));
  for (const char* b : {"use_prefill_decode_attention", "disable_flashinfer_q_quantization",
                        "use_prefill_query_quantization", "use_fp4_indexer_cache", "use_non_causal",
                        "sparse_mla_force_mqa"}) {
    v.push_back(bool_row((std::string("attention_config.") + b).c_str(), 0, src, U));
  }
  v.push_back(bool_row("attention_config.use_trtllm_attention", -1, src, U));
  for (const char* n :
       {"flash_attn_max_num_splits_for_cuda_graph", "tq_max_kv_splits_for_cuda_graph"}) {
    v.push_back(int_row((std::string("attention_config.") + n).c_str(), 32, kAnyMin, kAnyMax, "int",
                        src, U));
  }
  v.push_back(with_choices(
      typed("attention_config.mla_prefill_backend", "string", "null (automatic)",
            "MLAPrefillBackendEnum name (upper-cased) | None",
            "vllm/config/attention.py AttentionConfig.validate_mla_prefill_backend_before; "
            "vllm/v1/attention/backends/mla/prefill/registry.py MLAPrefillBackendEnum",
            U),
      {"FLASH_ATTN", "FLASHINFER", "TRTLLM_RAGGED", "TOKENSPEED_MLA", "ROCM_AITER_FA", "CUSTOM"},
      'u', ""));
  v.push_back(with_choices(typed("attention_config.indexer_kv_dtype", "string", "\"bf16\"",
                                 "IndexerKVDType Literal (bf16, fp8, mxfp4, nvfp4)", src, U, false),
                           {"bf16", "fp8", "mxfp4", "nvfp4"}, 0, ""));
  for (const char* n : {"flex_attn_block_m", "flex_attn_block_n", "flex_attn_q_block_size",
                        "flex_attn_kv_block_size"}) {
    v.push_back(int_row((std::string("attention_config.") + n).c_str(), std::nullopt, kAnyMin,
                        kAnyMax, "int | None", src, U));
  }
}

void mamba_and_kernel(std::vector<ArgSpec>& v, const std::vector<ArgSpec>& more,
                      const std::vector<ArgSpec>& mm) {
  const char* m = "vllm/config/mamba.py MambaConfig";
  v.push_back(obj("mamba_config", "{} (MambaConfig())", "MambaConfig", m, U,
                  {"backend", "enable_stochastic_rounding", "stochastic_rounding_philox_rounds",
                   "ssu_algorithm"}));
  v.push_back(same_as(mm, "mamba_backend", "mamba_config.backend",
                      "vllm/config/mamba.py MambaConfig.validate_backend_before"));
  v.push_back(bool_row("mamba_config.enable_stochastic_rounding", 0, m, U));
  v.push_back(
      int_row("mamba_config.stochastic_rounding_philox_rounds", 0, kAnyMin, kAnyMax, "int", m, U));
  v.push_back(same_as(mm, "mamba_ssu_algorithm", "mamba_config.ssu_algorithm",
                      "vllm/config/mamba.py MambaConfig.ssu_algorithm"));
  // IrOpPriorityConfig: each field a list of names, or one comma-separated string
  // (_to_list_str). kernel_config.ir_op_priority is the same class: read_typed.cpp reads its
  // fields with these rows.
  const char* k = "vllm/config/kernel.py KernelConfig";
  const char* ir = "vllm/config/kernel.py IrOpPriorityConfig";
  v.push_back(obj("ir_op_priority", "{} (IrOpPriorityConfig())", "IrOpPriorityConfig", ir, U,
                  {"rms_norm", "fused_add_rms_norm"}));
  v.push_back(
      typed("ir_op_priority.rms_norm", "str|list[str]", "[]", "list[str] | str", ir, U, false));
  v.push_back(typed("ir_op_priority.fused_add_rms_norm", "str|list[str]", "[]", "list[str] | str",
                    ir, U, false));
  v.push_back(
      obj("kernel_config", "{} (KernelConfig())", "KernelConfig", k, U,
          {"ir_op_priority", "enable_flashinfer_autotune", "enable_cutedsl_warmup",
           "enable_jit_warmup", "enable_bf16x3_router_gemm", "moe_backend", "linear_backend"}));
  v.push_back(obj("kernel_config.ir_op_priority", "{} (IrOpPriorityConfig())", "IrOpPriorityConfig",
                  ir, U, {"rms_norm", "fused_add_rms_norm"}));
  v.push_back(bool_row("kernel_config.enable_flashinfer_autotune", -1, k, U));
  v.push_back(bool_row("kernel_config.enable_cutedsl_warmup", 1, k, U, true));
  v.push_back(bool_row("kernel_config.enable_jit_warmup", 1, k, U, true));
  v.push_back(bool_row("kernel_config.enable_bf16x3_router_gemm", 0, k, U));
  v.push_back(same_as(more, "moe_backend", "kernel_config.moe_backend",
                      "vllm/config/kernel.py KernelConfig.moe_backend"));
  v.push_back(same_as(more, "linear_backend", "kernel_config.linear_backend",
                      "vllm/config/kernel.py KernelConfig.linear_backend"));
}

void profiler(std::vector<ArgSpec>& v) {
  const char* src = "vllm/config/profiler.py ProfilerConfig";
  v.push_back(obj(
      "profiler_config", "{} (no profiler)", "ProfilerConfig", src, I,
      {"profiler", "torch_profiler_dir", "torch_profiler_with_stack", "torch_profiler_with_flops",
       "torch_profiler_use_gzip", "torch_profiler_dump_cuda_time_total",
       "torch_profiler_record_shapes", "torch_profiler_with_memory", "capture_torch_profiler",
       "detailed_trace_annotation", "ignore_frontend", "delay_iterations", "max_iterations",
       "warmup_iterations", "active_iterations", "wait_iterations"}));
  v.push_back(with_choices(typed("profiler_config.profiler", "string", "null",
                                 "ProfilerKind Literal (torch, cuda) | None", src, I),
                           {"torch", "cuda"}, 0, ""));
  v.push_back(typed("profiler_config.torch_profiler_dir", "string", "\"\"", "str", src, I, false));
  for (const char* b : {"torch_profiler_with_stack", "torch_profiler_use_gzip",
                        "torch_profiler_dump_cuda_time_total"}) {
    v.push_back(bool_row((std::string("profiler_config.") + b).c_str(), 1, src, I));
  }
  for (const char* b :
       {"torch_profiler_with_flops", "torch_profiler_record_shapes", "torch_profiler_with_memory",
        "capture_torch_profiler", "detailed_trace_annotation", "ignore_frontend"}) {
    v.push_back(bool_row((std::string("profiler_config.") + b).c_str(), 0, src, I));
  }
  for (const char* n :
       {"delay_iterations", "max_iterations", "warmup_iterations", "wait_iterations"}) {
    v.push_back(int_row((std::string("profiler_config.") + n).c_str(), 0, 0, kAnyMax, "Field(ge=0)",
                        src, I));
  }
  v.push_back(int_row("profiler_config.active_iterations", 5, 1, kAnyMax, "Field(ge=1)", src, I));
}

void others(std::vector<ArgSpec>& v) {
  const char* r =
      "vllm/config/reasoning.py ReasoningConfig (the _-prefixed fields are "
      "init=False)";
  v.push_back(obj("reasoning_config", "{} (ReasoningConfig())", "ReasoningConfig", r, I,
                  {"reasoning_parser", "reasoning_start_str", "reasoning_end_str"}));
  for (const char* s : {"reasoning_parser", "reasoning_start_str", "reasoning_end_str"}) {
    v.push_back(typed((std::string("reasoning_config.") + s).c_str(), "string", "\"\"", "str", r, I,
                      false));
  }
  const char* f =
      "vllm/config/fault_tolerance.py FaultToleranceConfig; vllm/engine/"
      "arg_utils.py EngineArgs.__post_init__ (a dict turns enable_fault_tolerance on)";
  v.push_back(obj("fault_tolerance_config", "{} (FaultToleranceConfig())", "FaultToleranceConfig",
                  f, I, {"engine_recovery_timeout_sec"}));
  v.push_back(int_row("fault_tolerance_config.engine_recovery_timeout_sec", 120, kAnyMin, kAnyMax,
                      "int (seconds)", f, I));
  const char* w = "vllm/config/weight_transfer.py WeightTransferConfig";
  v.push_back(
      obj("weight_transfer_config", "null", "WeightTransferConfig", w, I, {"backend"}, true));
  v.push_back(typed("weight_transfer_config.backend", "string", "\"nccl\"",
                    "Literal[\"nccl\", \"ipc\", \"sparse_nccl\"] | str", w, I, false));
}

}  // namespace

std::vector<ArgSpec> config_object_specs() {
  std::vector<ArgSpec> v;
  eplb(v);
  structured_outputs(v);
  diffusion_and_pooler(v);
  attention(v, other_arg_specs());
  mamba_and_kernel(v, more_arg_specs(), more_arg_specs_mm());
  profiler(v);
  others(v);
  return v;
}

}  // namespace blis::rules::packs
