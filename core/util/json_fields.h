#pragma once
// Typed, pointer-aware reading of one JSON object: the one field reader of the code base.
// Every problem becomes a Diagnostic that names the JSON pointer, the value and what was
// expected; unknown keys are errors. Used by the catalog schemas (core/catalog/schema, through
// ObjectReader), the Hugging Face config importer (core/catalog/hf_import.cpp), the rules packs
// (engine.args), the scenario decoder (everything else) and the conformance input, base and
// ext format (conform/conform_fields.h).

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/diagnostic.h"
#include "util/did_you_mean.h"  // closest(): the "did you mean" of keys and values

namespace blis {

// The upper bound of an integer field that must fit a C int32 (most of vLLM's engine args, and
// the scenario's counts): FieldReader::integer's usual `max`.
inline constexpr std::int64_t kInt32Max = 2147483647;

// A JSON value as it appears in messages: compact, at most ~60 characters.
std::string show(const nlohmann::json& v);

// "a string", "an integer", "a number", "an object", ... for type errors.
std::string describe_type(const nlohmann::json& v);

// The message of a value of the wrong type: `"x" is a string, expected <expected>` (null: `null
// is not accepted, expected <expected>`).
std::string type_mismatch(const nlohmann::json& v, const std::string& expected);

// "a, b, c" (strings quoted when `quote`).
std::string join(const std::vector<std::string>& items, bool quote = false);

// vLLM's human_readable_int (engine/arg_utils.py): "2k" = 2000, "2K" = 2048, also m/M, g/G,
// t/T; decimals allowed with a suffix when the result is whole ("1.5k" = 1500).
std::optional<std::int64_t> parse_human_readable_int(const std::string& text);

// pydantic's lax bool (pydantic-core input_python.rs lax_bool, shared.rs str_as_bool and
// int_as_bool), what vLLM's config classes apply to a value: true/false; the integers 0 and 1
// (also 0.0 and 1.0); the strings "0", "f", "n", "no", "off", "false" and "1", "t", "y",
// "on", "yes", "true", letters in any case, no surrounding spaces. Anything else: nullopt.
std::optional<bool> pydantic_bool(const nlohmann::json& v);

// pydantic's lax int from a string (pydantic-core input/shared.rs str_as_int, pydantic 2.12):
// a JSON integer; else the text cleaned: Unicode whitespace trimmed (Rust's str::trim), one
// leading '+' or '-', leading zeros ("007"), a non-empty all-zero fraction ("128.0"; "128." and
// "1e3" are refused), single inner underscores ("1_000", "1_000.0"). Else nullopt.
std::optional<std::int64_t> pydantic_str_int(const std::string& text);

// pydantic's lax float from a string (str_as_float: Rust's f64 parse of the trimmed text, else
// of the untrimmed text without its single inner underscores): "0.5", " 1e-3 ", ".5", "+2",
// "5.", "inf", "nan", "1_0.5"; " 1_0.5" is refused.
std::optional<double> pydantic_str_float(const std::string& text);

// An array of integers in [min, max] at `pointer` (FieldReader::integer_list reads a key's
// value with it; a reader of nested arrays calls it directly). `expected` describes one
// element; an element's error names its index. nullopt, with the error reported, when `v` is
// not an array or at the first bad element. A non-empty `lax_rule` (who reads ints in
// pydantic's lax mode) reads numeric strings and integral floats too, with a warning each.
std::optional<std::vector<std::int64_t>> integer_array(
    const nlohmann::json& v, const std::string& pointer, std::int64_t min, std::int64_t max,
    const std::string& expected, Diagnostics& diags, const std::string& lax_rule = "");

// How a reader treats a key whose value is null.
enum class NullKey {
  kAbsent,  // null is "not given" (engine.args, the scenario: vLLM's `None`)
  kValue,   // null is a value of the wrong type (the catalog: every field is given or left out)
};

class FieldReader {
 public:
  // `value` must be an object; otherwise one error is reported and every getter returns
  // nothing. `allowed` lists the keys this object accepts; a reader given an empty list
  // accepts exactly the keys its getters asked for.
  FieldReader(const nlohmann::json& value, std::string pointer, Diagnostics& diags,
              std::vector<std::string> allowed, const char* what = "an object",
              NullKey nulls = NullKey::kAbsent);

