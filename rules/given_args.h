#pragma once
// Reading engine.args as the cross-field checks see it (check_unmodelled.cpp,
// check_combinations.cpp): a key counts as given when it is present, not null and its own
// typed reading was not refused, so a refused value is not checked again.

#include <optional>
#include <string>

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules::detail {

// True when an error was reported at `pointer` or below it.
inline bool refused_at(const Context& c, const std::string& pointer) {
  for (const auto& d : c.diags) {
    if (d.severity != Severity::kError) continue;
    if (d.pointer == pointer || d.pointer.rfind(pointer + "/", 0) == 0) return true;
  }
  return false;
}

// The value of `key` when given (not null) and accepted by its typed reading.
inline const nlohmann::json* given(const Context& c, const std::string& key) {
  if (!c.raw || !c.raw->is_object()) return nullptr;
  const auto it = c.raw->find(key);
  if (it == c.raw->end() || it->is_null() || refused_at(c, c.ptr(key))) return nullptr;
  return &*it;
}

// Field `field` of the accepted object `key` when given (not null).
inline const nlohmann::json* given_field(const Context& c, const std::string& key,
                                         const std::string& field) {
  const nlohmann::json* obj = given(c, key);
  if (!obj || !obj->is_object()) return nullptr;
  const auto it = obj->find(field);
  return it == obj->end() || it->is_null() ? nullptr : &*it;
}

// An accepted integer as pydantic's lax mode read it (read_args.cpp warned about the form).
inline std::optional<std::int64_t> whole(const nlohmann::json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return v.get<std::int64_t>();
  if (v.is_number_float()) return static_cast<std::int64_t>(v.get<double>());
  if (v.is_string()) return pydantic_str_int(v.get<std::string>());
  return std::nullopt;
}

inline std::optional<std::int64_t> int_arg(const Context& c, const std::string& key) {
  const nlohmann::json* v = given(c, key);
  return v ? whole(*v) : std::nullopt;
}

// An accepted bool as pydantic's lax mode read it.
inline bool is_true(const nlohmann::json* v) {
  return v && pydantic_bool(*v) == std::optional<bool>(true);
}

inline bool flag(const Context& c, const std::string& key) {
  return is_true(given(c, key));
}

inline std::string text(const Context& c, const std::string& key, const std::string& def) {
  const nlohmann::json* v = given(c, key);
  return v && v->is_string() ? v->get<std::string>() : def;
}

// " [vLLM 0.32.0 <where>]"
inline std::string cite(const Context& c, const std::string& where) {
  return " [" + c.vllm() + " " + where + "]";
}

}  // namespace blis::rules::detail
