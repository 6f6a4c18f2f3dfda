// The EngineArgs fields of upstream 8d9b52f7 for multimodal inputs, LoRA, observability and
// Mamba models (the rest of more_arg_specs.cpp). None changes what BLIS Playground simulates
// for its text models; each is still read with the type and bounds its config class gives it.
// The multimodal ones are ModelConfig InitVars (vllm/config/model.py, from
// ModelConfig.language_model_only on): the InitVar's type is checked on any model, and None is
// accepted unless the InitVar is not Optional (language_model_only, mm_tensor_ipc).
// MultiModalConfig's Field bounds, Literals and validators apply only to the MultiModalConfig
// ModelConfig.__post_init__ builds for a multimodal model (ModelFacts::is_multimodal): on a
// known text model a row is read with its InitVar's type (ArgSpec::initvar_type) and ignored
// (rules/read_args.cpp), as mm_processor_cache_gb's and limit_mm_per_prompt's are
// (other_arg_specs.cpp).

#include <cmath>
#include <limits>

#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

namespace {

// vllm/config/attention.py AttentionConfig.backend's names (other_arg_specs.cpp's row).
std::vector<std::string> attention_backend_names() {
  for (const auto& a : other_arg_specs()) {
    if (a.key == "attention_backend") return a.choices;
  }
  return {};
}

}  // namespace

