// The engine arguments that are not numbers or bools, read with the type their ArgSpec gives
// (strings, Literal choices, lists, config objects): the unmodelled and ignored keys of a
// pack, and the list of the ignored ones.

#include <cstdint>
#include <limits>

#include "rules/json_fields.h"
#include "rules/packs/shared_tables.h"
#include "rules/resolve_context.h"

namespace blis::rules {

// Keys vLLM accepts that do not change what is simulated (naming, loading, logging).
const std::vector<std::string>& ignored_arg_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> k = {"served_model_name",
                                  "tokenizer",
                                  "tokenizer_mode",
                                  "trust_remote_code",
                                  "revision",
                                  "code_revision",
                                  "tokenizer_revision",
                                  "download_dir",
                                  "load_format",
                                  "seed",
                                  "disable_log_stats",
                                  "enable_log_requests",
                                  "max_logprobs",
                                  "logprobs_mode",
                                  "hf_token",
                                  "otlp_traces_endpoint",
                                  "collect_detailed_traces",
                                  "generation_config",
                                  "override_generation_config",
                                  "max_parallel_loading_workers",
                                  "kv_cache_metrics",
                                  "kv_cache_metrics_sample",
                                  "enable_mfu_metrics",
                                  "show_hidden_metrics_for_version",
                                  "reasoning_parser",
                                  "skip_tokenizer_init",
                                  "config_format",
                                  "model_impl",
                                  "disable_custom_all_reduce"};
    // The other EngineArgs fields that change nothing simulated (rules/packs/more_arg_specs*.cpp,
    // config_object_specs.cpp: the rows that are not unmodelled).
    for (const auto& a : packs::remaining_arg_specs()) {
      if (!a.unmodelled && a.key.find('.') == std::string::npos) k.push_back(a.key);
    }
    return k;
  }();
  return keys;
}

namespace detail {

using nlohmann::json;

namespace {

bool string_list(const json& v) {
  if (!v.is_array()) return false;
  for (const auto& e : v) {
    if (!e.is_string()) return false;
  }
  return true;
}

// A list of integers in [int_min, int_max]; list[int|str] also takes strings. The first entry
// it refuses is reported; false then.
bool int_list(Context& c, const std::string& p, const json& v, const ArgSpec& spec, bool strings) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    const json& e = v[i];
    if (strings && e.is_string()) continue;
    const bool fits = e.is_number_integer() &&
                      !(e.is_number_unsigned() &&
                        e.get<std::uint64_t>() >
                            static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) &&
                      e.get<std::int64_t>() >= spec.int_min &&
                      e.get<std::int64_t>() <= spec.int_max;
    if (fits) continue;
    std::string expected = strings ? "an integer or a string" : "an integer";
    if (spec.int_min >= 0) expected += " >= " + std::to_string(spec.int_min);
    if (e.is_number_integer()) {
      c.error(json_pointer_append(p, i),
              show(e) + ": expected " + expected + " [" + c.vllm() + ": " + spec.constraint + "]");
    } else {
      c.error(json_pointer_append(p, i),
              type_mismatch(e, expected + " [" + c.vllm() + ": " + spec.constraint + "]"));
    }
    return false;
  }
  return true;
}

// 'u' upper-cases, 'l' lower-cases, 'k' lower-cases and turns "-" into "_" (vllm/config/
// kernel.py KernelConfig._normalize_moe_backend).
std::string folded(std::string s, char fold) {
  for (auto& ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (fold == 'u') ch = static_cast<char>(std::toupper(u));
    if (fold == 'l' || fold == 'k') ch = static_cast<char>(std::tolower(u));
    if (fold == 'k' && ch == '-') ch = '_';
  }
  return s;
}

// A config dataclass given as an object (vllm/config/utils.py config: extra="forbid"): a key
// that is not one of its fields is refused (FieldReader's unknown-key check, with its "did you
// mean"); a field with a row "<spec.key>.<field>" is read with it. True when it is empty and
// vLLM's default is the dataclass's own ("{} (...)").
std::optional<bool> config_object(Context& c, const std::string& p, const json& v,
                                  const ArgSpec& spec) {
  const std::size_t before = c.diags.size();
  FieldReader r(v, p, c.diags, spec.object_keys);
  r.report_unknown_keys();
  Context sub = c;
  sub.args_pointer = p;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const ArgSpec* row = c.pack.arg(spec.key + "." + it.key());
    if (!row) continue;
    ArgSpec field = *row;
    field.key = it.key();
    if (it->is_null() && !field.nullable) {
      c.error(json_pointer_append(p, it.key()),
              "null is not accepted: " + it.key() + " is not Optional in " + c.vllm() + " (" +
                  spec.constraint + "." + it.key() + ": " + field.constraint + ")");
      continue;
    }
    spec_is_default(sub, v, field);
  }
  for (std::size_t i = before; i < c.diags.size(); ++i) {
    if (c.diags[i].severity == Severity::kError) return std::nullopt;
  }
  return v.empty() && spec.default_text.rfind("{}", 0) == 0;
}

