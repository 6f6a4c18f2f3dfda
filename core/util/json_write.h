#pragma once
// Writing JSON documents in the one shape the code base uses for outputs (the resolved
// scenario, the conformance traces): keys in the order written (nlohmann::ordered_json),
// unset values as null. Used by core/scenario/encode.cpp and conform/.

#include <initializer_list>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace blis::json_write {

using ojson = nlohmann::ordered_json;

// An optional value, or null when unset.
template <typename T>
ojson or_null(const std::optional<T>& v) {
  return v ? ojson(*v) : ojson(nullptr);
}

// A value that is meaningful only when `set` (null otherwise).
template <typename T>
ojson or_null(bool set, const T& v) {
  return set ? ojson(v) : ojson(nullptr);
}

// A string whose empty value means "unset" (null).
inline ojson or_null(const std::string& s) {
  return s.empty() ? ojson(nullptr) : ojson(s);
}

// Writes `fields` into the object `o` in the order given (an existing key keeps its place and
// takes the new value).
inline void put(ojson& o, std::initializer_list<std::pair<const char*, ojson>> fields) {
  for (const auto& f : fields) o[f.first] = f.second;
}

}  // namespace blis::json_write
