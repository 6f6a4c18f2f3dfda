#include "util/json_fields.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "util/text.h"

namespace blis {

using nlohmann::json;

std::string show(const json& v) {
  // Strings through the one escaping helper; other values as ASCII JSON (control characters
  // escaped, so the cut below can split no character).
  if (v.is_string()) return quote_excerpt(v.get_ref<const std::string&>());
  std::string s = v.dump(-1, ' ', true, json::error_handler_t::replace);
  constexpr std::size_t kMax = 60;
  if (s.size() > kMax) {
    s.resize(kMax);
    s += "...";
  }
  return s;
}

std::string describe_type(const json& v) {
  switch (v.type()) {
    case json::value_t::null:
      return "null";
    case json::value_t::boolean:
      return "a boolean";
    case json::value_t::string:
      return "a string";
    case json::value_t::number_integer:
    case json::value_t::number_unsigned:
      return "an integer";
    case json::value_t::number_float:
      return "a number";
    case json::value_t::array:
      return "an array";
    case json::value_t::object:
      return "an object";
    default:
      return "an unsupported value";
  }
}

std::string type_mismatch(const json& v, const std::string& expected) {
  if (v.is_null()) return "null is not accepted, expected " + expected;
  return show(v) + " is " + describe_type(v) + ", expected " + expected;
}

std::string join(const std::vector<std::string>& items, bool quote) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    if (quote) out += '"';
    out += items[i];
    if (quote) out += '"';
  }
  return out;
}

std::optional<std::int64_t> parse_human_readable_int(const std::string& raw) {
  // Trim as vLLM does (value.strip()).
  const auto b = raw.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return std::nullopt;
  const auto e = raw.find_last_not_of(" \t\r\n");
  const std::string s = raw.substr(b, e - b + 1);
  if (s.size() > 24) return std::nullopt;

  const char last = s.back();
  std::int64_t mult = 0;
  bool decimal_suffix = false;
  switch (last) {
    case 'k':
      mult = 1000LL, decimal_suffix = true;
      break;
    case 'm':
      mult = 1000000LL, decimal_suffix = true;
      break;
    case 'g':
      mult = 1000000000LL, decimal_suffix = true;
      break;
    case 't':
      mult = 1000000000000LL, decimal_suffix = true;
      break;
    case 'K':
      mult = 1LL << 10;
      break;
    case 'M':
      mult = 1LL << 20;
      break;
    case 'G':
      mult = 1LL << 30;
      break;
    case 'T':
      mult = 1LL << 40;
      break;
    default:
      break;
  }
  const std::string num = mult ? s.substr(0, s.size() - 1) : s;
  if (num.empty()) return std::nullopt;

  // Plain: digits with an optional leading '-' (vLLM: int(value)).
  if (!mult) {
    std::size_t i = num[0] == '-' ? 1 : 0;
    if (i == num.size()) return std::nullopt;
    std::int64_t whole = 0;
    for (; i < num.size(); ++i) {
      const char c = num[i];
      if (c < '0' || c > '9') return std::nullopt;
      if (whole > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10) return std::nullopt;
      whole = whole * 10 + (c - '0');
    }
    return num[0] == '-' ? -whole : whole;
  }
  // vllm utils/argparse_utils.py human_readable_int: (\d+(?:\.\d+)?) before the suffix.
  const std::size_t dot = num.find('.');
  const auto digits = [](const std::string& t) {
    return !t.empty() && t.find_first_not_of("0123456789") == std::string::npos;
  };
  if (!digits(num.substr(0, dot))) return std::nullopt;
  if (dot != std::string::npos) {
    // Binary suffixes take no decimals ("Decimals are not allowed with binary suffixes").
    if (!decimal_suffix || !digits(num.substr(dot + 1))) return std::nullopt;
  }
  if (!decimal_suffix) {
    const std::int64_t whole = parse_human_readable_int(num).value_or(-1);
    if (whole < 0 || whole > std::numeric_limits<std::int64_t>::max() / mult) return std::nullopt;
    return whole * mult;
  }
  // Decimal suffixes: int(float(number) * mult), in doubles as Python computes it (exact
  // integers in the text would otherwise overflow: "1.99999999999g" is 1999999999, not a
  // wrapped product). strtod is correctly rounded like Python's float().
  const double value = std::strtod(num.c_str(), nullptr) * static_cast<double>(mult);
  if (!(value < 9223372036854775808.0)) return std::nullopt;
  return static_cast<std::int64_t>(value);  // truncates toward zero, as int() does
}

