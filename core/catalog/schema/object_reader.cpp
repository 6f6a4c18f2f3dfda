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

bool is_integral(const nlohmann::json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15;
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
    : j_(j), pointer_(std::move(pointer)), out_(out) {
  if (!j_.is_object()) {
    ok_ = false;
    out_->push_back({pointer_, "expected an object, got " + describe(j_)});
  }
}

std::string ObjectReader::child(const std::string& key) const {
  return json_pointer_append(pointer_, key);
}

void ObjectReader::error(const std::string& key, const std::string& message) {
  out_->push_back({child(key), message});
}

const nlohmann::json* ObjectReader::find(const std::string& key, bool required) {
  known_.insert(key);
  if (!ok_) return nullptr;
  const auto it = j_.find(key);
  if (it == j_.end()) {
    if (required) error(key, "required key is missing");
    return nullptr;
  }
  return &*it;
}

bool ObjectReader::text(const std::string& key, std::string* out, bool required) {
  const nlohmann::json* v = find(key, required);
  if (v == nullptr) return false;
  if (!v->is_string() || v->get<std::string>().empty()) {
    error(key, "expected a non-empty string, got " + describe(*v));
    return false;
  }
  *out = v->get<std::string>();
  return true;
}

bool ObjectReader::one_of(const std::string& key, std::string* out, bool required,
                          const std::vector<std::string>& allowed) {
  std::string value;
  if (!text(key, &value, required)) return false;
  for (const auto& a : allowed) {
    if (a == value) {
      *out = value;
      return true;
    }
  }
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
  error(key, "expected one of " + list + ", got \"" + value + "\"");
  return false;
}

bool ObjectReader::integer(const std::string& key, std::int64_t* out, bool required,
                           std::int64_t min, std::int64_t max) {
  const nlohmann::json* v = find(key, required);
  if (v == nullptr) return false;
  std::string range = ">= " + std::to_string(min);
  if (max != std::numeric_limits<std::int64_t>::max()) {
    range = "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  }
  if (!is_integral(*v)) {
    error(key, "expected an integer " + range + ", got " + describe(*v));
    return false;
  }
  const std::int64_t value =
      v->is_number_integer() ? v->get<std::int64_t>() : static_cast<std::int64_t>(v->get<double>());
  if (value < min || value > max) {
    error(key, "expected an integer " + range + ", got " + std::to_string(value));
    return false;
  }
  *out = value;
  return true;
}

bool ObjectReader::integer32(const std::string& key, std::int32_t* out, bool required,
                             std::int32_t min, std::int32_t max) {
  // An unbounded int32 reads as ">= min" in messages; the int32 range is checked after.
  const bool unbounded = max == std::numeric_limits<std::int32_t>::max();
  std::int64_t value = 0;
  if (!integer(key, &value, required, min,
               unbounded ? std::numeric_limits<std::int64_t>::max() : max)) {
    return false;
  }
  if (value > std::numeric_limits<std::int32_t>::max()) {
    error(key, "expected an integer >= " + std::to_string(min) + " that fits 32 bits, got " +
                   std::to_string(value));
    return false;
  }
  *out = static_cast<std::int32_t>(value);
  return true;
}

bool ObjectReader::number(const std::string& key, double* out, bool required, double min,
                          double max, bool min_exclusive) {
  const nlohmann::json* v = find(key, required);
  if (v == nullptr) return false;
  std::string range = std::string(min_exclusive ? "(" : "[") + format_number(min) + ", " +
                      (std::isinf(max) ? "inf)" : format_number(max) + "]");
  if (!v->is_number()) {
    error(key, "expected a number in " + range + ", got " + describe(*v));
    return false;
  }
  const double value = v->get<double>();
  const bool below = min_exclusive ? !(value > min) : !(value >= min);
  if (!std::isfinite(value) || below || value > max) {
    error(key, "expected a number in " + range + ", got " + format_number(value));
    return false;
  }
  *out = value;
  return true;
}

bool ObjectReader::boolean(const std::string& key, bool* out, bool required) {
  const nlohmann::json* v = find(key, required);
  if (v == nullptr) return false;
  if (!v->is_boolean()) {
    error(key, "expected true or false, got " + describe(*v));
    return false;
  }
  *out = v->get<bool>();
  return true;
}

const nlohmann::json* ObjectReader::object(const std::string& key, bool required) {
  const nlohmann::json* v = find(key, required);
  if (v == nullptr) return nullptr;
  if (!v->is_object()) {
    error(key, "expected an object, got " + describe(*v));
    return nullptr;
  }
  return v;
}

const nlohmann::json* ObjectReader::array(const std::string& key, bool required) {
  const nlohmann::json* v = find(key, required);
  if (v == nullptr) return nullptr;
  if (!v->is_array()) {
    error(key, "expected an array, got " + describe(*v));
    return nullptr;
  }
  return v;
}

void ObjectReader::string_map(const std::string& key, std::map<std::string, std::string>* out) {
  const nlohmann::json* v = object(key, false);
  if (v == nullptr) return;
  for (auto it = v->begin(); it != v->end(); ++it) {
    if (!it.value().is_string() || it.value().get<std::string>().empty()) {
      out_->push_back(
          {json_pointer_append(child(key), it.key()),
           "expected a non-empty string (the source of this field), got " + describe(it.value())});
      continue;
    }
    (*out)[it.key()] = it.value().get<std::string>();
  }
}

void ObjectReader::finish() {
  if (!ok_) return;
  for (auto it = j_.begin(); it != j_.end(); ++it) {
    if (known_.count(it.key()) != 0) continue;
    std::string list;
    for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
    error(it.key(), "unknown key (expected one of: " + list + ")");
  }
}

}  // namespace blis::catalog::schema
