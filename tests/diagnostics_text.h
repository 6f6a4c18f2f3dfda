#pragma once
// Test helper: every diagnostic of a list as text, one "<pointer>: <message>" line each (the
// CLI's format), so an assertion's failure message shows all of them.

#include <string>

#include "util/diagnostic.h"

namespace blis::testing {

inline std::string all_diagnostics(const Diagnostics& ds) {
  std::string s;
  for (const auto& d : ds) s += format_diagnostic(d) + "\n";
  return s;
}

}  // namespace blis::testing
