#pragma once
// Reading and printing one number of a run's summary.json, shared by the ranked sweep table and
// the capacity search so both read a summary field (and print it) the same way.
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace blis::sweep {

// The number at a JSON pointer of a summary, or nothing when the pointer is absent, malformed
// or names a non-number (a point that did not produce the field ranks as missing, not as 0).
std::optional<double> summary_number(const nlohmann::json& summary, const std::string& pointer);

// Six significant digits ("%.6g"): the precision of the ranked table and the probe list.
std::string short_number(double v);

}  // namespace blis::sweep
