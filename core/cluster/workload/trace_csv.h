#pragma once
// Trace CSV replay input.
//
// Format: a header row naming the columns, then one row per request, comma separated:
//   arrival_s      (required) arrival time in seconds from the start, >= 0, non-decreasing
//   prompt_tokens  (required) integer >= 1
//   output_tokens  (required) integer >= 1
//   prefix_group   (optional) integer >= 0; requests of one group share their leading tokens
//   prefix_tokens  (optional) integer in [0, prompt_tokens]: how many leading tokens come from
//                  the group (empty or absent: the whole prompt); needs prefix_group
//   session_id     (optional) integer >= 0; a later row of the same session starts with the
//                  previous row's prompt and output (multi-turn)
// Columns may come in any order; empty cells of optional columns mean "none". Blank lines and
// lines starting with '#' are skipped; CRLF line ends are accepted.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/workload/slot.h"
#include "util/diagnostic.h"

namespace blis::cluster {

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
  double last_arrival_ = 0;
  bool read_line(std::string_view& line);
  void parse_header(std::string_view line);
  TraceRow parse_row(std::string_view line);
};

// Every problem of a trace (up to a limit), each at `pointer` (the trace's key in the
// scenario) with "line L, column C (name): ..." as its message. Empty when the trace is good.
Diagnostics validate_trace_csv(std::string_view text, const std::string& pointer);

}  // namespace blis::cluster