FieldReader::FieldReader(const json& value, std::string pointer, Diagnostics& diags,
                         std::vector<std::string> allowed, const char* what, NullKey nulls)
    : pointer_(std::move(pointer)), diags_(diags), allowed_(std::move(allowed)), nulls_(nulls) {
  if (value.is_object()) {
    object_ = &value;
    return;
  }
  diags_.push_back({pointer_, type_mismatch(value, what)});
}

std::optional<bool> pydantic_bool(const json& v) {
  if (v.is_boolean()) return v.get<bool>();
  if (v.is_number_integer() || v.is_number_unsigned() || v.is_number_float()) {
    const double d = v.get<double>();
    if (d == 0.0) return false;
    if (d == 1.0) return true;
    return std::nullopt;
  }
  if (!v.is_string()) return std::nullopt;
  std::string t = v.get<std::string>();
  if (t.size() > 5) return std::nullopt;
  for (auto& ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  for (const char* f : {"0", "f", "n", "no", "off", "false"}) {
    if (t == f) return false;
  }
  for (const char* y : {"1", "t", "y", "on", "yes", "true"}) {
    if (t == y) return true;
  }
  return std::nullopt;
}

std::string FieldReader::pointer(const std::string& key) const {
  return json_pointer_append(pointer_, key);
}

bool FieldReader::has(const std::string& key) const {
  return raw(key) != nullptr;
}

const json* FieldReader::raw(const std::string& key) const {
  if (std::find(read_.begin(), read_.end(), key) == read_.end()) read_.push_back(key);
  if (!object_) return nullptr;
  const auto it = object_->find(key);
  if (it == object_->end() || (it->is_null() && nulls_ == NullKey::kAbsent)) return nullptr;
  return &*it;
}

void FieldReader::error(const std::string& key, const std::string& message) {
  diags_.push_back({pointer(key), message, Severity::kError});
}

void FieldReader::warning(const std::string& key, const std::string& message) {
  diags_.push_back({pointer(key), message, Severity::kWarning});
}

void FieldReader::missing(const std::string& key, const std::string& expected) {
  error(key, "missing, expected " + expected);
}

std::optional<bool> FieldReader::boolean(const std::string& key) {
  const json* v = raw(key);
  if (!v) return std::nullopt;
  if (v->is_boolean()) return v->get<bool>();
  error(key, type_mismatch(*v, "true or false"));
  return std::nullopt;
}

std::optional<bool> FieldReader::lax_boolean(const std::string& key, const std::string& rule) {
  const json* v = raw(key);
  if (!v) return std::nullopt;
  if (const auto b = pydantic_bool(*v)) {
    if (!v->is_boolean()) {
      warning(key, show(*v) + " read as " + (*b ? "true" : "false") + " (" + rule +
                       " read bools in pydantic's lax mode)");
    }
    return b;
  }
  error(key, show(*v) + " is not a valid boolean, expected true or false (" + rule +
                 ": also 0/1 and the strings \"true\"/\"false\", \"yes\"/\"no\", "
                 "\"on\"/\"off\", \"t\"/\"f\", \"y\"/\"n\", \"1\"/\"0\" in any case)");
  return std::nullopt;
}

namespace {

// One value read as FieldReader::integer reads it; on failure `*problem` says why. `lax`:
// pydantic's lax int (a bool, a whole float, a numeric string); `*converted` says one was
// applied.
std::optional<std::int64_t> read_integer(const json& v, std::int64_t min, std::int64_t max,
                                         const std::string& expected, bool human_readable, bool lax,
                                         bool* converted, std::string* problem) {
  std::optional<std::int64_t> value;
  bool out_of_range = false;
  *converted = false;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      out_of_range = true;
    } else {
      value = static_cast<std::int64_t>(u);
    }
  } else if (v.is_number_integer()) {
    value = v.get<std::int64_t>();
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (std::floor(d) != d) {
      *problem = show(v) + " is not a whole number, expected " + expected;
      return std::nullopt;
    }
    if (d < -9.2e18 || d > 9.2e18) {
      out_of_range = true;
    } else {
      value = static_cast<std::int64_t>(d);
      *converted = lax;
    }
  } else if (v.is_boolean() && lax) {
    // pydantic-core input_python.rs lax int: a bool is its int (True -> 1).
    value = v.get<bool>() ? 1 : 0;
    *converted = true;
  } else if (v.is_string() && (human_readable || lax)) {
    const std::string& text = v.get_ref<const std::string&>();
    if (lax) {
      value = pydantic_str_int(text);
      *converted = value.has_value();
    }
    if (!value && human_readable) value = parse_human_readable_int(text);
    if (!value) {
      const char* forms = human_readable
                              ? " is not an integer (vLLM's human-readable forms: 8k = 8000, "
                                "8K = 8192), expected "
                              : " is not a valid integer, expected ";
      *problem = show(v) + forms + expected;
      return std::nullopt;
    }
  } else {
    *problem = type_mismatch(v, expected);
    return std::nullopt;
  }
  if (out_of_range || *value < min || *value > max) {
    *problem = show(v) + " is out of range, expected " + expected;
    return std::nullopt;
  }
  return value;
}

}  // namespace

