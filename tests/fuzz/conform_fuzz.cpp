// libFuzzer: any bytes as a `blis conform` input (tests/conformance/data/FORMAT.md, or the
// ext format when the document has "metrics"), decoded and, when valid, replayed through the
// engine. Every input must end in a trace or diagnostics, never a crash, a sanitizer report
// or an escaping exception; every diagnostic formats as one bounded line. The decoder's
// bounds (max_steps, requests, total sequence tokens) keep each run short.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "conform/conform.h"
#include "conform/conform_ext.h"
#include "util/diagnostic.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const blis::vllm::ConformOutcome out = blis::vllm::is_ext_input(text)
                                             ? blis::vllm::run_ext_conformance(text)
                                             : blis::vllm::run_conformance(text);
  if (!out.ok && out.diagnostics.empty()) std::abort();  // a refusal always says why
  for (const auto& d : out.diagnostics) {
    const std::string line = blis::format_diagnostic(d);
    if (line.size() > 4096) std::abort();
    for (char c : line) {
      if (c == '\n' || c == '\r') std::abort();  // one line per diagnostic
    }
  }
  return 0;
}
