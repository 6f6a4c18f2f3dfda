// CUDA graph settings: EngineArgs.cudagraph_capture_sizes / max_cudagraph_capture_size, the
// compilation_config object (vllm/config/compilation.py CompilationConfig) and
// optimization_level, read as vLLM reads them, and the checks VllmConfig.__post_init__ and
// _set_cudagraph_sizes make once max_num_batched_tokens is known. The kernel derives the
// capture sizes from the result (core/kernel/cuda_graphs.h).

#include <algorithm>
#include <limits>

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules {

using nlohmann::json;

// The init fields of CompilationConfig at 8d9b52f7 (vllm/config/compilation.py; @config is
// extra="forbid", so any other key is refused). The first four are modelled.
const std::vector<std::string>& accepted_compilation_keys() {
  static const std::vector<std::string> keys = {"cudagraph_mode",
                                                "cudagraph_capture_sizes",
                                                "max_cudagraph_capture_size",
                                                "mode",
                                                "debug_dump_path",
                                                "cache_dir",
                                                "compile_cache_save_format",
                                                "backend",
                                                "custom_ops",
                                                "ir_enable_torch_wrap",
                                                "splitting_ops",
                                                "compile_mm_encoder",
                                                "cudagraph_mm_encoder",
                                                "encoder_cudagraph_token_budgets",
                                                "encoder_cudagraph_max_vision_items_per_batch",
                                                "encoder_cudagraph_max_frames_per_batch",
                                                "compile_sizes",
                                                "compile_ranges_endpoints",
                                                "inductor_compile_config",
                                                "inductor_passes",
                                                "cudagraph_num_of_warmups",
                                                "cudagraph_copy_inputs",
                                                "cudagraph_specialize_lora",
                                                "use_inductor_graph_partition",
                                                "pass_config",
                                                "dynamic_shapes_config",
                                                "fast_moe_cold_start"};
  return keys;
}

namespace detail {
namespace {

const std::vector<std::string> kGraphModes = {"NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY",
                                              "FULL_AND_PIECEWISE"};
const std::vector<std::string> kCompileModes = {"NONE", "STOCK_TORCH_COMPILE", "DYNAMO_TRACE_ONCE",
                                                "VLLM_COMPILE"};

// An enum given by name (any case: the validators upper-case it) or by its int value.
std::optional<std::string> enum_value(Context& c, const std::string& pointer, const json& v,
                                      const std::vector<std::string>& names,
                                      std::int64_t int_values, const std::string& what) {
  if (v.is_string()) {
    const std::string up = upper(v.get<std::string>());
    if (contains(names, up)) return up;
  } else if (v.is_number_integer() && v.get<std::int64_t>() >= 0 &&
             v.get<std::int64_t>() < int_values) {
    return names[static_cast<std::size_t>(v.get<std::int64_t>())];
  }
  c.error(pointer, show(v) + " is not accepted by " + c.vllm() + " as " + what + " (" +
                       join(names, true) + ", any case, or the ints 0.." +
                       std::to_string(int_values - 1) + ")");
  return std::nullopt;
}

// EngineArgs assigns its cudagraph_capture_sizes to CompilationConfig without validation
// (vllm/engine/arg_utils.py create_engine_config), and _set_cudagraph_sizes compares and
// ranges over the entries: only JSON integers work there.
void read_top_level_sizes(Context& c, FieldReader& r) {
  const json* v = r.raw("cudagraph_capture_sizes");
  if (!v) return;
  const std::string p = c.ptr("cudagraph_capture_sizes");
  if (!v->is_array()) {
    c.error(p, type_mismatch(*v, "a list of integers or null [" + c.vllm() +
                                     ": EngineArgs.cudagraph_capture_sizes list[int] | None]"));
    return;
  }
  std::vector<std::int32_t> sizes;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const json& e = (*v)[i];
    if (!e.is_number_integer() || e.get<std::int64_t>() > kInt32Max ||
        e.get<std::int64_t>() < std::numeric_limits<std::int32_t>::min()) {
      c.error(json_pointer_append(p, i),
              show(e) + " is not accepted: " + c.vllm() +
                  " assigns EngineArgs.cudagraph_capture_sizes to CompilationConfig unvalidated, "
                  "and _set_cudagraph_sizes needs integers (32-bit here)");
      return;
    }
    sizes.push_back(static_cast<std::int32_t>(e.get<std::int64_t>()));
  }
  c.args.cudagraph_capture_sizes = sizes;
  c.set.capture_sizes_pointer = p;
}

void read_top_level_max(Context& c, FieldReader& r) {
  const json* v = r.raw("max_cudagraph_capture_size");
  if (!v) return;
  if (!v->is_number_integer() || v->get<std::int64_t>() > kInt32Max ||
      v->get<std::int64_t>() < std::numeric_limits<std::int32_t>::min()) {
    c.error(c.ptr("max_cudagraph_capture_size"),
            type_mismatch(*v, "an integer or null [" + c.vllm() +
                                  ": EngineArgs.max_cudagraph_capture_size int | None, assigned "
                                  "to CompilationConfig unvalidated]"));
    return;
  }
  c.args.max_cudagraph_capture_size = static_cast<std::int32_t>(v->get<std::int64_t>());
  c.set.max_capture_size_pointer = c.ptr("max_cudagraph_capture_size");
}

// CompilationConfig.__post_init__ on custom_ops: one base mode ('all' or 'none') at most, and
// no op both enabled and disabled.
void check_custom_op_modes(Context& c, FieldReader& cc) {
  const json* ops = cc.raw("custom_ops");
  if (!ops || !ops->is_array()) return;
  int base_modes = 0;
  std::vector<std::string> on, off;
  for (const auto& op : *ops) {
    if (!op.is_string()) return;
    const std::string s = op.get<std::string>();
    if (s == "all" || s == "none") ++base_modes;
    if (s.size() >= 2 && s[0] == '+') on.push_back(s.substr(1));
    if (s.size() >= 2 && s[0] == '-') off.push_back(s.substr(1));
  }
  const std::string where = " [" + c.vllm() + " CompilationConfig.__post_init__]";
  if (base_modes > 1) {
    c.error(cc.pointer("custom_ops"),
            show(*ops) + ": custom_ops can contain only one base mode: 'all' or 'none'" + where);
    return;
  }
  std::sort(on.begin(), on.end());
  for (const auto& op : on) {
    if (!contains(off, op)) continue;
    c.error(cc.pointer("custom_ops"), show(*ops) +
                                          ": custom_ops cannot both enable and disable the same "
                                          "operation(s): " +
                                          op + ". Remove either the '+' or '-' directive" + where);
    return;
  }
}

// CompilationConfig's fields that are not Optional: None reaches pydantic, which refuses it
// (level, mode, cudagraph_mode, max_cudagraph_capture_size, use_inductor_graph_partition and
// ir_enable_torch_wrap skip None in _skip_none_validation; the others are `X | None`).
const char* const kNotOptional[] = {"cache_dir",
                                    "compile_cache_save_format",
                                    "backend",
                                    "custom_ops",
                                    "compile_mm_encoder",
                                    "cudagraph_mm_encoder",
                                    "encoder_cudagraph_token_budgets",
                                    "encoder_cudagraph_max_vision_items_per_batch",
                                    "inductor_compile_config",
                                    "inductor_passes",
                                    "cudagraph_num_of_warmups",
                                    "cudagraph_capture_sizes",
                                    "cudagraph_copy_inputs",
                                    "cudagraph_specialize_lora",
                                    "pass_config",
                                    "dynamic_shapes_config"};

// The fields of CompilationConfig BLIS Playground does not model: type-checked as pydantic
// reads them, then simulated as vLLM's default, with a warning.
void read_other_compilation_fields(Context& c, FieldReader& cc, const json& obj) {
  for (const char* key : kNotOptional) {
    const auto it = obj.find(key);
    if (it == obj.end() || !it->is_null()) continue;
    c.error(cc.pointer(key), std::string("null is not accepted: ") + key + " is not Optional in " +
                                 c.vllm() +
                                 " (CompilationConfig); leave the key out for vLLM's default");
  }
  for (const char* key : {"ir_enable_torch_wrap", "compile_mm_encoder", "cudagraph_mm_encoder",
                          "cudagraph_copy_inputs", "cudagraph_specialize_lora",
                          "use_inductor_graph_partition", "fast_moe_cold_start"}) {
    cc.lax_boolean(key, c.vllm() + "'s pydantic config classes");
  }
  const std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  const std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  cc.integer("cudagraph_num_of_warmups", lo, hi, "an integer");
  // CompilationConfig.__post_init__ refuses negative encoder budgets only with
  // cudagraph_mm_encoder; the token budgets must be positive.
  cc.integer("encoder_cudagraph_max_vision_items_per_batch", lo, hi, "an integer");
  cc.integer("encoder_cudagraph_max_frames_per_batch", lo, hi, "an integer or null");
  cc.integer_list("encoder_cudagraph_token_budgets", 1, hi,
                  "an integer > 0 (CompilationConfig.__post_init__)");
  cc.integer_list("compile_ranges_endpoints", lo, hi, "an integer");
  for (const char* key : {"debug_dump_path", "cache_dir", "backend"}) cc.string(key);
  cc.choice("compile_cache_save_format", {"binary", "unpacked"},
            "is not accepted by " + c.vllm() + " (validate_compile_cache_save_format)");
  if (const json* ops = cc.array("custom_ops", "a list of strings")) {
    // CompilationConfig.__post_init__: 'all', 'none', '+op' or '-op'.
    for (std::size_t i = 0; i < ops->size(); ++i) {
      const json& op = (*ops)[i];
      const bool ok = op.is_string() &&
                      (op == "all" || op == "none" ||
                       (op.get<std::string>().size() >= 2 &&
                        (op.get<std::string>()[0] == '+' || op.get<std::string>()[0] == '-')));
      if (!ok) {
        c.error(json_pointer_append(cc.pointer("custom_ops"), i),
                show(op) +
                    ": invalid syntax for a custom op, must be 'all', 'none', '+op' or "
                    "'-op' [" +
                    c.vllm() + " CompilationConfig.__post_init__]");
      }
    }
  }
  check_custom_op_modes(c, cc);
  // CompilationConfig.__post_init__: with mode VLLM_COMPILE given, only the backends "",
  // "eager" and "inductor" (the mode BLIS reads from optimization_level is set later, in
  // VllmConfig.__post_init__, and is not checked against it).
  if (c.set.compilation_mode == "VLLM_COMPILE") {
    if (const json* b = cc.raw("backend");
        b && b->is_string() && *b != "" && *b != "eager" && *b != "inductor") {
      c.error(cc.pointer("backend"), show(*b) + ": Invalid backend for piecewise compilation [" +
                                         c.vllm() + " CompilationConfig.__post_init__]");
    }
  }
  // CompilationConfig.__post_init__: negative encoder limits only with cudagraph_mm_encoder.
  if (const json* on = cc.raw("cudagraph_mm_encoder"); on && pydantic_bool(*on) == true) {
    for (const char* key : {"encoder_cudagraph_max_vision_items_per_batch",
                            "encoder_cudagraph_max_frames_per_batch"}) {
      const json* n = cc.raw(key);
      if (!n || !n->is_number() || n->get<double>() >= 0) continue;
      c.error(cc.pointer(key), show(*n) + ": " + key +
                                   " must be non-negative with cudagraph_mm_encoder [" + c.vllm() +
                                   " CompilationConfig.__post_init__]");
    }
  }
  cc.array("splitting_ops", "a list of strings or null");
  cc.array("compile_sizes", "a list of integers and \"cudagraph_capture_sizes\", or null");
  for (const char* key :
       {"inductor_compile_config", "inductor_passes", "pass_config", "dynamic_shapes_config"}) {
    cc.object(key);
  }
  // CompilationConfig.inductor_passes: dict[str, str] (pydantic's str takes no number or bool).
  if (const json* passes = cc.raw("inductor_passes"); passes && passes->is_object()) {
    for (auto it = passes->begin(); it != passes->end(); ++it) {
      if (it->is_string()) continue;
      c.error(json_pointer_append(cc.pointer("inductor_passes"), it.key()),
              type_mismatch(*it,
                            "a string (a pass's qualified name; inductor_passes: "
                            "dict[str, str])"));
      break;
    }
  }
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    const std::string& key = it.key();
    if (!contains(accepted_compilation_keys(), key) || it->is_null()) continue;
    if (key == "cudagraph_mode" || key == "cudagraph_capture_sizes" ||
        key == "max_cudagraph_capture_size" || key == "mode") {
      continue;
    }
    c.warning(cc.pointer(key), show(*it) + ": accepted by " + c.vllm() +
                                   ", but BLIS Playground simulates compilation_config." + key +
                                   " as if it were vLLM's default");
  }
}

}  // namespace

