// Typed reading of `engine.args`: every key with the constraint vLLM's own config classes
// declare (pydantic Field bounds and Literal types). Cross-field rules live in check_*.cpp.

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <memory>

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules {

using nlohmann::json;

const std::vector<std::string>& accepted_arg_keys() {
  static const std::vector<std::string> keys = {"max_model_len",
                                                "max_num_seqs",
                                                "max_num_batched_tokens",
                                                "max_num_scheduled_tokens",
                                                "enable_chunked_prefill",
                                                "enable_prefix_caching",
                                                "block_size",
                                                "gpu_memory_utilization",
                                                "kv_cache_memory_bytes",
                                                "num_gpu_blocks_override",
                                                "kv_cache_dtype",
                                                "dtype",
                                                "quantization",
                                                "allow_deprecated_quantization",
                                                "long_prefill_token_threshold",
                                                "max_num_partial_prefills",
                                                "max_long_partial_prefills",
                                                "scheduling_policy",
                                                "async_scheduling",
                                                "scheduler_reserve_full_isl",
                                                "watermark",
                                                "prefix_caching_hash_algo",
                                                "enable_lora",
                                                "max_loras",
                                                "max_lora_rank",
                                                "max_cpu_loras",
                                                "enforce_eager",
                                                "performance_mode",
                                                "speculative_config",
                                                "kv_transfer_config",
                                                "kv_offloading_size",
                                                "kv_offloading_backend",
                                                "enable_expert_parallel",
                                                "cudagraph_capture_sizes",
                                                "max_cudagraph_capture_size",
                                                "optimization_level",
                                                "compilation_config",
                                                "spec_method",
                                                "spec_model",
                                                "spec_tokens"};
  return keys;
}

// BLIS Playground's acceptance_rate and the fields of vllm/config/speculative.py
// SpeculativeConfig a user sets (the config forbids any other key: @config, extra="forbid").
const std::vector<std::string>& accepted_speculative_keys() {
  static const std::vector<std::string> keys = {"method",
                                                "num_speculative_tokens",
                                                "acceptance_rate",
                                                "model",
                                                "prompt_lookup_min",
                                                "prompt_lookup_max",
                                                "enforce_eager",
                                                "draft_tensor_parallel_size",
                                                "tensor_parallel_size",
                                                "quantization",
                                                "kv_cache_dtype",
                                                "max_model_len",
                                                "revision",
                                                "code_revision",
                                                "disable_padded_drafter_batch",
                                                "use_local_argmax_reduction",
                                                "use_heterogeneous_vocab",
                                                "parallel_drafting",
                                                "suffix_decoding_max_tree_depth",
                                                "suffix_decoding_max_cached_requests",
                                                "suffix_decoding_max_spec_factor",
                                                "suffix_decoding_min_token_prob",
                                                "rejection_sample_method",
                                                "synthetic_acceptance_rates",
                                                "synthetic_acceptance_length",
                                                "draft_sample_method",
                                                "dspark_draft_topk",
                                                "moe_backend",
                                                "attention_backend",
                                                "num_speculative_tokens_per_batch_size",
                                                "draft_load_config"};
  return keys;
}

const std::vector<std::string>& accepted_kv_transfer_keys() {
  static const std::vector<std::string> keys = {"kv_connector",
                                                "kv_role",
                                                "kv_connector_extra_config",
                                                "kv_connector_module_path",
                                                "engine_id",
                                                "kv_buffer_device",
                                                "kv_buffer_size",
                                                "kv_rank",
                                                "kv_parallel_size",
                                                "kv_ip",
                                                "kv_port",
                                                "enable_permute_local_kv",
                                                "kv_load_failure_policy"};
  return keys;
}

namespace detail {
namespace {

// Keys that belong elsewhere in the scenario document.
struct Misplaced {
  const char* key;
  const char* where;  // relative to the pool
};
constexpr Misplaced kMisplaced[] = {
    {"tensor_parallel_size", "/parallelism/tp"},
    {"pipeline_parallel_size", "/parallelism/pp"},
    {"data_parallel_size", "/parallelism/dp"},
    {"model", "/model"},
};

// The pool's own size for a misplaced parallel-size key (0 for "model").
std::int64_t pool_size(const Context& c, const std::string& key) {
  if (key == "tensor_parallel_size") return c.facts.tp;
  if (key == "pipeline_parallel_size") return c.facts.pp;
  if (key == "data_parallel_size") return c.facts.dp;
  return 0;
}

std::string pool_pointer(const Context& c) {
  return c.facts.pointer;
}

std::optional<bool> read_bool(Context& c, FieldReader& r, const std::string& key);
std::string expected_text(const Context& c, const ArgSpec& spec);

bool errors_since(const Context& c, std::size_t before) {
  for (std::size_t i = before; i < c.diags.size(); ++i) {
    if (c.diags[i].severity == Severity::kError) return true;
  }
  return false;
}

// `key`'s value read with its ArgSpec (lax, with vLLM's bounds): nullopt when it is null or
// refused (the refusal is reported), a bool as 0 / 1.
std::optional<double> spec_value(Context& c, const json& args, const ArgSpec& spec) {
  FieldReader r(args, c.args_pointer, c.diags, {});
  lax_reader(c, r);
  if (spec.type == "int") {
    const auto v = r.integer(spec.key, spec.int_min, spec.int_max, expected_text(c, spec),
                             spec.human_readable);
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  }
  if (spec.type == "float") {
    return r.number(spec.key, spec.float_min, spec.min_exclusive, spec.float_max,
                    expected_text(c, spec));
  }
  if (spec.type == "bool") {
    const auto v = read_bool(c, r, spec.key);
    return v ? std::optional<double>(*v ? 1.0 : 0.0) : std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

// `key`'s value read with its ArgSpec as its config class reads it: nullopt when refused (the
// refusal is reported), else whether it is vLLM's default (null, or ArgSpec::neutral).
std::optional<bool> spec_is_default(Context& c, const json& args, const ArgSpec& spec) {
  if (spec.type != "int" && spec.type != "float" && spec.type != "bool") {
    return read_typed(c, args, spec);
  }
  const std::size_t before = c.diags.size();
  const auto v = spec_value(c, args, spec);
  if (errors_since(c, before)) return std::nullopt;
  return !v || (spec.neutral && *v == *spec.neutral);
}

namespace {

// vllm/engine/arg_utils.py create_engine_config builds a LoRAConfig only with enable_lora, so
// its fields are not validated without it.
bool lora_unbuilt(const json& args, const std::string& key) {
  static const std::vector<std::string> lora_keys = {"lora_dtype",
                                                     "lora_target_modules",
                                                     "default_mm_loras",
                                                     "fully_sharded_loras",
                                                     "enable_tower_connector_lora",
                                                     "specialize_active_lora",
                                                     "enable_mixed_moe_lora_format",
                                                     "enable_moe_shared_loras"};
  if (!contains(lora_keys, key)) return false;
  const auto e = args.find("enable_lora");
  return e == args.end() || pydantic_bool(*e) != std::optional<bool>(true);
}

// An ignored key with an ArgSpec is type- and range-checked as its config class does it;
// false when it is refused.
bool check_ignored(Context& c, const json& args, const std::string& key) {
  const ArgSpec* spec = c.pack.arg(key);
  if (!spec) return true;
  return spec_is_default(c, args, *spec).has_value();
}

// A key of unmodelled_args with an ArgSpec: true when it is settled here. A value vLLM refuses
// is refused with vLLM's reason; any other is accepted with a warning, and BLIS Playground
// simulates the engine as if the key had vLLM's default.
bool check_unmodelled(Context& c, const json& args, const std::string& key) {
  const ArgSpec* spec = c.pack.arg(key);
  if (!spec || !spec->unmodelled) return false;
  const std::string p = c.ptr(key);
  if (lora_unbuilt(args, key)) {
    c.warning(p, "\"" + key + "\" has no effect without enable_lora (" + c.vllm() +
                     " builds no LoRAConfig); ignored");
    return true;
  }
  const auto is_default = spec_is_default(c, args, *spec);
  if (!is_default) return true;
  if (*is_default) {
    c.warning(p, "\"" + key + "\" at " + show(args.at(key)) +
                     ", vLLM's default, changes nothing BLIS Playground simulates; ignored");
    return true;
  }
  c.warning(p, show(args.at(key)) + ": accepted by " + c.vllm() + " (" + spec->constraint +
                   "), but BLIS Playground does not model \"" + key +
                   "\" and simulates the engine as if it were vLLM's default (" +
                   spec->default_text + ")");
  return true;
}

// A MultiModalConfig argument on a known text model (ArgSpec::multimodal): vLLM builds no
// MultiModalConfig (vllm/config/model.py ModelConfig.__post_init__), so only the ModelConfig
// InitVar's type is checked (ArgSpec::initvar_type) and the key is ignored. False when the
// model is multimodal or unknown (the key is read as the other keys are).
bool check_text_model_multimodal(Context& c, const json& args, const ArgSpec& spec) {
  if (!spec.multimodal || !c.facts.model.known || c.facts.model.is_multimodal) return false;
  ArgSpec initvar = spec;
  if (!spec.initvar_type.empty()) {
    initvar.choices.clear();
    initvar.int_min = std::numeric_limits<std::int64_t>::min();
    initvar.int_max = std::numeric_limits<std::int64_t>::max();
    initvar.float_min = -1e308;
    initvar.float_max = 1e308;
    initvar.min_exclusive = false;
    initvar.constraint = "ModelConfig InitVar[" + spec.initvar_type + " | None]";
    initvar.expected = spec.initvar_type == "int" ? "an integer, or null" : "a number, or null";
  }
  if (!spec_is_default(c, args, initvar)) return true;
  c.warning(c.ptr(spec.key), "\"" + spec.key + "\" has no effect on a text-only model (" +
                                 c.vllm() +
                                 " builds no MultiModalConfig for it, vllm/config/model.py "
                                 "ModelConfig.__post_init__); ignored");
  return true;
}

// tensor_parallel_size, pipeline_parallel_size, data_parallel_size: vLLM's Field(ge=1), and
// the pool's parallelism decides; repeating the same size is accepted with a warning.
bool check_parallel_size(Context& c, const json& args, const Misplaced& m) {
  const ArgSpec* spec = c.pack.arg(m.key);
  if (!spec) return false;
  const std::size_t before = c.diags.size();
  const auto v = spec_value(c, args, *spec);
  if (errors_since(c, before)) return true;
  const std::string where = pool_pointer(c) + m.where;
  if (!v) {
    c.warning(c.ptr(m.key), "null: the pool's " + where + " decides; ignored");
    return true;
  }
  if (static_cast<std::int64_t>(*v) == pool_size(c, m.key)) {
    c.warning(c.ptr(m.key),
              show(args.at(m.key)) + ": the same as " + where + ", which sets it; ignored here");
    return true;
  }
  c.error(c.ptr(m.key), show(args.at(m.key)) + " is not set in engine.args; set " + where +
                            " instead (it is " + std::to_string(pool_size(c, m.key)) + " there)");
  return true;
}

void report_keys(Context& c, const json& args) {
  for (auto it = args.begin(); it != args.end(); ++it) {
    const std::string& key = it.key();
    const std::string p = c.ptr(key);
    const auto removed = std::find_if(c.pack.removed_args.begin(), c.pack.removed_args.end(),
                                      [&](const RemovedArg& r) { return r.key == key; });
    if (removed != c.pack.removed_args.end()) {
      c.error(p, "unknown key: not an engine argument of " + c.vllm() + " (" + key + " was " +
                     removed->note + ")");
      continue;
    }
    // vllm/engine/arg_utils.py EngineArgs: a field that is not Optional passes None on to its
    // pydantic config class, which refuses it (ArgSpec::nullable).
    if (const ArgSpec* spec = c.pack.arg(key); spec && !spec->nullable && it->is_null()) {
      c.error(p, "null is not accepted: " + key + " is not Optional in " + c.vllm() + " (" +
                     spec->constraint + "); leave the key out for vLLM's default (" +
                     spec->default_text + ")");
      continue;
    }
    if (contains(accepted_arg_keys(), key)) continue;
    if (const ArgSpec* spec = c.pack.arg(key);
        spec && check_text_model_multimodal(c, args, *spec)) {
      continue;
    }
    bool handled = false;
    for (const auto& m : kMisplaced) {
      if (key != m.key) continue;
      handled = true;
      if (check_parallel_size(c, args, m)) break;
      c.error(p, std::string("is not set in engine.args; set ") + pool_pointer(c) + m.where +
                     " instead");
    }
    if (handled) continue;
    if (contains(c.pack.unmodelled_args, key) && check_unmodelled(c, args, key)) continue;
    if (contains(c.pack.unmodelled_args, key)) {
      c.error(p, "\"" + key + "\" exists in " + c.vllm() +
                     " but is not modelled by BLIS Playground; remove it");
      continue;
    }
    if (contains(ignored_arg_keys(), key)) {
      // Ignored, but a value vLLM's config refuses is still refused.
      if (!check_ignored(c, args, key)) continue;
      c.warning(p, "\"" + key + "\" has no effect on what BLIS Playground simulates; ignored");
      continue;
    }
    std::string msg =
        "unknown key: not an engine argument of " + c.vllm() + " that BLIS Playground knows";
    const auto near = closest(key, accepted_arg_keys(), 1);
    if (!near.empty()) msg += "; did you mean \"" + near.front() + "\"?";
    c.error(p, msg);
  }
}

// A bool argument: vLLM's config classes are pydantic dataclasses, which read bools in lax
// mode (pydantic_bool).
std::optional<bool> read_bool(Context& c, FieldReader& r, const std::string& key) {
  return r.lax_boolean(key, c.vllm() + "'s pydantic config classes");
}

template <typename T>
void set_int(std::optional<std::int64_t> v, T& out, bool* flag = nullptr) {
  if (!v) return;
  out = static_cast<T>(*v);
  if (flag) *flag = true;
}

// "an integer >= 1 [vLLM 0.32.0: Field(ge=1)]": what the reader expects, with vLLM's rule.
std::string expected_text(const Context& c, const ArgSpec& spec) {
  return spec.expected + " [" + c.vllm() + ": " + spec.constraint + "]";
}

// Reads `key` with the bounds of the pack's ArgSpec; messages carry vLLM's constraint. The
// reader is in pydantic's lax mode (lax_reader), so "128", 128.0 and true convert as vLLM's
// config classes convert them, with a warning.
std::optional<std::int64_t> read_int(Context& c, FieldReader& r, const std::string& key) {
  const ArgSpec* spec = c.pack.arg(key);
  if (!spec) return std::nullopt;
  return r.integer(key, spec->int_min, spec->int_max, expected_text(c, *spec),
                   spec->human_readable);
}

std::optional<double> read_float(Context& c, FieldReader& r, const std::string& key) {
  const ArgSpec* spec = c.pack.arg(key);
  if (!spec) return std::nullopt;
  return r.number(key, spec->float_min, spec->min_exclusive, spec->float_max,
                  expected_text(c, *spec));
}

// vllm/config/model.py ModelConfig.max_model_len Field(ge=-1); -1 / "auto" (any case, via
// human_readable_int_or_auto) fit it to memory; validate_model_config_after refuses 0.
void read_max_model_len(Context& c, FieldReader& r) {
  const json* v = r.raw("max_model_len");
  if (!v) return;
  if (v->is_string()) {
    std::string t = v->get<std::string>();
    const auto b = t.find_first_not_of(" \t\r\n");
    const auto e = t.find_last_not_of(" \t\r\n");
    t = b == std::string::npos ? std::string() : t.substr(b, e - b + 1);
    for (auto& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (t == "auto") {
      c.set.max_model_len_auto = true;
      return;
    }
  }
  const auto n = read_int(c, r, "max_model_len");
  if (!n) return;
  if (*n == -1) {
    c.set.max_model_len_auto = true;
  } else if (*n == 0) {
    c.error(c.ptr("max_model_len"),
            "0: max_model_len must be a positive integer, got int: 0 [" + c.vllm() +
                " ModelConfig.validate_model_config_after]; -1 or \"auto\" fits it to memory");
  } else {
    c.args.max_model_len = static_cast<std::int32_t>(*n);
    c.set.max_model_len = true;
  }
}

void read_scheduler(Context& c, FieldReader& r) {
  auto& a = c.args;
  set_int(read_int(c, r, "max_num_seqs"), a.max_num_seqs, &c.set.max_num_seqs);
  set_int(read_int(c, r, "max_num_batched_tokens"), a.max_num_batched_tokens,
          &c.set.max_num_batched_tokens);
  // vllm/config/scheduler.py SchedulerConfig.max_num_scheduled_tokens: int | None, Field(ge=0).
  if (auto t = read_int(c, r, "max_num_scheduled_tokens"))
    a.max_num_scheduled_tokens = static_cast<std::int32_t>(*t);
  if (auto b = read_bool(c, r, "enable_chunked_prefill")) {
    a.enable_chunked_prefill = *b;
    c.set.enable_chunked_prefill = true;
  }
  if (auto t = read_int(c, r, "long_prefill_token_threshold")) {
    a.long_prefill_token_threshold = static_cast<std::int32_t>(*t);
    c.set.long_prefill_token_threshold = true;
    if (*t < 0) {
      // Before SchedulerConfig's Field(ge=0) (PR #44070) a negative cap was never hit
      // (Scheduler.schedule caps only when 0 < threshold); defaults.cpp makes it 0.
      c.warning(c.ptr("long_prefill_token_threshold"),
                "a negative threshold caps nothing in vLLM's scheduler (same as 0)");
    }
  }
  if (c.pack.partial_prefills) {
    set_int(read_int(c, r, "max_num_partial_prefills"), a.max_num_partial_prefills);
    set_int(read_int(c, r, "max_long_partial_prefills"), a.max_long_partial_prefills);
  }
  const std::string refusal = "is not accepted by " + c.vllm();
  if (auto s = r.choice("scheduling_policy", c.pack.scheduling_policies, refusal))
    a.scheduling_policy = *s;
  if (auto b = read_bool(c, r, "async_scheduling")) c.set.async_scheduling = *b;
  if (auto b = read_bool(c, r, "scheduler_reserve_full_isl")) a.scheduler_reserve_full_isl = *b;
  if (auto w = read_float(c, r, "watermark")) a.watermark = *w;
  // vllm/config/parallel.py ParallelConfig.enable_expert_parallel (checked in
  // check_parallel.cpp).
  if (auto b = read_bool(c, r, "enable_expert_parallel")) a.enable_expert_parallel = *b;
}

void read_cache(Context& c, FieldReader& r) {
  auto& a = c.args;
  if (auto b = read_bool(c, r, "enable_prefix_caching")) {
    a.enable_prefix_caching = *b;
    c.set.enable_prefix_caching = true;
  }
  // Block size: pydantic gt=0 here; the backend rule is checked in check_scheduler.cpp.
  set_int(read_int(c, r, "block_size"), a.block_size, &c.set.block_size);
  if (auto g = read_float(c, r, "gpu_memory_utilization")) {
    a.gpu_memory_utilization = *g;
    c.set.gpu_memory_utilization = true;
  }
  // vllm/v1/worker/gpu_worker.py determine_available_memory tests it for truth: 0 = unset.
  if (auto b = read_int(c, r, "kv_cache_memory_bytes"); b && *b > 0) a.kv_cache_memory_bytes = *b;
  if (auto b = read_int(c, r, "num_gpu_blocks_override")) a.num_gpu_blocks_override = *b;
  const std::string refusal = "is not accepted by " + c.vllm();
  if (auto s = r.choice("kv_cache_dtype", c.pack.kv_cache_dtypes, refusal)) a.kv_cache_dtype = *s;
  if (auto s = r.choice("prefix_caching_hash_algo", c.pack.prefix_caching_hash_algos, refusal)) {
    a.prefix_caching_hash_algo = *s;
  }
  // vllm/config/cache.py: kv_offloading_size float | None (GiB, total over TP ranks).
  if (auto g = read_float(c, r, "kv_offloading_size")) c.set.kv_offloading_size = *g;
  if (auto s = r.choice("kv_offloading_backend", c.pack.kv_offloading_backends, refusal)) {
    c.set.kv_offloading_backend = *s;
  }
}

void read_model(Context& c, FieldReader& r) {
  auto& a = c.args;
  read_max_model_len(c, r);
  const std::string refusal = "is not accepted by " + c.vllm();
  if (auto s = r.choice("dtype", c.pack.dtypes, refusal)) a.dtype = *s;
  // ModelConfig.validate_quantization_before lower-cases the method before the check.
  if (const json* q = r.raw("quantization"); q && q->is_string()) {
    std::string lower = q->get<std::string>();
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    if (std::find(c.pack.quantization_methods.begin(), c.pack.quantization_methods.end(), lower) !=
        c.pack.quantization_methods.end()) {
      a.quantization = lower;
    } else {
      r.choice("quantization", c.pack.quantization_methods, refusal);
    }
  } else if (q) {
    r.choice("quantization", c.pack.quantization_methods, refusal);
  }
  if (auto b = read_bool(c, r, "allow_deprecated_quantization"))
    c.set.allow_deprecated_quantization = *b;
  if (auto b = read_bool(c, r, "enforce_eager")) a.enforce_eager = *b;
  if (auto s = r.choice("performance_mode", c.pack.performance_modes, refusal))
    a.performance_mode = *s;
}

void read_lora(Context& c, FieldReader& r, const json& args) {
  auto& a = c.args;
  if (auto b = read_bool(c, r, "enable_lora")) a.enable_lora = *b;
  // vllm/engine/arg_utils.py:605-606 max_loras: int, max_lora_rank: MaxLoRARanks: with
  // enable_lora, None reaches LoRAConfig, whose pydantic validation refuses it.
  for (const char* key : {"max_loras", "max_lora_rank"}) {
    if (a.enable_lora && args.contains(key) && args[key].is_null()) {
      c.error(c.ptr(key), std::string("null is not accepted with enable_lora: ") + key +
                              " is not Optional in " + c.vllm() +
                              " (LoRAConfig); leave the key out for vLLM's default");
    }
  }
  // vllm/config/lora.py LoRAConfig.max_loras Field(ge=1): checked only when enable_lora
  // builds a LoRAConfig (EngineArgs.create_engine_config); otherwise any integer.
  if (a.enable_lora) {
    set_int(read_int(c, r, "max_loras"), a.max_loras, &c.set.max_loras);
  } else if (auto m = r.integer("max_loras", std::numeric_limits<std::int32_t>::min(), kInt32Max,
                                "an integer")) {
    c.set.max_loras = true;
    c.set.max_loras_unused = *m;
  }
  // MaxLoRARanks is a Literal: the CLI's choices check it with or without enable_lora.
  if (const json* v = r.raw("max_lora_rank")) {
    std::vector<std::string> ranks;
    for (auto x : c.pack.max_lora_ranks) ranks.push_back(std::to_string(x));
    const bool is_int = v->is_number_integer() || v->is_number_unsigned();
    const auto it = is_int ? std::find(c.pack.max_lora_ranks.begin(), c.pack.max_lora_ranks.end(),
                                       v->get<std::int64_t>())
                           : c.pack.max_lora_ranks.end();
    if (it == c.pack.max_lora_ranks.end()) {
      c.error(c.ptr("max_lora_rank"),
              show(*v) + " is not accepted by " + c.vllm() + " (accepted: " + join(ranks) + ")");
    } else {
      a.max_lora_rank = *it;
      c.set.max_lora_rank = true;
    }
  }
  // create_engine_config passes max_cpu_loras only when > 0; None becomes max_loras.
  if (auto m = read_int(c, r, "max_cpu_loras"); m && *m > 0) {
    a.max_cpu_loras = static_cast<std::int32_t>(*m);
    c.set.max_cpu_loras = true;
  }
}

// vllm/engine/arg_utils.py EngineArgs.create_speculative_config: spec_method, spec_model and
// spec_tokens fill speculative_config's method, model and num_speculative_tokens, each
// mutually exclusive with the same key there. The merged arguments are read as one.
json merge_spec_shorthands(Context& c, const json& args) {
  static const std::pair<const char*, const char*> kShort[] = {
      {"spec_method", "method"},
      {"spec_model", "model"},
      {"spec_tokens", "num_speculative_tokens"}};
  if (!args.is_object()) return args;
  const auto sc_it = args.find("speculative_config");
  const bool sc_given = sc_it != args.end() && !sc_it->is_null();
  if (sc_given && !sc_it->is_object()) return args;  // the reader refuses it
  json sc = sc_given ? *sc_it : json::object();
  bool any = false;
  for (const auto& [flag, key] : kShort) {
    const auto it = args.find(flag);
    if (it == args.end() || it->is_null()) continue;
    if (sc.contains(key)) {
      c.error(c.ptr(flag), std::string(flag) + " and speculative_config[\"" + key +
                               "\"] are mutually exclusive [" + c.vllm() +
                               " EngineArgs.create_speculative_config]");
      continue;
    }
    sc[key] = *it;
    any = true;
  }
  if (!any) return args;
  json out = args;
  out["speculative_config"] = sc;
  return out;
}

}  // namespace

void read_args(Context& c, const json& given) {
  const json args = merge_spec_shorthands(c, given);
  FieldReader r(args, c.args_pointer, c.diags, accepted_arg_keys(),
                "an object (vLLM engine arguments)");
  if (!r.valid()) return;
  c.raw = std::make_shared<const json>(args);
  lax_reader(c, r);
  report_keys(c, args);
  read_model(c, r);
  read_scheduler(c, r);
  read_cache(c, r);
  read_lora(c, r, args);
  read_speculative(c, r);
  read_kv_transfer(c, r);
  read_compilation(c, r);
}

}  // namespace detail
}  // namespace blis::rules
