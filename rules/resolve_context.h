#pragma once
// Shared state of one resolve_engine_args() call, passed to the defaults and checks files.

#include <algorithm>
#include <cctype>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "rules/json_fields.h"
#include "rules/rules.h"
#include "util/contains.h"

namespace blis::rules::detail {

// What the user wrote explicitly (vLLM's rules often apply only to explicit values).
struct Explicit {
  bool max_model_len = false;
  bool max_model_len_auto = false;  // -1 or "auto": fit to the KV cache after the checks
  bool block_size = false;
  bool max_num_batched_tokens = false;
  bool max_num_seqs = false;
  bool enable_chunked_prefill = false;
  bool enable_prefix_caching = false;
  bool gpu_memory_utilization = false;
  bool long_prefill_token_threshold = false;
  bool max_loras = false;
  std::optional<std::int64_t> max_loras_unused;  // read without enable_lora (not checked)
  bool max_lora_rank = false;
  bool max_cpu_loras = false;
  std::optional<bool> async_scheduling;
  bool allow_deprecated_quantization = false;
  bool disable_padded_drafter_batch = false;  // speculative_config's
  std::optional<double> kv_offloading_size;
  std::string kv_offloading_backend = "native";
  // CUDA graphs (rules/read_compilation.cpp): compilation_config's cudagraph_mode and mode as
  // given, optimization_level, and where the capture sizes and largest size were set.
  std::optional<std::string> cudagraph_mode;
  std::string compilation_mode;
  std::int32_t optimization_level = 2;
  std::string capture_sizes_pointer, max_capture_size_pointer;
};

struct Context {
  const Pack& pack;
  const DeploymentFacts& facts;
  std::string args_pointer;
  Diagnostics& diags;
  engine_args::VllmArgs& args;
  Explicit set;
  // engine.args as read (after the spec_* shorthands are merged), for the checks of keys that
  // are read but not modelled (check_unmodelled.cpp); set by read_args.
  std::shared_ptr<const nlohmann::json> raw;

  // "vLLM 0.32.0"
  std::string vllm() const { return "vLLM " + pack.release; }
  std::string ptr(const std::string& key) const { return json_pointer_append(args_pointer, key); }
  void error(const std::string& pointer, const std::string& message) {
    diags.push_back({pointer, message, Severity::kError});
  }
  void warning(const std::string& pointer, const std::string& message) {
    diags.push_back({pointer, message, Severity::kWarning});
  }
};

// vLLM's config classes are pydantic dataclasses (vllm/config/utils.py config): their numbers
// are read in pydantic's lax mode, so every reader of engine.args is (FieldReader::lax_numbers).
inline void lax_reader(const Context& c, FieldReader& r) {
  r.lax_numbers(c.vllm() + "'s pydantic config classes");
}

// rules/read_args.cpp: typed reading of every key (pydantic-level constraints).
void read_args(Context& c, const nlohmann::json& args);
// rules/read_nested.cpp: speculative_config and kv_transfer_config.
void read_speculative(Context& c, FieldReader& r);
void read_kv_transfer(Context& c, FieldReader& r);
// rules/read_speculative_fields.cpp: the SpeculativeConfig fields that change nothing BLIS
// Playground simulates, checked as vLLM checks them (`num_speculative_tokens`: k, 0 = unset).
void read_speculative_fields(Context& c, FieldReader& s, const std::string& method,
                             std::int32_t num_speculative_tokens);
// rules/read_args.cpp: `spec.key` of `args` read with its ArgSpec as its config class reads
// it (read_typed for the types that are not numbers or bools): nullopt when refused (reported
// at args_pointer/key), else whether the value is vLLM's default.
std::optional<bool> spec_is_default(Context& c, const nlohmann::json& args, const ArgSpec& spec);
// rules/read_typed.cpp: a key whose ArgSpec type is a string, list or object, read with it:
// nullopt when refused (reported), else whether the value is vLLM's default.
std::optional<bool> read_typed(Context& c, const nlohmann::json& args, const ArgSpec& spec);
// rules/read_compilation.cpp: cudagraph_capture_sizes, max_cudagraph_capture_size,
// optimization_level and compilation_config; check_compilation resolves the graph mode and
// checks the sizes once max_num_batched_tokens is known.
void read_compilation(Context& c, FieldReader& r);
void check_compilation(Context& c);
// rules/defaults.cpp: defaults that depend on the model, the GPU and other arguments.
void apply_defaults(Context& c);
// rules/check_scheduler.cpp: SchedulerConfig.verify_max_model_len and model checks.
void check_scheduler(Context& c);
// rules/check_features.cpp: LoRA, speculative decoding, async scheduling, quantization.
void check_features(Context& c);
// rules/check_kv_transfer.cpp: kv_transfer_config, connectors, offloading, P/D roles.
void check_kv_transfer(Context& c);
// rules/check_parallel.cpp: enable_expert_parallel against the model and the sizes.
void check_parallel(Context& c);
// rules/check_unmodelled.cpp: the cross-field checks of the keys that are read but not modelled
// (data-parallel launch options, EPLB, NUMA binding, device ids, context parallelism, prefetch
// offloading, MultiModalConfig's and ObservabilityConfig's validators).
void check_unmodelled_args(Context& c);
// rules/check_combinations.cpp: what VllmConfig.__post_init__ and create_engine_config refuse
// of combinations with unmodelled keys (default_mm_loras on a text model, routed experts with
// pp or a KV connector, Mamba stochastic rounding, fast prefill with EAGLE, the overrides given
// twice, microbatching's all2all backends).
void check_combinations(Context& c);
// rules/check_config_objects.cpp: the validators of the config objects given as dicts
// (ECTransferConfig, StructuredOutputsConfig, ProfilerConfig, MambaConfig's SSU algorithm,
// PoolerConfig, AttentionConfig.backend_per_kind).
void check_config_objects(Context& c);

// ASCII lower case (vLLM compares these names case-insensitively with str.lower()).
inline std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// ASCII upper case (vLLM's enum validators compare value.upper()).
inline std::string upper(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

}  // namespace blis::rules::detail
