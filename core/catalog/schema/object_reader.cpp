#include "catalog/schema/object_reader.h"

#include <cmath>
#include <cstdio>

#include "util/text.h"

namespace blis::catalog::schema {

namespace {

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string integer_range(std::int64_t min, std::int64_t max) {
  if (max == std::numeric_limits<std::int64_t>::max()) return ">= " + std::to_string(min);
  return "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
}

}  // namespace

std::string describe(const nlohmann::json& v) {
  if (v.is_object()) return "an object";
  if (v.is_array()) return "an array";
  if (v.is_null()) return "null";
  // Strings through the one escaping helper (util/text.h); numbers and booleans as JSON.
  if (v.is_string()) return quote_excerpt(v.get_ref<const std::string&>(), 37);
  std::string s = v.dump();
  if (s.size() > 40) s = s.substr(0, 37) + "...";
  return s;
}

ObjectReader::ObjectReader(const nlohmann::json& j, std::string pointer, Diagnostics* out)
    : r_(j, std::move(pointer), *out, {}, "an object", NullKey::kValue) {}

std::string ObjectReader::child(const std::string& key) const {
  return r_.pointer(key);
}

void ObjectReader::error(const std::string& key, const std::string& message) {
  r_.error(key, message);
}

bool ObjectReader::given(const std::string& key, bool required, const std::string& expected) {
  if (r_.raw(key) != nullptr) return true;
  if (required && ok()) r_.missing(key, expected);
  return false;
}

bool ObjectReader::text(const std::string& key, std::string* out, bool required) {
  const std::string expected = "a non-empty string";
  if (!given(key, required, expected)) return false;
  const auto s = r_.string(key, expected);
  if (!s) return false;
  if (s->empty()) {
    r_.error(key, "\"\" is empty, expected " + expected);
    return false;
  }
  *out = *s;
  return true;
}

bool ObjectReader::one_of(const std::string& key, std::string* out, bool required,
                          const std::vector<std::string>& allowed) {
  if (!given(key, required, "one of: " + join(allowed, true))) return false;
  const auto s = r_.choice(key, allowed);
  if (!s) return false;
  *out = *s;
  return true;
}

bool ObjectReader::integer(const std::string& key, std::int64_t* out, bool required,
                           std::int64_t min, std::int64_t max) {
  return read_integer(key, out, required, min, max, "an integer " + integer_range(min, max));
}

bool ObjectReader::integer32(const std::string& key, std::int32_t* out, bool required,
                             std::int32_t min, std::int32_t max) {
  // An unbounded int32 reads as ">= min" in messages; the int32 range still bounds it.
  const bool unbounded = max == std::numeric_limits<std::int32_t>::max();
  std::int64_t value = 0;
  if (!read_integer(key, &value, required, min, max,
                    "an integer " +
                        (unbounded ? ">= " + std::to_string(min) : integer_range(min, max)) +
                        (unbounded ? " that fits 32 bits" : ""))) {
    return false;
  }
  *out = static_cast<std::int32_t>(value);
  return true;
}

bool ObjectReader::read_integer(const std::string& key, std::int64_t* out, bool required,
                                std::int64_t min, std::int64_t max, const std::string& expected) {
  if (!given(key, required, expected)) return false;
  const auto v = r_.integer(key, min, max, expected);
  if (!v) return false;
  *out = *v;
  return true;
}

bool ObjectReader::number(const std::string& key, double* out, bool required, double min,
                          double max, bool min_exclusive) {
  const std::string expected = std::string("a number in ") + (min_exclusive ? "(" : "[") +
                               format_number(min) + ", " +
                               (std::isinf(max) ? "inf)" : format_number(max) + "]");
  if (!given(key, required, expected)) return false;
  const auto v = r_.number(key, min, min_exclusive, max, expected);
  if (!v) return false;
  *out = *v;
  return true;
}

bool ObjectReader::boolean(const std::string& key, bool* out, bool required) {
  if (!given(key, required, "true or false")) return false;
  const auto b = r_.boolean(key);
  if (!b) return false;
  *out = *b;
  return true;
}

const nlohmann::json* ObjectReader::object(const std::string& key, bool required) {
  if (!given(key, required, "an object")) return nullptr;
  return r_.object(key);
}

const nlohmann::json* ObjectReader::array(const std::string& key, bool required) {
  if (!given(key, required, "an array")) return nullptr;
  return r_.array(key);
}

void ObjectReader::string_map(const std::string& key, std::map<std::string, std::string>* out) {
  const nlohmann::json* v = object(key, false);
  if (v == nullptr) return;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it.value().is_string() || it.value().get<std::string>().empty()) {
      r_.diagnostics().push_back(
          {json_pointer_append(child(key), it.key()),
           show(it.value()) + " is " +
               (it.value().is_string() ? std::string("empty") : describe_type(it.value())) +
               ", expected a non-empty string (the source of this field)"});
      continue;
    }
    (*out)[it.key()] = it.value().get<std::string>();
  }
}

void ObjectReader::finish() {
  r_.report_unknown_keys();
}

}  // namespace blis::catalog::schema
