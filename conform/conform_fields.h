#pragma once
// How every reader of a conformance input (the base format, conform_input.cpp, and the ext
// format's metrics and connector keys) reads its fields: through the one field reader
// (util/json_fields.h), with its messages, JSON pointers and "did you mean" hints. Internal to
// the conformance driver.

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/diagnostic.h"
#include "util/json_fields.h"

namespace blis::vllm::conform {

// A reader of one object of the input. null is a value of the wrong type (FORMAT.md gives
// defaults by leaving a key out), except where a key says null is its default (given_null).
FieldReader reader(const nlohmann::json& v, std::string ptr, Diagnostics& d,
                   std::vector<std::string> keys, const char* what = "an object");

// "an integer in [lo, hi]".
std::string int_range(std::int64_t lo, std::int64_t hi);

// Whether `key` is given; a missing required key is reported as missing `expected`.
bool given(FieldReader& r, const char* key, bool required, const std::string& expected);

// A key whose null means "not given": true when it is given as null.
bool given_null(FieldReader& r, const char* key);

// The take_* helpers write `out` only when the key is given and valid (else it keeps its
// default) and return whether they did.
bool take_int(FieldReader& r, const char* key, bool required, std::int64_t lo, std::int64_t hi,
              std::int32_t& out);
bool take_int64(FieldReader& r, const char* key, bool required, std::int64_t lo, std::int64_t hi,
                std::int64_t& out);
// A finite number in (lo, hi] (`lo_exclusive`) or [lo, hi]; `expected` describes it.
bool take_number(FieldReader& r, const char* key, bool required, double lo, bool lo_exclusive,
                 double hi, const std::string& expected, double& out);
bool take_bool(FieldReader& r, const char* key, bool required, bool& out);
bool take_string(FieldReader& r, const char* key, bool required, std::string& out);
bool take_choice(FieldReader& r, const char* key, bool required,
                 const std::vector<std::string>& choices, std::string& out);
// Appends the elements (each in [lo, hi]) to `out`.
bool take_int_list(FieldReader& r, const char* key, std::int64_t lo, std::int64_t hi,
                   std::vector<std::int32_t>& out);

}  // namespace blis::vllm::conform
