#include "conform/conform_fields.h"

namespace blis::vllm::conform {

using json = nlohmann::json;

FieldReader reader(const json& v, std::string ptr, Diagnostics& d, std::vector<std::string> keys,
                   const char* what) {
  return FieldReader(v, std::move(ptr), d, std::move(keys), what, NullKey::kValue);
}

std::string int_range(std::int64_t lo, std::int64_t hi) {
  return "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
}

bool given(FieldReader& r, const char* key, bool required, const std::string& expected) {
  if (r.has(key)) return true;
  if (required) r.missing(key, expected);
  return false;
}

bool given_null(FieldReader& r, const char* key) {
  const json* v = r.raw(key);
  return v != nullptr && v->is_null();
}

bool take_int64(FieldReader& r, const char* key, bool required, std::int64_t lo, std::int64_t hi,
                std::int64_t& out) {
  const std::string expected = int_range(lo, hi);
  if (!given(r, key, required, expected)) return false;
  const auto v = r.integer(key, lo, hi, expected);
  if (v) out = *v;
  return v.has_value();
}

bool take_int(FieldReader& r, const char* key, bool required, std::int64_t lo, std::int64_t hi,
              std::int32_t& out) {
  std::int64_t v = 0;
  if (!take_int64(r, key, required, lo, hi, v)) return false;
  out = static_cast<std::int32_t>(v);
  return true;
}

bool take_number(FieldReader& r, const char* key, bool required, double lo, bool lo_exclusive,
                 double hi, const std::string& expected, double& out) {
  if (!given(r, key, required, expected)) return false;
  const auto v = r.number(key, lo, lo_exclusive, hi, expected);
  if (v) out = *v;
  return v.has_value();
}

bool take_bool(FieldReader& r, const char* key, bool required, bool& out) {
  if (!given(r, key, required, "true or false")) return false;
  const auto v = r.boolean(key);
  if (v) out = *v;
  return v.has_value();
}

bool take_string(FieldReader& r, const char* key, bool required, std::string& out) {
  if (!given(r, key, required, "a string")) return false;
  const auto v = r.string(key);
  if (v) out = *v;
  return v.has_value();
}

bool take_choice(FieldReader& r, const char* key, bool required,
                 const std::vector<std::string>& choices, std::string& out) {
  if (!given(r, key, required, "one of: " + join(choices, true))) return false;
  const auto v = r.choice(key, choices);
  if (v) out = *v;
  return v.has_value();
}

bool take_int_list(FieldReader& r, const char* key, std::int64_t lo, std::int64_t hi,
                   std::vector<std::int32_t>& out) {
  const auto v = r.integer_list(key, lo, hi, int_range(lo, hi));
  if (!v) return false;
  for (const std::int64_t x : *v) out.push_back(static_cast<std::int32_t>(x));
  return true;
}

}  // namespace blis::vllm::conform
