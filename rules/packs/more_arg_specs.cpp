// The EngineArgs fields of upstream 8d9b52f7 (vllm/engine/arg_utils.py EngineArgs) that the
// other tables do not list: model, loading, kernels, parallelism, offloading and the engine's
// own switches. Each row has the type and bounds of the config class field it maps to (the
// source names it); rules/read_args.cpp and read_typed.cpp read them as vLLM does. The
// private _api_process_count / _api_process_rank are not engine.args keys (CLI-internal).

#include <cmath>
#include <limits>
#include <sstream>

#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

namespace {

std::string number_text(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

}  // namespace

ArgSpec bool_row(const char* key, int def, const char* source, bool unmodelled, bool nullable) {
  ArgSpec a = typed(key, "bool",
                    def < 0 ? "null"
                    : def   ? "true"
                            : "false",
                    def < 0 ? "bool | None" : "bool", source, unmodelled, nullable || def < 0);
  if (def >= 0) a.neutral = def;
  return a;
}

ArgSpec int_row(const char* key, std::optional<double> neutral, std::int64_t lo, std::int64_t hi,
                const char* constraint, const char* source, bool unmodelled, bool nullable) {
  const std::string def = neutral ? number_text(*neutral) : "null";
  ArgSpec a = typed(key, "int", def.c_str(), constraint, source, unmodelled, nullable || !neutral);
  a.int_min = lo;
  a.int_max = hi;
  a.neutral = neutral;
  a.expected = "an integer";
  if (lo != kAnyMin) a.expected += " >= " + std::to_string(lo);
  if (hi != kAnyMax)
    a.expected += std::string(lo != kAnyMin ? " and" : "") + " <= " + std::to_string(hi);
  if (a.nullable) a.expected += ", or null";
  return a;
}

ArgSpec float_row(const char* key, std::optional<double> neutral, double lo, bool lo_exclusive,
                  double hi, const char* constraint, const char* source, bool unmodelled,
                  bool nullable) {
  const std::string def = neutral ? number_text(*neutral) : "null";
  ArgSpec a =
      typed(key, "float", def.c_str(), constraint, source, unmodelled, nullable || !neutral);
  a.float_min = lo;
  a.min_exclusive = lo_exclusive;
  a.float_max = hi;
  a.neutral = neutral;
  a.expected = "a number";
  if (lo > -1e308) a.expected += std::string(lo_exclusive ? " > " : " >= ") + number_text(lo);
  const std::string join = lo > -1e308 ? " and" : "";
  if (hi < 1e308) {
    // lt=1.0 is held as the largest double below 1 (an inclusive bound).
    a.expected += std::nextafter(hi, 2.0) == 1.0 ? join + " < 1" : join + " <= " + number_text(hi);
  }
  if (a.nullable) a.expected += ", or null";
  return a;
}

namespace {

std::vector<ArgSpec> model_load_kernel_rows() {
  constexpr bool U = true;   // unmodelled: accepted, simulated as vLLM's default
  constexpr bool I = false;  // no effect on what is simulated
  return {
      // --- ModelConfig (vllm/config/model.py).
      bool_row("enable_return_routed_experts", 0,
               "vllm/config/model.py ModelConfig.enable_return_routed_experts", U),
      typed("model_weights", "string", "\"\"", "str",
            "vllm/config/model.py ModelConfig.model_weights", I, false),
      typed("hf_config_path", "string", "null (the model)", "str | None",
            "vllm/config/model.py ModelConfig.hf_config_path", I),
      with_choices(
          typed("runner", "string", "\"auto\"",
                "RunnerOption Literal (auto, generate, pooling, draft)",
                "vllm/config/model.py RunnerOption; vllm/config/scheduler.py RunnerType", U, false),
          {"auto", "generate", "pooling", "draft"}, 0, "auto"),
      with_choices(typed("convert", "string", "\"auto\"",
                         "ConvertOption Literal (auto, none, embed, classify)",
                         "vllm/config/model.py ConvertOption", U, false),
                   {"auto", "none", "embed", "classify"}, 0, "auto"),
      bool_row("enable_prompt_embeds", 0, "vllm/config/model.py ModelConfig.enable_prompt_embeds",
               U),
      typed("allowed_local_media_path", "string", "\"\"", "str",
            "vllm/config/model.py ModelConfig.allowed_local_media_path", I, false),
      typed("allowed_media_domains", "list[str]", "null", "list[str] | None",
            "vllm/config/model.py ModelConfig.allowed_media_domains", I),
      bool_row("use_fp64_gumbel", 0, "vllm/config/model.py ModelConfig.use_fp64_gumbel", U),
      typed("model_class_overrides", "dict[str,str]", "{}", "dict[str, str]",
            "vllm/config/model.py ModelConfig.model_class_overrides", U, false),
      bool_row("enable_cumem_allocator", 0,
               "vllm/config/model.py ModelConfig.enable_cumem_allocator", U),
      typed("override_attention_dtype", "string", "null", "str | None",
            "vllm/config/model.py ModelConfig.override_attention_dtype", U),
      typed("logits_processors", "list[str]", "null",
            "list[str | type[LogitsProcessor]] | None (class names)",
            "vllm/config/model.py ModelConfig.logits_processors", U),
      typed("io_processor_plugin", "string", "null", "str | None",
            "vllm/config/model.py ModelConfig.io_processor_plugin", I),
      int_row("renderer_num_workers", 1, kAnyMin, kAnyMax, "int",
              "vllm/config/model.py ModelConfig.renderer_num_workers", I),
      // --- LoadConfig (vllm/config/load.py).
      with_choices(typed("safetensors_load_strategy", "string", "null",
                         "SafetensorsLoadStrategy Literal (lazy, eager, prefetch, torchao) | None",
                         "vllm/config/load.py SafetensorsLoadStrategy", I),
                   {"lazy", "eager", "prefetch", "torchao"}, 0, ""),
      int_row("safetensors_prefetch_num_threads", 8, 1, kAnyMax, "Field(ge=1)",
              "vllm/config/load.py LoadConfig.safetensors_prefetch_num_threads", I),
      int_row("safetensors_prefetch_block_size", 16 * 1024 * 1024, 1, kAnyMax,
              "Field(ge=1) (bytes)",
              "vllm/config/load.py LoadConfig.safetensors_prefetch_block_size", I),
      typed("model_loader_extra_config", "object", "{}", "dict | TensorizerConfig",
            "vllm/config/load.py LoadConfig.model_loader_extra_config", I, false),
      typed("ignore_patterns", "str|list[str]", "[\"original/**/*\"]", "list[str] | str",
            "vllm/config/load.py LoadConfig.ignore_patterns", I, false),
      bool_row("use_tqdm_on_load", 1, "vllm/config/load.py LoadConfig.use_tqdm_on_load", I),
      typed("pt_load_map_location", "str|dict[str,str]", "\"cpu\"", "str | dict[str, str]",
            "vllm/config/load.py LoadConfig.pt_load_map_location", I, false),
      // --- KernelConfig (vllm/config/kernel.py); moe_backend and linear_backend are
      // lower-cased and "-" becomes "_" first (_normalize_moe_backend, _normalize_linear_backend).
      with_choices(
          typed("moe_backend", "string", "\"auto\"", "MoEBackend Literal",
                "vllm/config/kernel.py MoEBackend, KernelConfig._normalize_moe_backend", U, false),
          {"auto", "triton", "batched_triton", "deep_gemm", "deep_gemm_mega_moe", "cutlass",
           "flashinfer_trtllm", "flashinfer_cutlass", "flashinfer_cutedsl", "flashinfer_b12x",
           "marlin", "humming", "triton_unfused", "aiter", "flydsl", "hpc", "emulation"},
          'k', "auto"),
      with_choices(
          typed("linear_backend", "string", "\"auto\"", "LinearBackend Literal",
                "vllm/config/kernel.py LinearBackend, KernelConfig._normalize_linear_backend", U,
                false),
          {"auto",
           "cutlass",
           "flashinfer_cutlass",
           "flashinfer_cutedsl",
           "flashinfer_trtllm",
           "flashinfer_cudnn",
           "flashinfer_b12x",
           "marlin",
           "humming",
           "triton",
           "deep_gemm",
           "torch",
           "aiter",
           "machete",
           "fbgemm",
           "conch",
           "exllama",
           "emulation",
           "xpu",
           "xpu_woq"},
          'k', "auto"),
      bool_row("enable_flashinfer_autotune", -1,
               "vllm/config/kernel.py KernelConfig.enable_flashinfer_autotune (None: the "
               "platform decides)",
               U),
      bool_row("enable_bf16x3_router_gemm", -1,
               "vllm/engine/arg_utils.py EngineArgs.enable_bf16x3_router_gemm; vllm/config/"
               "kernel.py KernelConfig.enable_bf16x3_router_gemm",
               U),
  };
}

std::vector<ArgSpec> parallel_offload_rows() {
  constexpr bool U = true;   // unmodelled: accepted, simulated as vLLM's default
  constexpr bool I = false;  // no effect on what is simulated
  return {
      // --- ParallelConfig (vllm/config/parallel.py).
      typed("master_addr", "string", "\"127.0.0.1\"", "str",
            "vllm/config/parallel.py ParallelConfig.master_addr", I, false),
      int_row("master_port", 29501, kAnyMin, kAnyMax, "int",
              "vllm/config/parallel.py ParallelConfig.master_port", I),
      int_row("nnodes", 1, 1, kAnyMax, "Field(ge=1)",
              "vllm/config/parallel.py ParallelConfig.nnodes", U),
      int_row("node_rank", 0, 0, kAnyMax, "Field(ge=0)",
              "vllm/config/parallel.py ParallelConfig.node_rank", I),
      int_row("distributed_timeout_seconds", std::nullopt, kAnyMin, kAnyMax, "int | None",
              "vllm/config/parallel.py ParallelConfig.distributed_timeout_seconds", I),
      int_row("cpu_distributed_timeout_seconds", std::nullopt, kAnyMin, kAnyMax, "int | None",
              "vllm/config/parallel.py ParallelConfig.cpu_distributed_timeout_seconds", I),
      bool_row("numa_bind", 0, "vllm/config/parallel.py ParallelConfig.numa_bind", U),
      [] {
        ArgSpec a = typed("numa_bind_nodes", "list[int]", "null",
                          "list[int] | None; entries >= 0 (_validate_numa_bind_nodes)",
                          "vllm/config/parallel.py ParallelConfig._validate_numa_bind_nodes", U);
        a.int_min = 0;
        a.int_max = kAnyMax;
        return a;
      }(),
      typed("numa_bind_cpus", "list[str]", "null", "list[str] | None (numactl CPU lists)",
            "vllm/config/parallel.py ParallelConfig._validate_numa_bind_cpus", U),
      [] {
        ArgSpec a = typed("device_ids", "list[int|str]", "null", "list[int | str] | None",
                          "vllm/engine/arg_utils.py EngineArgs.device_ids, _resolve_device_ids", I);
        a.int_min = kAnyMin;
        a.int_max = kAnyMax;
        return a;
      }(),
      with_choices(
          typed("dcp_comm_backend", "string", "\"ag_rs\"", "DCPCommBackend Literal (ag_rs, a2a)",
                "vllm/config/parallel.py DCPCommBackend", U, false),
          {"ag_rs", "a2a"}, 0, "ag_rs"),
      int_row("dcp_kv_cache_interleave_size", 1, kAnyMin, kAnyMax, "int",
              "vllm/config/parallel.py ParallelConfig.dcp_kv_cache_interleave_size", U),
      int_row("cp_kv_cache_interleave_size", 1, kAnyMin, kAnyMax, "int",
              "vllm/config/parallel.py ParallelConfig.cp_kv_cache_interleave_size", U),
      int_row("data_parallel_rank", std::nullopt, 0, kAnyMax, "int | None; Field(ge=0)",
              "vllm/engine/arg_utils.py EngineArgs.data_parallel_rank; vllm/config/parallel.py "
              "ParallelConfig.data_parallel_rank",
              I),
      int_row("data_parallel_start_rank", std::nullopt, kAnyMin, kAnyMax, "int | None",
              "vllm/engine/arg_utils.py EngineArgs.data_parallel_start_rank", I),
      int_row("data_parallel_size_local", std::nullopt, 0, kAnyMax, "int | None; Field(ge=0)",
              "vllm/engine/arg_utils.py EngineArgs.data_parallel_size_local; vllm/config/"
              "parallel.py ParallelConfig.data_parallel_size_local",
              I),
      typed("data_parallel_address", "string", "null", "str | None",
            "vllm/engine/arg_utils.py EngineArgs.data_parallel_address", I),
      int_row("data_parallel_rpc_port", std::nullopt, kAnyMin, kAnyMax, "int | None",
              "vllm/engine/arg_utils.py EngineArgs.data_parallel_rpc_port", I),
      bool_row("data_parallel_hybrid_lb", 0,
               "vllm/config/parallel.py ParallelConfig.data_parallel_hybrid_lb", U),
      bool_row("data_parallel_external_lb", 0,
               "vllm/config/parallel.py ParallelConfig.data_parallel_external_lb", U),
      bool_row("data_parallel_multi_port_external_lb", 0,
               "vllm/engine/arg_utils.py EngineArgs.data_parallel_multi_port_external_lb", U),
      with_choices(typed("data_parallel_backend", "string", "\"mp\"",
                         "DataParallelBackend Literal (ray, mp)",
                         "vllm/config/parallel.py DataParallelBackend", U, false),
                   {"ray", "mp"}, 0, "mp"),
      bool_row("enable_ep_weight_filter", 0,
               "vllm/config/parallel.py ParallelConfig.enable_ep_weight_filter", I),
      bool_row("enable_elastic_ep", 0, "vllm/config/parallel.py ParallelConfig.enable_elastic_ep",
               U),
      int_row("ubatch_size", 0, 0, kAnyMax, "Field(ge=0)",
              "vllm/config/parallel.py ParallelConfig.ubatch_size", U),
      int_row("dbo_decode_token_threshold", 32, 0, kAnyMax, "Field(ge=0)",
              "vllm/config/parallel.py ParallelConfig.dbo_decode_token_threshold", U),
      int_row("dbo_prefill_token_threshold", 512, 0, kAnyMax, "Field(ge=0)",
              "vllm/config/parallel.py ParallelConfig.dbo_prefill_token_threshold", U),
      bool_row("disable_nccl_for_dp_synchronization", -1,
               "vllm/config/parallel.py ParallelConfig.disable_nccl_for_dp_synchronization", U),
      with_choices(typed("expert_placement_strategy", "string", "\"linear\"",
                         "ExpertPlacementStrategy Literal (linear, round_robin)",
                         "vllm/config/parallel.py ExpertPlacementStrategy", U, false),
                   {"linear", "round_robin"}, 0, "linear"),
      bool_row("ray_workers_use_nsight", 0,
               "vllm/config/parallel.py ParallelConfig.ray_workers_use_nsight", I),
      typed("worker_cls", "string", "\"auto\"", "str (a class path, or \"auto\")",
            "vllm/config/parallel.py ParallelConfig.worker_cls", U, false),
      typed("worker_extension_cls", "string", "\"\"", "str (a class path)",
            "vllm/config/parallel.py ParallelConfig.worker_extension_cls", U, false),
      bool_row("enable_fault_tolerance", 0,
               "vllm/config/parallel.py ParallelConfig.enable_fault_tolerance", I),
      // --- OffloadConfig (vllm/config/offload.py).
      with_choices(typed("offload_backend", "string", "\"auto\"",
                         "OffloadBackend Literal (auto, uva, prefetch)",
                         "vllm/config/offload.py OffloadBackend", U, false),
                   {"auto", "uva", "prefetch"}, 0, "auto"),
      typed("cpu_offload_params", "list[str]", "[]", "set[str]",
            "vllm/config/offload.py UVAOffloadConfig.cpu_offload_params", U, false),
      int_row("offload_group_size", 0, 0, kAnyMax, "Field(ge=0)",
              "vllm/config/offload.py PrefetchOffloadConfig.offload_group_size", U),
      int_row("offload_num_in_group", 1, 1, kAnyMax, "Field(ge=1)",
              "vllm/config/offload.py PrefetchOffloadConfig.offload_num_in_group", U),
      int_row("offload_prefetch_step", 1, 0, kAnyMax, "Field(ge=0)",
              "vllm/config/offload.py PrefetchOffloadConfig.offload_prefetch_step", U),
      typed("offload_params", "list[str]", "[]", "set[str]",
            "vllm/config/offload.py PrefetchOffloadConfig.offload_params", U, false),
      // --- CacheConfig and the engine's own switches.
      bool_row("kv_sharing_fast_prefill", 0,
               "vllm/config/cache.py CacheConfig.kv_sharing_fast_prefill", U),
      typed("additional_config", "object", "{}", "dict[str, Any] (for platform plugins)",
            "vllm/config/vllm.py VllmConfig.additional_config", U, false),
      bool_row("aggregate_engine_logging", 0,
               "vllm/engine/arg_utils.py EngineArgs.aggregate_engine_logging", I),
      bool_row("tokens_only", 0, "vllm/engine/arg_utils.py EngineArgs.tokens_only", I),
      int_row("shutdown_timeout", 0, 0, kAnyMax, "Field(ge=0) (seconds)",
              "vllm/config/vllm.py VllmConfig.shutdown_timeout", I),
      bool_row("fail_on_environ_validation", 0,
               "vllm/engine/arg_utils.py EngineArgs.fail_on_environ_validation", I),
      with_choices(typed("gdn_prefill_backend", "string", "null",
                         "Literal[\"flashinfer\", \"triton\", \"cutedsl\"] | None",
                         "vllm/engine/arg_utils.py EngineArgs.gdn_prefill_backend", U),
                   {"flashinfer", "triton", "cutedsl"}, 0, ""),
      with_choices(typed("kda_prefill_backend", "string", "null",
                         "Literal[\"auto\", \"triton\", \"flashkda\"] | None",
                         "vllm/engine/arg_utils.py EngineArgs.kda_prefill_backend", U),
                   {"auto", "triton", "flashkda"}, 0, ""),
      typed("reasoning_parser_plugin", "string", "null", "str | None",
            "vllm/config/structured_outputs.py StructuredOutputsConfig.reasoning_parser_plugin", I),
  };
}

}  // namespace

std::vector<ArgSpec> more_arg_specs() {
  std::vector<ArgSpec> rows = model_load_kernel_rows();
  for (auto& a : parallel_offload_rows()) rows.push_back(std::move(a));
  return rows;
}

}  // namespace blis::rules::packs