void read_compilation(Context& c, FieldReader& r) {
  read_top_level_sizes(c, r);
  read_top_level_max(c, r);
  // VllmConfig.optimization_level: OptimizationLevel IntEnum O0..O3 (default O2).
  if (const json* v = r.raw("optimization_level")) {
    if (v->is_number_integer() && v->get<std::int64_t>() >= 0 && v->get<std::int64_t>() <= 3) {
      c.set.optimization_level = static_cast<std::int32_t>(v->get<std::int64_t>());
    } else {
      c.error(c.ptr("optimization_level"),
              show(*v) + " is not accepted by " + c.vllm() +
                  " (OptimizationLevel: the ints 0, 1, 2, 3; vllm/config/vllm.py)");
    }
  }
  const json* raw = r.raw("compilation_config");
  if (!raw) return;
  FieldReader cc(*raw, c.ptr("compilation_config"), c.diags, accepted_compilation_keys(),
                 "an object (CompilationConfig)");
  if (!cc.valid()) return;
  lax_reader(c, cc);
  if (const json* m = cc.raw("cudagraph_mode")) {
    // CompilationConfig.validate_cudagraph_mode_before: CUDAGraphMode[value.upper()].
    if (auto name =
            enum_value(c, cc.pointer("cudagraph_mode"), *m, kGraphModes, 3, "a CUDAGraphMode")) {
      c.set.cudagraph_mode = *name;
    }
  }
  if (const json* m = cc.raw("mode")) {
    // validate_mode_before: a CompilationMode name (upper-cased) or its int value.
    if (auto name = enum_value(c, cc.pointer("mode"), *m, kCompileModes, 4, "a CompilationMode")) {
      c.set.compilation_mode = *name;
    }
  }
  if (auto sizes =
          cc.integer_list("cudagraph_capture_sizes", std::numeric_limits<std::int32_t>::min(),
                          kInt32Max, "an integer")) {
    if (c.args.cudagraph_capture_sizes) {
      c.error(cc.pointer("cudagraph_capture_sizes"),
              "cudagraph_capture_sizes and compilation_config.cudagraph_capture_sizes are "
              "mutually exclusive [" +
                  c.vllm() + " EngineArgs.create_engine_config]");
    } else {
      c.args.cudagraph_capture_sizes.emplace();
      for (auto n : *sizes) c.args.cudagraph_capture_sizes->push_back(static_cast<std::int32_t>(n));
      c.set.capture_sizes_pointer = cc.pointer("cudagraph_capture_sizes");
    }
  }
  if (auto m = cc.integer("max_cudagraph_capture_size", std::numeric_limits<std::int32_t>::min(),
                          kInt32Max, "an integer or null")) {
    if (c.args.max_cudagraph_capture_size) {
      c.error(cc.pointer("max_cudagraph_capture_size"),
              "max_cudagraph_capture_size and compilation_config.max_cudagraph_capture_size are "
              "mutually exclusive [" +
                  c.vllm() + " EngineArgs.create_engine_config]");
    } else {
      c.args.max_cudagraph_capture_size = static_cast<std::int32_t>(*m);
      c.set.max_capture_size_pointer = cc.pointer("max_cudagraph_capture_size");
    }
  }
  read_other_compilation_fields(c, cc, *raw);
  cc.report_unknown_keys();
}

