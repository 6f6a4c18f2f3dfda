#include "scenario/trace_csv.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace blis::scenario {

namespace {

enum Column { kArrival, kPrompt, kOutput, kGroup, kPrefixTokens, kSession, kNumColumns };
constexpr const char* kNames[kNumColumns] = {"arrival_s",    "prompt_tokens", "output_tokens",
                                             "prefix_group", "prefix_tokens", "session_id"};
constexpr std::size_t kMaxErrors = 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> cells_of(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    out.push_back(trim(line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::string quoted(std::string_view s) {
  std::string q = "\"";
  q.append(s.substr(0, 40));
  q += s.size() > 40 ? "...\"" : "\"";
  return q;
}

bool to_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool to_double(std::string_view s, double& out) {
  if (s.empty() || s.size() > 63) return false;
  // strtod in the C locale; from_chars for doubles is missing from Emscripten's libc++.
  const std::string buf(s);
  char* end = nullptr;
  out = std::strtod(buf.c_str(), &end);
  return end == buf.c_str() + buf.size() && std::isfinite(out);
}

// Reads the text line by line, skipping blank and '#' lines.
class Lines {
 public:
  explicit Lines(const std::string& text) : text_(text) {}
  bool next(std::string_view& line) {
    while (pos_ < text_.size()) {
      const std::size_t nl = text_.find('\n', pos_);
      const std::size_t end = nl == std::string::npos ? text_.size() : nl;
      line = std::string_view(text_).substr(pos_, end - pos_);
      pos_ = nl == std::string::npos ? text_.size() : nl + 1;
      ++number_;
      const std::string_view t = trim(line);
      if (!t.empty() && t.front() != '#') return true;
    }
    return false;
  }
  std::int32_t number() const { return number_; }

 private:
  const std::string& text_;
  std::size_t pos_ = 0;
  std::int32_t number_ = 0;
};

}  // namespace

TraceParse parse_trace_csv(const std::string& csv, const std::string& pointer) {
  TraceParse out;
  std::size_t errors = 0;
  const auto report = [&](const std::string& message) {
    if (++errors <= kMaxErrors) out.diagnostics.push_back({pointer, message});
  };
  Lines lines(csv);
  std::string_view line;
  if (!lines.next(line)) {
    report("line 1: the trace is empty (expected rows of arrival_s,prompt_tokens,output_tokens)");
    return out;
  }
  // The first line is a request (no header: default columns), a header naming columns (any
  // order), or a header of other names (skipped: default columns).
  const std::vector<Column> kDefault = {kArrival, kPrompt, kOutput, kGroup, kSession};
  std::vector<Column> columns;
  const auto header = cells_of(line);
  const auto column_of = [](std::string_view name) {
    for (int k = 0; k < kNumColumns; ++k) {
      if (name == kNames[k]) return k;
    }
    return -1;
  };
  double first_arrival = 0;
  bool first_is_row = to_double(header[0], first_arrival);
  bool named = false;
  for (const auto& cell : header) named = named || column_of(cell) >= 0;
  if (first_is_row || !named) {
    columns = kDefault;
  } else {
    bool seen[kNumColumns] = {};
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string where =
          "line " + std::to_string(lines.number()) + ", column " + std::to_string(c + 1);
      const int found = column_of(header[c]);
      if (found < 0) {
        report(where + ": unknown column " + quoted(header[c]) +
               " (expected arrival_s, prompt_tokens, output_tokens, prefix_group, prefix_tokens, "
               "session_id)");
        return out;
      }
      if (seen[found]) {
        report(where + ": column " + quoted(header[c]) + " appears twice");
        return out;
      }
      seen[found] = true;
      columns.push_back(static_cast<Column>(found));
    }
    for (Column k : {kArrival, kPrompt, kOutput}) {
      if (!seen[k]) {
        report("line " + std::to_string(lines.number()) + ": the header has no " + kNames[k] +
               " column (required: arrival_s, prompt_tokens, output_tokens)");
        return out;
      }
    }
  }
  std::string column_list;
  for (Column k : columns)
    column_list += (column_list.empty() ? "" : ", ") + std::string(kNames[k]);

  double last_arrival = 0;
  while (first_is_row || lines.next(line)) {
    first_is_row = false;  // the first line, when it is a request, is read once
    const auto cells = cells_of(line);
    const std::int32_t ln = lines.number();
    std::string error;
    const auto fail = [&](std::size_t col, const std::string& what) {
      if (!error.empty()) return;
      const std::string name = col >= 1 && col <= columns.size()
                                   ? std::string(" (") + kNames[columns[col - 1]] + ")"
                                   : "";
      error = "line " + std::to_string(ln) + ", column " + std::to_string(col) + name + ": " + what;
    };
    if (cells.size() > columns.size()) {
      fail(columns.size() + 1, "more cells than the " + std::to_string(columns.size()) +
                                   " columns (" + column_list + ")");
    }
    TraceRow row;
    std::size_t prefix_tokens_col = 0;
    for (std::size_t c = 0; c < columns.size() && error.empty(); ++c) {
      const std::string_view cell = c < cells.size() ? cells[c] : std::string_view();
      const Column kind = columns[c];
      if (cell.empty()) {
        if (kind == kArrival || kind == kPrompt || kind == kOutput)
          fail(c + 1, "a value is required");
        continue;
      }
      std::int64_t v = 0;
      switch (kind) {
        case kArrival:
          if (!to_double(cell, row.arrival_s) || row.arrival_s < 0) {
            fail(c + 1, "expected a number of seconds >= 0, got " + quoted(cell));
          } else if (row.arrival_s < last_arrival) {
            char prev[32];
            std::snprintf(prev, sizeof prev, "%.9g", last_arrival);
            fail(c + 1, "arrival " + std::string(cell) + " is earlier than the previous row's " +
                            prev + " (rows must be in arrival order)");
          }
          break;
        case kPrompt:
        case kOutput:
          if (!to_int(cell, v) || v < 1 || v > kMaxTraceTokens) {
            fail(c + 1, "expected an integer in [1, " + std::to_string(kMaxTraceTokens) +
                            "], got " + quoted(cell));
          } else {
            (kind == kPrompt ? row.prompt_tokens : row.output_tokens) =
                static_cast<std::int32_t>(v);
          }
          break;
        case kGroup:
          if (!to_int(cell, v) || v < 0 || v > 2147483647) {
            fail(c + 1, "expected an integer >= 0 or an empty cell, got " + quoted(cell));
          } else {
            row.prefix_group = static_cast<std::int32_t>(v);
          }
          break;
        case kPrefixTokens:
          if (!to_int(cell, v) || v < 0 || v > kMaxTraceTokens) {
            fail(c + 1, "expected an integer >= 0 or an empty cell, got " + quoted(cell));
          } else {
            row.prefix_tokens = static_cast<std::int32_t>(v);
            prefix_tokens_col = c + 1;
          }
          break;
        case kSession:
          // Any text names a session (the workload numbers them in order of appearance).
          row.session_id = std::string(cell);
          break;
        case kNumColumns:
          break;
      }
    }
    if (error.empty() && row.prefix_tokens >= 0) {
      if (row.prefix_group < 0) {
        fail(prefix_tokens_col, "prefix_tokens needs a prefix_group");
      } else if (row.prefix_tokens > row.prompt_tokens) {
        fail(prefix_tokens_col, "prefix_tokens " + std::to_string(row.prefix_tokens) +
                                    " exceeds prompt_tokens " + std::to_string(row.prompt_tokens));
      }
    }
    if (!error.empty()) {
      report(error);
      continue;
    }
    last_arrival = row.arrival_s;
    out.rows.push_back(row);
  }
  if (errors > kMaxErrors) {
    out.diagnostics.push_back(
        {pointer, "... and " + std::to_string(errors - kMaxErrors) + " more errors"});
  }
  if (out.rows.empty() && errors == 0) report("the trace has a header but no data rows");
  return out;
}

}  // namespace blis::scenario
