// The engine arguments that are not numbers or bools, read with the type their ArgSpec gives
// (strings, Literal choices, lists, objects): the unmodelled and ignored keys of a pack.

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules::detail {

using nlohmann::json;

namespace {

bool string_list(const json& v) {
  if (!v.is_array()) return false;
  for (const auto& e : v) {
    if (!e.is_string()) return false;
  }
  return true;
}

std::string folded(std::string s, char fold) {
  for (auto& ch : s) {
    const auto u = static_cast<unsigned char>(ch);
    if (fold == 'u') ch = static_cast<char>(std::toupper(u));
    if (fold == 'l') ch = static_cast<char>(std::tolower(u));
  }
  return s;
}

// A string checked against the spec's choices (after its case fold); true when accepted.
bool choice_ok(Context& c, const std::string& pointer, const json& v, const ArgSpec& spec) {
  if (spec.choices.empty()) return true;
  if (contains(spec.choices, folded(v.get<std::string>(), spec.fold))) return true;
  c.error(pointer, show(v) + " is not accepted by " + c.vllm() + " (" + spec.constraint +
                       "; accepted: " + join(spec.choices, true) + ")");
  return false;
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
  } else if (t == "str|list[str]") {
    ok = v.is_string() || string_list(v);
  } else if (t == "str|bool") {
    ok = v.is_string() || v.is_boolean();
  } else if (t == "object" || t == "dict[str,str]") {
    ok = v.is_object();
    for (auto it = v.begin(); ok && it != v.end(); ++it) {
      if (t == "dict[str,str]" && !it->is_string()) {
        c.error(json_pointer_append(p, it.key()),
                type_mismatch(*it, "a string [" + c.vllm() + ": " + spec.constraint + "]"));
        return std::nullopt;
      }
      if (!spec.object_keys.empty() && !contains(spec.object_keys, it.key())) {
        c.error(json_pointer_append(p, it.key()), "unknown key: not a field of " + spec.constraint +
                                                      " in " + c.vllm() +
                                                      " (fields: " + join(spec.object_keys) + ")");
        return std::nullopt;
      }
    }
    if (ok) return v.empty() && spec.default_text == "{}";
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

}  // namespace blis::rules::detail