namespace {

std::vector<ArgSpec> multimodal_rows() {
  constexpr bool U = true;   // unmodelled: accepted, simulated as vLLM's default
  constexpr bool I = false;  // no effect on what is simulated
  // vllm/config/multimodal.py MultiModalConfig._validate_mm_encoder_attn_backend:
  // AttentionBackendEnum[value.upper()] ("auto" is no member; XFORMERS was removed).
  std::vector<std::string> encoder_backends;
  for (const auto& n : attention_backend_names()) {
    if (n != "AUTO") encoder_backends.push_back(n);
  }
  return {
      // --- MultiModalConfig (vllm/config/multimodal.py).
      bool_row("language_model_only", 0,
               "vllm/config/multimodal.py MultiModalConfig.language_model_only", U),
      bool_row("enable_mm_embeds", 0, "vllm/config/multimodal.py MultiModalConfig.enable_mm_embeds",
               U, true),
      bool_row("interleave_mm_strings", 0,
               "vllm/config/multimodal.py MultiModalConfig.interleave_mm_strings", I, true),
      typed("media_io_kwargs", "object", "{}", "dict[str, dict[str, Any]]",
            "vllm/config/multimodal.py MultiModalConfig.media_io_kwargs", U, true),
      typed("mm_processor_kwargs", "object", "null", "dict[str, object] | None",
            "vllm/config/multimodal.py MultiModalConfig.mm_processor_kwargs", U),
      with_choices(typed("mm_processor_cache_type", "string", "null (\"lru\")",
                         "MMCacheType Literal (shm, lru) | None",
                         "vllm/config/multimodal.py MMCacheType", U),
                   {"shm", "lru"}, 0, "lru"),
      with_choices(typed("mm_hasher_algorithm", "string", "VLLM_MM_HASHER_ALGORITHM (\"blake3\")",
                         "MMHasherAlgorithm Literal (blake3, sha256, sha512)",
                         "vllm/config/multimodal.py MMHasherAlgorithm; vllm/envs.py", I, true),
                   {"blake3", "sha256", "sha512"}, 0, ""),
      int_row("mm_shm_cache_max_object_size_mb", 128, 0, kAnyMax, "Field(ge=0) (MiB)",
              "vllm/config/multimodal.py MultiModalConfig.mm_shm_cache_max_object_size_mb", U,
              true),
      bool_row("mm_encoder_only", 0, "vllm/config/multimodal.py MultiModalConfig.mm_encoder_only",
               U, true),
      with_choices(typed("mm_encoder_tp_mode", "string", "\"weights\"",
                         "MMEncoderTPMode Literal (weights, data)",
                         "vllm/config/multimodal.py MMEncoderTPMode", U, true),
                   {"weights", "data"}, 0, "weights"),
      with_choices(typed("mm_encoder_attn_backend", "string", "null (automatic selection)",
                         "AttentionBackendEnum name (upper-cased) | None",
                         "vllm/config/multimodal.py "
                         "MultiModalConfig._validate_mm_encoder_attn_backend",
                         U),
                   encoder_backends, 'u', ""),
      with_choices(typed("mm_encoder_attn_dtype", "string", "null", "Literal[\"fp8\"] | None",
                         "vllm/config/multimodal.py MultiModalConfig.mm_encoder_attn_dtype", U),
                   {"fp8"}, 0, ""),
      typed("mm_encoder_fp8_scale_path", "string", "null", "str | None",
            "vllm/config/multimodal.py MultiModalConfig.mm_encoder_fp8_scale_path", U),
      typed("mm_encoder_fp8_scale_save_path", "string", "null", "str | None",
            "vllm/config/multimodal.py MultiModalConfig.mm_encoder_fp8_scale_save_path", I),
      float_row("mm_encoder_fp8_scale_save_margin", 1.5, 0.0, true, 1e308, "Field(gt=0.0)",
                "vllm/config/multimodal.py MultiModalConfig.mm_encoder_fp8_scale_save_margin", I,
                true),
      bool_row("skip_mm_profiling", 0,
               "vllm/config/multimodal.py MultiModalConfig.skip_mm_profiling", U, true),
      float_row("video_pruning_rate", std::nullopt, 0.0, false, std::nextafter(1.0, 0.0),
                "float | None, Field(ge=0.0, lt=1.0)",
                "vllm/config/multimodal.py MultiModalConfig.video_pruning_rate", U),
      with_choices(typed("video_pruning_method", "string", "\"evs\"",
                         "VideoPruningMethod Literal (evs, vidcom2)",
                         "vllm/config/multimodal.py VideoPruningMethod", U, true),
                   {"evs", "vidcom2"}, 0, "evs"),
      with_choices(typed("mm_tensor_ipc", "string", "\"direct_rpc\"",
                         "MMTensorIPC Literal (direct_rpc, torch_shm)",
                         "vllm/config/multimodal.py MMTensorIPC", U, false),
                   {"direct_rpc", "torch_shm"}, 0, "direct_rpc"),
      typed("mm_processor_device", "string", "\"auto\"",
            "MMProcessorDevice = str (\"auto\", \"cpu\" or the platform's device type)",
            "vllm/config/multimodal.py MMProcessorDevice", U, true),
      float_row("mm_ipc_gpu_memory_gb", 0.0, 0.0, false, 1e12, "Field(ge=0) (GiB)",
                "vllm/config/multimodal.py MultiModalConfig.mm_ipc_gpu_memory_gb", U, true),
      bool_row("mm_device_do_normalize", 1,
               "vllm/config/multimodal.py MultiModalConfig.mm_device_do_normalize", U, true),
  };
}

std::vector<ArgSpec> lora_observability_mamba_rows() {
  constexpr bool U = true;   // unmodelled: accepted, simulated as vLLM's default
  constexpr bool I = false;  // no effect on what is simulated
  const std::vector<std::string> mamba_dtypes = {"auto", "float32", "float16", "bfloat16"};
  return {
      // --- LoRAConfig (vllm/config/lora.py; built only with enable_lora).
      bool_row("enable_tower_connector_lora", 0,
               "vllm/config/lora.py LoRAConfig.enable_tower_connector_lora", U),
      bool_row("specialize_active_lora", 0, "vllm/config/lora.py LoRAConfig.specialize_active_lora",
               U),
      bool_row("enable_mixed_moe_lora_format", 0,
               "vllm/config/lora.py LoRAConfig.enable_mixed_moe_lora_format", U),
      bool_row("enable_moe_shared_loras", 0,
               "vllm/config/lora.py LoRAConfig.enable_moe_shared_loras", U),
      // --- ObservabilityConfig (vllm/config/observability.py).
      bool_row("cudagraph_metrics", 0,
               "vllm/config/observability.py ObservabilityConfig.cudagraph_metrics", I),
      bool_row("enable_layerwise_nvtx_tracing", 0,
               "vllm/config/observability.py ObservabilityConfig.enable_layerwise_nvtx_tracing", I),
      bool_row("enable_logging_iteration_details", 0,
               "vllm/config/observability.py ObservabilityConfig.enable_logging_iteration_details",
               I),
      with_choices(
          typed("jit_monitor_mode", "string", "\"warn\"", "Literal[\"warn\", \"error\"]",
                "vllm/config/observability.py ObservabilityConfig.jit_monitor_mode", I, false),
          {"warn", "error"}, 0, ""),
      bool_row("jit_monitor_verbose", 0,
               "vllm/config/observability.py ObservabilityConfig.jit_monitor_verbose", I),
      bool_row("enable_mm_processor_stats", 0,
               "vllm/config/observability.py ObservabilityConfig.enable_mm_processor_stats", I),
      // --- CacheConfig's Mamba fields (vllm/config/cache.py) and MambaConfig
      // (vllm/config/mamba.py), set through EngineArgs.create_engine_config.
      with_choices(typed("mamba_cache_dtype", "string", "\"auto\"", "MambaDType Literal",
                         "vllm/config/cache.py MambaDType", U, false),
                   mamba_dtypes, 0, "auto"),
      with_choices(typed("mamba_ssm_cache_dtype", "string", "\"auto\"", "MambaDType Literal",
                         "vllm/config/cache.py MambaDType", U, false),
                   mamba_dtypes, 0, "auto"),
      int_row("mamba_block_size", std::nullopt, 1, kAnyMax, "int | None, Field(gt=0)",
              "vllm/config/cache.py CacheConfig.mamba_block_size", U),
      with_choices(typed("mamba_cache_mode", "string", "\"none\"",
                         "MambaCacheMode Literal (all, align, none)",
                         "vllm/config/cache.py MambaCacheMode", U, false),
                   {"all", "align", "none"}, 0, "none"),
      int_row("replayssm_buffer_len", 16, 1, kAnyMax, "Field(gt=0)",
              "vllm/config/cache.py CacheConfig.replayssm_buffer_len", U),
      bool_row("use_replayssm", 0, "vllm/config/cache.py CacheConfig.use_replayssm", U),
      with_choices(typed("mamba_backend", "string", "\"TRITON\"",
                         "MambaBackendEnum name, upper-cased (TRITON, FLASHINFER, CPU)",
                         "vllm/engine/arg_utils.py EngineArgs.create_engine_config "
                         "(MambaBackendEnum[mamba_backend.upper()]); vllm/config/mamba.py",
                         U, false),
                   {"TRITON", "FLASHINFER", "CPU"}, 'u', "TRITON"),
      with_choices(typed("mamba_ssu_algorithm", "string", "null",
                         "MambaSSUAlgorithm Literal (auto, simple, vertical, horizontal) | None",
                         "vllm/config/mamba.py MambaSSUAlgorithm, validate_ssu_algorithm", U),
                   {"auto", "simple", "vertical", "horizontal"}, 0, ""),
      bool_row("enable_mamba_cache_stochastic_rounding", 0,
               "vllm/config/mamba.py MambaConfig.enable_stochastic_rounding", U),
      int_row("mamba_cache_philox_rounds", 0, kAnyMin, kAnyMax, "int",
              "vllm/config/mamba.py MambaConfig.stochastic_rounding_philox_rounds", U),
  };
}

}  // namespace

// vllm/config/model.py:377-400: the InitVars whose type is plainer than MultiModalConfig's
// field (int | None, float | None, str | None, AttentionBackendEnum | str | None).
void mark_multimodal(std::vector<ArgSpec>& rows) {
  static const std::pair<const char*, const char*> kPlain[] = {
      {"mm_shm_cache_max_object_size_mb", "int"},
      {"mm_encoder_attn_backend", "str"},
      {"mm_encoder_attn_dtype", "str"},
      {"mm_encoder_fp8_scale_save_margin", "float"},
      {"video_pruning_rate", "float"},
      {"video_pruning_method", "str"},
      {"mm_ipc_gpu_memory_gb", "float"}};
  for (auto& a : rows) {
    a.multimodal = true;
    for (const auto& [key, type] : kPlain) {
      if (a.key == key) a.initvar_type = type;
    }
  }
}

std::vector<ArgSpec> more_arg_specs_mm() {
  std::vector<ArgSpec> rows = multimodal_rows();
  mark_multimodal(rows);
  for (auto& a : lora_observability_mamba_rows()) rows.push_back(std::move(a));
  return rows;
}

}  // namespace blis::rules::packs
