#include "scenario/trace_csv.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "util/text.h"

namespace blis::scenario {

namespace {

constexpr const char* kColumnNames[] = {"arrival_s",    "prompt_tokens", "output_tokens",
                                        "prefix_group", "prefix_tokens", "session_id"};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

void split_cells(std::string_view line, std::vector<std::string_view>& cells) {
  cells.clear();
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(trim(line.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
}

// A cell in a message: a few escaped bytes, so a file that is not a trace is not echoed.
std::string quoted(std::string_view s) {
  return quote_excerpt(s, 16);
}

bool parse_int(std::string_view s, std::int64_t& out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && ptr == end;
}

bool parse_double(std::string_view s, double& out) {
  if (s.empty() || s.size() > 63) return false;
  char buf[64];
  s.copy(buf, s.size());
  buf[s.size()] = '\0';
  char* end = nullptr;
  out = std::strtod(buf, &end);  // correctly rounded in glibc and musl alike
  return end == buf + s.size() && std::isfinite(out);
}

}  // namespace

TraceCsvError::TraceCsvError(std::int32_t line, std::int32_t column, const std::string& detail)
    : std::runtime_error("trace CSV " + detail), line_(line), column_(column), detail_(detail) {}

TraceCsvReader::TraceCsvReader(std::string text) : text_(std::move(text)) {
  std::string_view first;
  if (!read_line(first)) {
    throw TraceCsvError(1, 0,
                        "line 1: the trace is empty (expected rows of arrival_s,prompt_tokens,"
                        "output_tokens)");
  }
  split_cells(first, cells_);
  double t = 0;
  if (parse_double(cells_[0], t)) {
    // No header: the first line is already a request; columns are in their default order.
    columns_.assign({kArrival, kPrompt, kOutput, kGroup, kSession});
    pos_ = line_start_;
    --line_;
    return;
  }
  parse_header(first);
}

bool TraceCsvReader::read_line(std::string_view& line) {
  while (pos_ < text_.size()) {
    const std::size_t nl = text_.find('\n', pos_);
    const std::size_t end = nl == std::string::npos ? text_.size() : nl;
    line = std::string_view(text_).substr(pos_, end - pos_);
    line_start_ = pos_;
    pos_ = nl == std::string::npos ? text_.size() : nl + 1;
    ++line_;
    const std::string_view t = trim(line);
    if (t.empty() || t.front() == '#') continue;
    return true;
  }
  return false;
}

void TraceCsvReader::parse_header(std::string_view line) {
  split_cells(line, cells_);
  const auto& cells = cells_;
  const auto column_of = [](std::string_view name) {
    for (int k = 0; k < kNumColumns; ++k) {
      if (name == kColumnNames[k]) return k;
    }
    return -1;
  };
  bool named = false;
  for (const auto& cell : cells) named = named || column_of(cell) >= 0;
  if (!named) {
    // A header of other names: skipped, columns in their default order.
    columns_.assign({kArrival, kPrompt, kOutput, kGroup, kSession});
    return;
  }
  bool seen[kNumColumns] = {};
  for (std::size_t c = 0; c < cells.size(); ++c) {
    const auto col = static_cast<std::int32_t>(c + 1);
    const int found = column_of(cells[c]);
    const std::string where = "line " + std::to_string(line_) + ", column " + std::to_string(col);
    if (found < 0) {
      throw TraceCsvError(line_, col,
                          where + ": unknown column " + quoted(cells[c]) +
                              " (expected arrival_s, prompt_tokens, output_tokens, prefix_group, "
                              "prefix_tokens, session_id)");
    }
    if (seen[found])
      throw TraceCsvError(line_, col, where + ": column " + quoted(cells[c]) + " appears twice");
    seen[found] = true;
    columns_.push_back(static_cast<Column>(found));
  }
  for (int k : {kArrival, kPrompt, kOutput}) {
    if (!seen[k]) {
      throw TraceCsvError(line_, 0,
                          "line " + std::to_string(line_) + ": the header has no " +
                              kColumnNames[k] +
                              " column (required: arrival_s, prompt_tokens, "
                              "output_tokens)");
    }
  }
}

TraceRow TraceCsvReader::parse_row(std::string_view line) {
  split_cells(line, cells_);
  const auto& cells = cells_;
  const auto fail = [&](std::int32_t col, const std::string& what) {
    const std::string name =
        col >= 1 && col <= static_cast<std::int32_t>(columns_.size())
            ? std::string(" (") + kColumnNames[columns_[static_cast<std::size_t>(col - 1)]] + ")"
            : std::string();
    throw TraceCsvError(
        line_, col,
        "line " + std::to_string(line_) + ", column " + std::to_string(col) + name + ": " + what);
  };
  if (cells.size() > columns_.size()) {
    std::string names;
    for (Column k : columns_) names += (names.empty() ? "" : ", ") + std::string(kColumnNames[k]);
    fail(static_cast<std::int32_t>(columns_.size() + 1),
         "more cells than the " + std::to_string(columns_.size()) + " columns (" + names + ")");
  }
  TraceRow row;
  row.line = line_;
  std::int32_t prefix_tokens_col = 0;
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    const std::string_view cell = c < cells.size() ? cells[c] : std::string_view();
    const auto col = static_cast<std::int32_t>(c + 1);
    const Column kind = columns_[c];
    if (cell.empty()) {
      if (kind == kArrival || kind == kPrompt || kind == kOutput) fail(col, "a value is required");
      continue;
    }
    std::int64_t v = 0;
    switch (kind) {
      case kArrival: {
        double t = 0;
        if (!parse_double(cell, t) || t < 0)
          fail(col, "expected a number of seconds >= 0, got " + quoted(cell));
        if (t < last_arrival_) {
          char prev[32];
          std::snprintf(prev, sizeof prev, "%.9g", last_arrival_);
          fail(col, "arrival " + escape_excerpt(cell, 16) + " is earlier than the previous row's " +
                        prev + " (rows must be in arrival order)");
        }
        row.arrival_s = t;
        break;
      }
      case kPrompt:
      case kOutput:
        if (!parse_int(cell, v) || v < 1 || v > kMaxTraceTokens) {
          fail(col, "expected an integer in [1, " + std::to_string(kMaxTraceTokens) + "], got " +
                        quoted(cell));
        }
        (kind == kPrompt ? row.prompt_tokens : row.output_tokens) = static_cast<std::int32_t>(v);
        break;
      case kGroup:
        if (!parse_int(cell, v) || v < 0 || v > INT32_MAX)
          fail(col, "expected an integer >= 0 or an empty cell, got " + quoted(cell));
        row.prefix_group = static_cast<std::int32_t>(v);
        break;
      case kPrefixTokens:
        if (!parse_int(cell, v) || v < 0 || v > kMaxTraceTokens)
          fail(col, "expected an integer >= 0 or an empty cell, got " + quoted(cell));
        row.prefix_tokens = static_cast<std::int32_t>(v);
        prefix_tokens_col = col;
        break;
      case kSession: {
        // Any text names a session; sessions are numbered in order of first appearance.
        const auto [it, added] = session_ids_.try_emplace(std::string(cell), session_ids_.size());
        row.session = static_cast<std::int64_t>(it->second);
        break;
      }
      case kNumColumns:
        break;
    }
  }
  if (row.prefix_tokens >= 0) {
    if (row.prefix_group < 0) fail(prefix_tokens_col, "prefix_tokens needs a prefix_group");
    if (row.prefix_tokens > row.prompt_tokens) {
      fail(prefix_tokens_col, "prefix_tokens " + std::to_string(row.prefix_tokens) +
                                  " exceeds prompt_tokens " + std::to_string(row.prompt_tokens));
    }
  }
  last_arrival_ = row.arrival_s;
  return row;
}

bool TraceCsvReader::next(TraceRow& row) {
  std::string_view line;
  if (!read_line(line)) return false;
  row = parse_row(line);
  return true;
}

Diagnostics validate_trace_csv(std::string_view text, const std::string& pointer,
                               TraceStats* stats) {
  Diagnostics out;
  std::size_t errors = 0;
  const auto report = [&](const std::string& message) {
    if (++errors <= kMaxTraceErrors) out.push_back({pointer, message, Severity::kError});
  };
  std::optional<TraceCsvReader> reader;
  try {
    reader.emplace(std::string(text));
  } catch (const TraceCsvError& e) {
    report(e.detail());
    return out;
  }
  std::size_t rows = 0;
  TraceRow row;
  for (;;) {
    try {
      if (!reader->next(row)) break;
      ++rows;
      if (stats) {
        stats->tokens += double(row.prompt_tokens) + row.output_tokens;
        stats->last_arrival_s = row.arrival_s;
      }
    } catch (const TraceCsvError& e) {
      report(e.detail());  // the reader has moved past the bad line: keep checking the rest
    }
  }
  if (errors > kMaxTraceErrors) {
    out.push_back({pointer, "... and " + std::to_string(errors - kMaxTraceErrors) + " more errors",
                   Severity::kError});
  }
  if (rows == 0 && errors == 0) report("the trace has a header but no data rows");
  if (stats) stats->rows = static_cast<std::int64_t>(rows);
  return out;
}

}  // namespace blis::scenario