namespace {

// On the default list of _set_cudagraph_sizes below `cap`: 1, 2, 4 (every size up to 32 with
// performance_mode interactivity), multiples of 8 below 256, of 16 from 256, and
// max_num_batched_tokens itself.
bool on_default_list(std::int64_t n, std::int64_t mnbt, bool interactivity) {
  if (n == mnbt || n == 1 || n == 2 || n == 4) return true;
  if (interactivity && n >= 1 && n <= 32) return true;
  return n < 256 ? n >= 8 && n % 8 == 0 : n % 16 == 0;
}

// VllmConfig._set_cudagraph_sizes with graphs on: the checks on the user's sizes and largest
// size, and the warnings for what vLLM drops.
void check_capture_sizes(Context& c, std::int64_t q) {
  const auto& a = c.args;
  const std::int64_t mnbt = a.max_num_batched_tokens;
  std::int64_t cap =
      a.max_cudagraph_capture_size
          ? *a.max_cudagraph_capture_size
          : std::min<std::int64_t>(static_cast<std::int64_t>(a.max_num_seqs) * q * 2, 512);
  cap = std::min(cap, mnbt);
  const std::string& maxp = c.set.max_capture_size_pointer;
  if (cap < 1) {
    c.error(maxp.empty() ? c.ptr("max_num_batched_tokens") : maxp,
            "the largest CUDA graph size is " + std::to_string(cap) +
                ": maximum cudagraph size should be greater than or equal to 1 when using cuda "
                "graph [" +
                c.vllm() +
                " VllmConfig._set_cudagraph_sizes]; set enforce_eager or "
                "compilation_config.cudagraph_mode NONE to run without graphs");
    return;
  }
  const std::string& sp = c.set.capture_sizes_pointer;
  if (!a.cudagraph_capture_sizes) {
    if (a.max_cudagraph_capture_size && !on_default_list(*a.max_cudagraph_capture_size, mnbt,
                                                         a.performance_mode == "interactivity")) {
      c.warning(maxp, std::to_string(*a.max_cudagraph_capture_size) +
                          " is not on vLLM's list of capture sizes: " + c.vllm() +
                          " truncates max_cudagraph_capture_size to the largest size below it "
                          "(VllmConfig._set_cudagraph_sizes)");
    }
    return;
  }
  const auto& given = *a.cudagraph_capture_sizes;
  if (given.empty()) {
    c.error(sp,
            "[]: cudagraph_capture_sizes should contain at least one element when using "
            "cuda graph [" +
                c.vllm() + " VllmConfig._set_cudagraph_sizes]");
    return;
  }
  std::vector<std::int32_t> kept;
  for (auto n : given) {
    if (n <= mnbt) kept.push_back(n);
  }
  std::sort(kept.begin(), kept.end());
  kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
  const std::int64_t valid_max = kept.empty() ? 0 : kept.back();
  if (a.max_cudagraph_capture_size && *a.max_cudagraph_capture_size != valid_max) {
    c.error(maxp, "customized max_cudagraph_capture_size (" +
                      std::to_string(*a.max_cudagraph_capture_size) +
                      ") should be consistent with the max value of cudagraph_capture_sizes (" +
                      std::to_string(valid_max) + ") [" + c.vllm() +
                      " VllmConfig._set_cudagraph_sizes; sizes above max_num_batched_tokens " +
                      std::to_string(mnbt) + " are dropped first]");
    return;
  }
  if (kept.size() < given.size()) {
    c.warning(sp, "sizes above max_num_batched_tokens (" + std::to_string(mnbt) +
                      ") and repeated sizes are dropped; " + c.vllm() + " captures " +
                      std::to_string(kept.size()) + " sizes (VllmConfig._set_cudagraph_sizes)");
  }
  if (!kept.empty() && kept.front() < 1) {
    c.warning(sp,
              "a capture size below 1 holds no batch: BLIS Playground leaves it out (vLLM "
              "would try to capture it)");
  }
  if (kept.empty() || kept.back() < 1) {
    c.warning(sp, "no capture size is within 1.." + std::to_string(mnbt) +
                      " (max_num_batched_tokens): every step runs eager");
  }
}

}  // namespace