std::optional<std::int64_t> FieldReader::integer(const std::string& key, std::int64_t min,
                                                 std::int64_t max, const std::string& expected,
                                                 bool human_readable) {
  const json* v = raw(key);
  if (!v) return std::nullopt;
  std::string problem;
  bool converted = false;
  const auto value = read_integer(*v, min, max, expected, human_readable, !lax_rule_.empty(),
                                  &converted, &problem);
  if (!value) {
    error(key, problem);
  } else if (converted) {
    warning(key, show(*v) + " read as the integer " + std::to_string(*value) + " (" + lax_rule_ +
                     " read ints in pydantic's lax mode)");
  }
  return value;
}

std::optional<std::vector<std::int64_t>> integer_array(const json& v, const std::string& pointer,
                                                       std::int64_t min, std::int64_t max,
                                                       const std::string& expected,
                                                       Diagnostics& diags,
                                                       const std::string& lax_rule) {
  if (!v.is_array()) {
    diags.push_back(
        {pointer, type_mismatch(v, "an array (each element " + expected + ")"), Severity::kError});
    return std::nullopt;
  }
  std::vector<std::int64_t> out;
  out.reserve(v.size());
  std::string problem;
  bool converted = false;
  const bool lax = !lax_rule.empty();
  for (std::size_t i = 0; i < v.size(); ++i) {
    converted = false;
    const auto x = read_integer(v[i], min, max, expected, false, lax, &converted, &problem);
    const std::string at = json_pointer_append(pointer, i);
    if (!x) {
      diags.push_back({at, problem, Severity::kError});
      return std::nullopt;
    }
    // pydantic's list[int] reads each element as a lax int (lax_numbers).
    if (converted) {
      diags.push_back({at,
                       show(v[i]) + " read as the integer " + std::to_string(*x) + " (" + lax_rule +
                           " read ints in pydantic's lax mode)",
                       Severity::kWarning});
    }
    out.push_back(*x);
  }
  return out;
}