// A string checked against the spec's choices (after its case fold); true when accepted.
bool choice_ok(Context& c, const std::string& pointer, const json& v, const ArgSpec& spec) {
  if (spec.choices.empty()) return true;
  if (contains(spec.choices, folded(v.get<std::string>(), spec.fold))) return true;
  c.error(pointer, show(v) + " is not accepted by " + c.vllm() + " (" + spec.constraint +
                       "; accepted: " + join(spec.choices, true) + ")");
  return false;
}

// A config object given as a JSON string (ArgSpec::json_string): parsed, then read as the
// object; the errors inside it are reported at the string's pointer.
std::optional<bool> config_object_string(Context& c, const std::string& p, const json& v,
                                         const ArgSpec& spec) {
  const json parsed = json::parse(v.get<std::string>(), nullptr, false);
  const std::string where = " [" + c.vllm() + " " + spec.source + "]";
  if (parsed.is_discarded()) {
    c.error(p, show(v) + ": not valid JSON (json.loads raises)" + where);
    return std::nullopt;
  }
  if (!parsed.is_object()) {
    c.error(p, show(v) + ": the JSON string holds " + describe_type(parsed) + ", not an object (" +
                   spec.constraint + "(**value) needs a mapping)" + where);
    return std::nullopt;
  }
  const std::size_t before = c.diags.size();
  const auto out = config_object(c, p, parsed, spec);
  for (std::size_t i = before; i < c.diags.size(); ++i) {
    auto& d = c.diags[i];
    if (d.pointer == p) continue;
    d.message = "in the JSON string, " + d.pointer.substr(p.size() + 1) + ": " + d.message;
    d.pointer = p;
  }
  return out;
}

// An int Literal: an exact JSON integer among the choices.
std::optional<bool> int_literal(Context& c, const std::string& p, const json& v,
                                const ArgSpec& spec) {
  if (v.is_number_integer() && !v.is_number_unsigned() &&
      contains(spec.choices, std::to_string(v.get<std::int64_t>()))) {
    return false;
  }
  if (v.is_number_unsigned() && contains(spec.choices, std::to_string(v.get<std::uint64_t>()))) {
    return false;
  }
  c.error(p, show(v) + " is not accepted by " + c.vllm() + " (" + spec.constraint +
                 "; accepted: " + join(spec.choices) +
                 " as JSON integers: pydantic matches an int Literal exactly, so \"3\", 3.0 "
                 "and true are refused)");
  return std::nullopt;
}

}  // namespace

std::optional<bool> read_typed(Context& c, const json& args, const ArgSpec& spec) {
  const json& v = args.at(spec.key);
  const std::string p = c.ptr(spec.key);
  if (v.is_null()) return true;
  const std::string& t = spec.type;
  bool ok = false;
  if (t == "string") {
    ok = v.is_string() && choice_ok(c, p, v, spec);
    if (!v.is_string()) c.error(p, type_mismatch(v, "a string [" + spec.constraint + "]"));
    if (!ok) return std::nullopt;
    return !spec.neutral_text.empty() &&
           folded(v.get<std::string>(), spec.fold) == folded(spec.neutral_text, spec.fold);
  }
  if (t == "list[str]") {
    ok = string_list(v);
    if (ok && !spec.choices.empty()) {
      for (std::size_t i = 0; i < v.size() && ok; ++i) {
        ok = choice_ok(c, json_pointer_append(p, i), v[i], spec);
      }
      if (!ok) return std::nullopt;
    }
    if (ok) return v.empty() && spec.default_text == "[]";
  } else if (t == "list[int]" || t == "list[int|str]") {
    if (v.is_array() && !int_list(c, p, v, spec, t == "list[int|str]")) return std::nullopt;
    ok = v.is_array();
  } else if (t == "str|list[str]") {
    ok = v.is_string() || string_list(v);
  } else if (t == "str|bool") {
    ok = v.is_string() || v.is_boolean();
  } else if (t == "literal[int]") {
    return int_literal(c, p, v, spec);
  } else if (t == "object" && spec.json_string && v.is_string()) {
    return config_object_string(c, p, v, spec);
  } else if (t == "object" && !spec.object_keys.empty() && v.is_object()) {
    return config_object(c, p, v, spec);
  } else if (t == "object" || t == "dict[str,str]" || t == "str|dict[str,str]") {
    ok = v.is_object() || (t == "str|dict[str,str]" && v.is_string());
    for (auto it = v.begin(); ok && v.is_object() && it != v.end(); ++it) {
      if (t != "object" && !it->is_string()) {
        c.error(json_pointer_append(p, it.key()),
                type_mismatch(*it, "a string [" + c.vllm() + ": " + spec.constraint + "]"));
        return std::nullopt;
      }
    }
    if (ok) return v.is_object() && v.empty() && spec.default_text == "{}";
  } else {
    return false;  // numbers and bools are read by read_args.cpp
  }
  if (!ok) {
    c.error(p, type_mismatch(v, std::string("a value of type ") + spec.constraint + " [" +
                                    c.vllm() + " " + spec.source + "]"));
    return std::nullopt;
  }
  return false;
}

}  // namespace detail
}  // namespace blis::rules
