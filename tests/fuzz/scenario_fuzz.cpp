// libFuzzer: any bytes through the scenario decoder (parse, every section, the cross-section
// checks, the work budget) must end in a Scenario or diagnostics, never a crash, a sanitizer
// report or an unbounded answer; every diagnostic formats as one bounded line.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "scenario/scenario_decode.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const blis::scenario::DecodeResult r = blis::scenario::decode_scenario(text);
  if (r.diagnostics.size() > blis::scenario::kMaxDiagnostics + 1) std::abort();
  if (r.scenario && blis::has_errors(r.diagnostics)) std::abort();
  for (const auto& d : r.diagnostics) {
    const std::string line = blis::format_diagnostic(d);
    if (line.size() > 1300) std::abort();
    for (char c : line) {
      if (static_cast<unsigned char>(c) < 0x20) std::abort();  // one line, no escapes
    }
  }
  return 0;
}