std::optional<std::vector<std::int64_t>> FieldReader::integer_list(const std::string& key,
                                                                   std::int64_t min,
                                                                   std::int64_t max,
                                                                   const std::string& expected) {
  const json* v = raw(key);
  if (!v) return std::nullopt;
  return integer_array(*v, pointer(key), min, max, expected, diags_, lax_rule_);
}

const json* FieldReader::object(const std::string& key, const std::string& expected) {
  const json* v = raw(key);
  if (!v || v->is_object()) return v;
  error(key, type_mismatch(*v, expected));
  return nullptr;
}

const json* FieldReader::array(const std::string& key, const std::string& expected) {
  const json* v = raw(key);
  if (!v || v->is_array()) return v;
  error(key, type_mismatch(*v, expected));
  return nullptr;
}

std::optional<double> FieldReader::number(const std::string& key, double min, bool min_exclusive,
                                          double max, const std::string& expected) {
  const json* v = raw(key);
  if (!v) return std::nullopt;
  const bool lax = !lax_rule_.empty();
  double d = 0;
  bool converted = false;
  if (v->is_number()) {
    d = v->get<double>();
  } else if (lax && v->is_boolean()) {
    // pydantic-core lax float: a bool is 0.0 or 1.0.
    d = v->get<bool>() ? 1.0 : 0.0;
    converted = true;
  } else if (lax && v->is_string()) {
    const auto f = pydantic_str_float(v->get_ref<const std::string&>());
    if (!f) {
      error(key, show(*v) + " is not a valid number, expected " + expected);
      return std::nullopt;
    }
    d = *f;
    converted = true;
  } else {
    error(key, type_mismatch(*v, expected));
    return std::nullopt;
  }
  const bool below = min_exclusive ? !(d > min) : !(d >= min);
  if (!std::isfinite(d) || below || d > max) {
    error(key, show(*v) + " is out of range, expected " + expected);
    return std::nullopt;
  }
  if (converted) {
    warning(key, show(*v) + " read as the number " + show(json(d)) + " (" + lax_rule_ +
                     " read floats in pydantic's lax mode)");
  }
  return d;
}

std::optional<std::string> FieldReader::string(const std::string& key,
                                               const std::string& expected) {
  const json* v = raw(key);
  if (!v) return std::nullopt;
  if (v->is_string()) return v->get<std::string>();
  error(key, type_mismatch(*v, expected));
  return std::nullopt;
}

std::optional<std::string> FieldReader::choice(const std::string& key,
                                               const std::vector<std::string>& choices,
                                               const std::string& refusal) {
  const json* v = raw(key);
  if (!v) return std::nullopt;
  if (!v->is_string()) {
    error(key, type_mismatch(*v, "one of: " + join(choices, true)));
    return std::nullopt;
  }
  const std::string s = v->get<std::string>();
  if (std::find(choices.begin(), choices.end(), s) != choices.end()) return s;
  std::string msg = show(*v) + " " + refusal + " (accepted: " + join(choices, true) + ")";
  const auto near = closest(s, choices, 1);
  if (!near.empty()) msg += "; did you mean \"" + near.front() + "\"?";
  error(key, msg);
  return std::nullopt;
}

void FieldReader::report_unknown_keys() {
  if (!object_) return;
  // A reader given no key list accepts exactly the keys it read.
  const std::vector<std::string>& accepted = allowed_.empty() ? read_ : allowed_;
  for (auto it = object_->begin(); it != object_->end(); ++it) {
    if (std::find(accepted.begin(), accepted.end(), it.key()) != accepted.end()) continue;
    std::string msg = "unknown key";
    const auto near = closest(it.key(), accepted, 1);
    if (!near.empty()) msg += "; did you mean \"" + near.front() + "\"?";
    msg += " (accepted keys: " + join(accepted) + ")";
    error(it.key(), msg);
  }
}

}  // namespace blis
