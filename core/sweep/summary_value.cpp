#include "sweep/summary_value.h"

#include <cstdio>
#include <exception>

namespace blis::sweep {

std::optional<double> summary_number(const nlohmann::json& summary, const std::string& pointer) {
  try {
    const nlohmann::json& v = summary.at(nlohmann::json::json_pointer(pointer));
    if (v.is_number()) return v.get<double>();
  } catch (const std::exception&) {
    // A malformed pointer or an absent field: the value is missing.
  }
  return std::nullopt;
}

std::string short_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

}  // namespace blis::sweep
