#pragma once
// The trace CSV of `trace` / `workload.trace_csv`: the one reader of the format. The decoder
// checks a trace with validate_trace_csv() (so `blis validate` and the web editor report a bad
// trace before a run) and the workload replays it row by row with TraceCsvReader.
//
// Format: one request per row, comma separated, in these columns:
//   arrival_s      (required) arrival time in seconds from the start, >= 0, non-decreasing
//   prompt_tokens  (required) integer >= 1
//   output_tokens  (required) integer >= 1
//   prefix_group   (optional) integer >= 0; requests of one group share their leading tokens
//   prefix_tokens  (optional) integer in [0, prompt_tokens]: how many leading tokens come from
//                  the group (empty or absent: the whole prompt); needs prefix_group
//   session_id     (optional) any text; a later row of the same session starts with the
//                  previous row's prompt and output (multi-turn). Sessions are numbered 0, 1,
//                  ... in order of first appearance.
// The first line may be a header. If it names any of these columns, columns are matched by
// name (in any order; unknown names are errors). A header of other names is skipped and, as
// without a header, columns are arrival_s, prompt_tokens, output_tokens, prefix_group,
// session_id in that order. Empty cells
// of optional columns mean "none". Blank lines and lines starting with '#' are skipped; CRLF
// line ends are accepted.

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "util/diagnostic.h"

namespace blis::scenario {

// The largest token count of a prompt or an output, in a trace and in any request shape (a
// larger one would not fit the ids of one request in memory).
inline constexpr std::int32_t kMaxTraceTokens = 1 << 24;

// One data row of a trace CSV.
struct TraceRow {
  double arrival_s = 0;
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
  std::int32_t prefix_group = -1;   // -1: none
  std::int32_t prefix_tokens = -1;  // -1: the whole prompt comes from the group
  std::int64_t session = -1;        // -1: none; else sessions numbered in order of appearance
  std::int32_t line = 0;            // 1-based line number in the CSV text
};

// A bad trace: what() is "trace CSV line L, column C (name): what was expected".
class TraceCsvError : public std::runtime_error {
 public:
  TraceCsvError(std::int32_t line, std::int32_t column, const std::string& detail);
  std::int32_t line() const { return line_; }
  std::int32_t column() const { return column_; }
  // The message without the "trace CSV " prefix ("line L, column C (name): ...").
  const std::string& detail() const { return detail_; }

 private:
  std::int32_t line_, column_;
  std::string detail_;
};

// Reads rows one at a time (the text is kept, rows are not). Throws TraceCsvError.
class TraceCsvReader {
 public:
  explicit TraceCsvReader(std::string text);
  // The next data row; false at the end of the text.
  bool next(TraceRow& row);

 private:
  enum Column { kArrival, kPrompt, kOutput, kGroup, kPrefixTokens, kSession, kNumColumns };
  std::string text_;
  std::size_t pos_ = 0;
  std::int32_t line_ = 0;
  std::vector<Column> columns_;          // header order
  std::vector<std::string_view> cells_;  // reused for every row
  std::size_t line_start_ = 0;           // offset of the line read_line() returned last
  std::map<std::string, std::size_t> session_ids_;
  double last_arrival_ = 0;
  bool read_line(std::string_view& line);
  void parse_header(std::string_view line);
  TraceRow parse_row(std::string_view line);
};

// Every problem of a trace (up to kMaxTraceErrors, then one "... and N more errors"), each at
// `pointer` (the trace's key in the scenario) with "line L, column C (name): ..." as its
// message; cells are quoted as short escaped excerpts, never whole lines. Empty when the trace
// is good.
inline constexpr std::size_t kMaxTraceErrors = 10;
// What a good trace asks of a run (for the work budget, docs/reliability.md).
struct TraceStats {
  std::int64_t rows = 0;
  double tokens = 0;  // sum of prompt_tokens + output_tokens over the rows
  double last_arrival_s = 0;
};
Diagnostics validate_trace_csv(std::string_view text, const std::string& pointer,
                               TraceStats* stats = nullptr);

}  // namespace blis::scenario
