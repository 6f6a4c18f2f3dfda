// libFuzzer: any bytes as a trace CSV. validate_trace_csv and the streaming reader must agree
// (a trace validate accepts reads to its end without an error), never crash, and report at
// most kMaxTraceErrors + 1 bounded lines.

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "scenario/trace_csv.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  blis::scenario::TraceStats stats;
  const blis::Diagnostics ds = blis::scenario::validate_trace_csv(text, "/t", &stats);
  if (ds.size() > blis::scenario::kMaxTraceErrors + 1) std::abort();
  for (const auto& d : ds) {
    if (blis::format_diagnostic(d).size() > 1300) std::abort();
  }
  if (!ds.empty()) return 0;
  blis::scenario::TraceCsvReader reader(text);  // throws only on a bad trace: abort if so
  blis::scenario::TraceRow row;
  std::int64_t rows = 0;
  while (reader.next(row)) ++rows;
  if (rows != stats.rows) std::abort();
  return 0;
}