  // pydantic's lax mode for numbers (what vLLM's config classes, pydantic dataclasses, apply):
  // integer() then also takes true/false (1/0) and numeric strings ("128", "128.0", "1_000"),
  // number() true/false and numeric strings; each such conversion, and each integral float
  // read as an integer, is a warning naming the value it was read as. `rule` names the rule.
  // Without it (the scenario's own schema, the catalog) numbers are strictly typed.
  void lax_numbers(std::string rule) { lax_rule_ = std::move(rule); }

  bool valid() const { return object_ != nullptr; }
  const std::string& pointer() const { return pointer_; }
  std::string pointer(const std::string& key) const;
  Diagnostics& diagnostics() { return diags_; }

  // Present (and, with NullKey::kAbsent, not null).
  bool has(const std::string& key) const;
  // The raw value (nullptr when absent, or null with NullKey::kAbsent). Marks the key read.
  const nlohmann::json* raw(const std::string& key) const;

  std::optional<bool> boolean(const std::string& key);
  // A bool as pydantic's lax mode reads it (pydantic_bool); `rule` names the rule in messages.
  std::optional<bool> lax_boolean(const std::string& key, const std::string& rule);
  // Integers in [min, max]. `expected` describes the range for messages, e.g. "an integer
  // >= 1". Integral floats (2.0, 1e3) are accepted; with `human_readable`, so are vLLM's
  // human-readable strings ("8k", "32K").
  std::optional<std::int64_t> integer(const std::string& key, std::int64_t min, std::int64_t max,
                                      const std::string& expected, bool human_readable = false);
  // An array of integers, each read as integer() reads one, lax with lax_numbers() (`expected`
  // describes one element, e.g. "an integer in [0, 9]"); an element's error names its index.
  // nullopt when absent, not an array, or at the first bad element.
  std::optional<std::vector<std::int64_t>> integer_list(const std::string& key, std::int64_t min,
                                                        std::int64_t max,
                                                        const std::string& expected);
  // Finite numbers; `min_exclusive`: value must be > min, else >= min.
  std::optional<double> number(const std::string& key, double min, bool min_exclusive, double max,
                               const std::string& expected);
  std::optional<std::string> string(const std::string& key,
                                    const std::string& expected = "a string");
  // A string from `choices`; `refusal` prefixes the message, e.g. "is not accepted by vLLM 0.32.0".
  std::optional<std::string> choice(
      const std::string& key, const std::vector<std::string>& choices,
      const std::string& refusal = "is not one of the accepted values");

  // The value when it is an object (an array), else a type error; nullptr when absent or wrong.
  const nlohmann::json* object(const std::string& key, const std::string& expected = "an object");
  const nlohmann::json* array(const std::string& key, const std::string& expected = "an array");

  void error(const std::string& key, const std::string& message);
  void warning(const std::string& key, const std::string& message);
  void missing(const std::string& key, const std::string& expected);

  // Reports every key that is not in `allowed` (or, with no list, not asked for), with a
  // "did you mean" hint. Call once, after reading.
  void report_unknown_keys();

 private:
  const nlohmann::json* object_ = nullptr;
  std::string pointer_;
  Diagnostics& diags_;
  std::vector<std::string> allowed_;
  NullKey nulls_ = NullKey::kAbsent;
  std::string lax_rule_;                   // non-empty: lax_numbers()
  mutable std::vector<std::string> read_;  // keys asked for, in order
};

}  // namespace blis
