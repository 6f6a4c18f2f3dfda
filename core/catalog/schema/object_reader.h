#pragma once
// ObjectReader: the catalog schemas' view of the one field reader (util/json_fields.h): every
// problem is a Diagnostic located by a JSON pointer (type, range, missing and unknown keys),
// so a bad entry reports all of its errors at once. What it adds is the catalog's calling
// convention (out-parameters, a `required` flag, ranges written from the bounds) and its
// strictness (null is a value of the wrong type). Internal to the catalog.

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/diagnostic.h"
#include "util/json_fields.h"

namespace blis::catalog::schema {

class ObjectReader {
 public:
  // `j` must be an object; otherwise one error is recorded at `pointer` and every getter
  // returns false.
  ObjectReader(const nlohmann::json& j, std::string pointer, Diagnostics* out);

  bool ok() const { return r_.valid(); }
  const std::string& pointer() const { return r_.pointer(); }
  std::string child(const std::string& key) const;

  // Each getter marks the key as known. A missing required key is an error; a missing
  // optional key leaves *out untouched and returns false.
  bool text(const std::string& key, std::string* out, bool required);
  bool one_of(const std::string& key, std::string* out, bool required,
              const std::vector<std::string>& allowed);
  bool integer(const std::string& key, std::int64_t* out, bool required, std::int64_t min,
               std::int64_t max = std::numeric_limits<std::int64_t>::max());
  bool integer32(const std::string& key, std::int32_t* out, bool required, std::int32_t min,
                 std::int32_t max = std::numeric_limits<std::int32_t>::max());
  // Finite number in [min, max] (or (min, max] when min_exclusive).
  bool number(const std::string& key, double* out, bool required, double min, double max,
              bool min_exclusive = false);
  bool boolean(const std::string& key, bool* out, bool required);
  // A nested object / array (type-checked); nullptr when absent or of the wrong type.
  const nlohmann::json* object(const std::string& key, bool required);
  const nlohmann::json* array(const std::string& key, bool required);
  // An object of string values (per-field sources).
  void string_map(const std::string& key, std::map<std::string, std::string>* out);

  // Records an error for a key (after a cross-field check).
  void error(const std::string& key, const std::string& message);
  // Reports keys that no getter asked for.
  void finish();

 private:
  // Whether `key` is given; a missing required key is reported as missing `expected`.
  bool given(const std::string& key, bool required, const std::string& expected);
  bool read_integer(const std::string& key, std::int64_t* out, bool required, std::int64_t min,
                    std::int64_t max, const std::string& expected);

  FieldReader r_;
};

// A short rendering of a JSON value for messages ("-3", "\"abc\"", "an object").
std::string describe(const nlohmann::json& v);

}  // namespace blis::catalog::schema