void check_compilation(Context& c) {
  auto& a = c.args;
  // vllm/config/vllm.py VllmConfig.__post_init__, in its order: enforce_eager sets
  // cudagraph_mode NONE; an unset mode takes the optimization level's (O0 NONE, O1 PIECEWISE,
  // O2/O3 FULL_AND_PIECEWISE); an unset compilation mode is VLLM_COMPILE above O0; piecewise
  // graphs need VLLM_COMPILE, so PIECEWISE / FULL_AND_PIECEWISE become NONE without it.
  const std::int32_t level = c.set.optimization_level;
  std::string mode = c.set.cudagraph_mode.value_or(
      level == 0 ? "NONE" : (level == 1 ? "PIECEWISE" : "FULL_AND_PIECEWISE"));
  const std::string compile = !c.set.compilation_mode.empty()
                                  ? c.set.compilation_mode
                                  : (level > 0 ? "VLLM_COMPILE" : "NONE");
  if (a.enforce_eager) {
    if (c.set.cudagraph_mode && *c.set.cudagraph_mode != "NONE") {
      c.warning(c.ptr("compilation_config") + "/cudagraph_mode",
                "enforce_eager disables CUDA graphs: " + c.vllm() +
                    " sets cudagraph_mode NONE (VllmConfig.__post_init__)");
    }
    mode = "NONE";
  } else if ((mode == "PIECEWISE" || mode == "FULL_AND_PIECEWISE") && compile != "VLLM_COMPILE") {
    c.warning(c.ptr("compilation_config"), "cudagraph_mode " + mode +
                                               " is not compatible with compilation mode " +
                                               compile + ": " + c.vllm() +
                                               " overrides it to NONE, every step runs eager "
                                               "(VllmConfig.__post_init__)");
    mode = "NONE";
  }
  a.cudagraph_mode = mode;
  // The sizes are checked against the batch limits; a refused limit left them unset.
  if (mode == "NONE" || a.max_num_batched_tokens < 1 || a.max_num_seqs < 1) return;
  const std::int64_t q =
      1 + (a.speculative_config ? a.speculative_config->num_speculative_tokens : 0);
  check_capture_sizes(c, q);
}

}  // namespace detail
}  // namespace blis::rules
