#pragma once
// The trace CSV of `trace` / `workload.trace_csv`, checked while decoding so that
// `blis validate` and the web editor report a bad trace before a run. The format is the one
// the workload replays (core/cluster/workload/trace_csv.h); tests/scenario/
// workload_agreement_test.cpp holds the two readers to the same verdicts and messages.
//
// One request per row, comma separated:
//   arrival_s      (required) seconds from the start, >= 0, non-decreasing
//   prompt_tokens  (required) integer in [1, 2^24]
//   output_tokens  (required) integer in [1, 2^24]
//   prefix_group   (optional) integer >= 0
//   prefix_tokens  (optional) integer in [0, prompt_tokens], needs prefix_group
//   session_id     (optional) any text
// The first line may be a header: if it names any of these columns, columns are matched by
// name (any order; unknown names are errors); a header of other names is skipped. Without a
// named header the columns are arrival_s, prompt_tokens, output_tokens, prefix_group,
// session_id. Empty optional cells mean "none"; blank lines and '#' lines are skipped; CRLF
// line ends are accepted.

#include <cstdint>
#include <string>
#include <vector>

#include "util/diagnostic.h"

namespace blis::scenario {

inline constexpr std::int32_t kMaxTraceTokens = 1 << 24;

struct TraceRow {
  double arrival_s = 0;
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
  std::int32_t prefix_group = -1;   // -1 = none
  std::int32_t prefix_tokens = -1;  // -1 = the whole prompt comes from the group
  std::string session_id;           // "" = none
};

struct TraceParse {
  std::vector<TraceRow> rows;
  Diagnostics diagnostics;  // at `pointer`, each "line L, column C (name): ..." (at most 20 + 1)
};

// `pointer` locates the trace in the document (e.g. "/workload/trace_csv").
TraceParse parse_trace_csv(const std::string& csv, const std::string& pointer);

}  // namespace blis::scenario
