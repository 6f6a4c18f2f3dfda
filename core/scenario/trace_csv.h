#pragma once
// The trace CSV of `trace` / `workload.trace_csv`: one request per row,
//   arrival_s,prompt_tokens,output_tokens[,prefix_group[,session_id]]
// with an optional header row (a first line whose first field is not a number). Arrival
// times are seconds from the start of the run and must not decrease. The decoder checks a
// trace with this parser; the cluster replays the rows it returns.

#include <cstdint>
#include <string>
#include <vector>

#include "util/diagnostic.h"

namespace blis::scenario {

struct TraceRow {
  double arrival_s = 0;
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
  std::int32_t prefix_group = -1;  // -1 = none
  std::string session_id;          // "" = none
};

struct TraceParse {
  std::vector<TraceRow> rows;
  Diagnostics diagnostics;  // at `pointer`, each message starting "line N: "
};

// `pointer` locates the CSV text in the document (e.g. "/workload/trace_csv/csv").
TraceParse parse_trace_csv(const std::string& csv, const std::string& pointer);

}  // namespace blis::scenario
