#include "conformance/trace_compare.h"

#include <cmath>

#include "util/diagnostic.h"

namespace blis::testing {
namespace {

using json = nlohmann::json;

std::string brief(const json& j) {
  std::string s = j.dump();
  if (s.size() > 160) s = s.substr(0, 157) + "...";
  return s;
}

// Top-level oracle bookkeeping, not part of the output FORMAT.md lists: `provenance` (the
// upstream files) and, in the newer traces, `modules` (which vLLM modules ran real or stubbed).
bool is_oracle_provenance(const std::string& ptr, const std::string& key) {
  return ptr.empty() && (key == "provenance" || key == "modules");
}

std::optional<std::string> diff(const json& e, const json& a, const std::string& ptr,
                                std::string& where) {
  if (e.is_number() && a.is_number() && (e.is_number_float() || a.is_number_float())) {
    if (std::fabs(e.get<double>() - a.get<double>()) <= 1e-12) return std::nullopt;
    where = ptr;
    return "expected " + brief(e) + ", actual " + brief(a) + " (beyond 1e-12)";
  }
  if (e.type() != a.type() && !(e.is_number_integer() && a.is_number_integer())) {
    where = ptr;
    return "expected " + brief(e) + ", actual " + brief(a);
  }
  if (e.is_object()) {
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (is_oracle_provenance(ptr, it.key())) continue;
      const std::string p = json_pointer_append(ptr, it.key());
      if (!a.contains(it.key())) {
        where = p;
        return "missing (expected " + brief(it.value()) + ")";
      }
      if (auto d = diff(it.value(), a.at(it.key()), p, where)) return d;
    }
    for (auto it = a.begin(); it != a.end(); ++it) {
      if (is_oracle_provenance(ptr, it.key())) continue;
      if (!e.contains(it.key())) {
        where = json_pointer_append(ptr, it.key());
        return "unexpected field " + brief(it.value());
      }
    }
    return std::nullopt;
  }
  if (e.is_array()) {
    const std::size_t n = std::min(e.size(), a.size());
    for (std::size_t i = 0; i < n; ++i) {
      if (auto d = diff(e[i], a[i], json_pointer_append(ptr, i), where)) return d;
    }
    if (e.size() != a.size()) {
      where = ptr;
      return "expected " + std::to_string(e.size()) + " elements, actual " +
             std::to_string(a.size()) + " (expected " + brief(e) + ", actual " + brief(a) + ")";
    }
    return std::nullopt;
  }
  if (e != a) {
    where = ptr;
    return "expected " + brief(e) + ", actual " + brief(a);
  }
  return std::nullopt;
}

}  // namespace

std::optional<TraceMismatch> compare_traces(const json& expected, const json& actual) {
  std::string where;
  const auto d = diff(expected, actual, "", where);
  if (!d) return std::nullopt;
  TraceMismatch m;
  m.pointer = where;
  m.message = *d;
  // Name the trace step: /steps/<i>/... -> that entry's "step".
  const std::string prefix = "/steps/";
  if (where.compare(0, prefix.size(), prefix) == 0) {
    const std::size_t end = where.find('/', prefix.size());
    const std::size_t i = std::stoul(where.substr(prefix.size(), end - prefix.size()));
    if (expected.contains("steps") && i < expected["steps"].size() &&
        expected["steps"][i].contains("step")) {
      m.step = expected["steps"][i]["step"].dump();
    } else {
      m.step = std::to_string(i);
    }
  }
  return m;
}

}  // namespace blis::testing
