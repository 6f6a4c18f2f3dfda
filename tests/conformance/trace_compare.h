#pragma once
// Compares a trace from `blis conform` with a golden trace the way FORMAT.md says: every
// field except the top-level provenance (and the oracle's `modules` list), floating-point
// values to 1e-12, everything else exactly, keys in both directions.

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace blis::testing {

struct TraceMismatch {
  std::string step;     // the trace step ("" outside the steps)
  std::string pointer;  // JSON pointer of the first differing field
  std::string message;  // what differs
};

std::optional<TraceMismatch> compare_traces(const nlohmann::json& expected,
                                            const nlohmann::json& actual);

}  // namespace blis::testing
