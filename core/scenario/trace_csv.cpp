#include "scenario/trace_csv.h"

#include <charconv>
#include <cmath>
#include <cstdlib>

namespace blis::scenario {

namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    const auto comma = line.find(',', start);
    out.push_back(
        trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

bool parse_double(const std::string& s, double& out) {
  if (s.empty() || s.size() > 64) return false;
  // strtod in the C locale (the program never calls setlocale); from_chars for doubles is
  // missing from Emscripten's libc++.
  char* end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(out);
}

bool parse_int(const std::string& s, std::int64_t& out) {
  if (s.empty()) return false;
  const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

std::string quoted(const std::string& s) {
  return "\"" + (s.size() > 40 ? s.substr(0, 40) + "..." : s) + "\"";
}

}  // namespace

TraceParse parse_trace_csv(const std::string& csv, const std::string& pointer) {
  TraceParse out;
  const auto fail = [&](std::size_t line, const std::string& msg) {
    out.diagnostics.push_back({pointer, "line " + std::to_string(line) + ": " + msg});
  };
  std::size_t line_no = 0, start = 0;
  double last_arrival = 0;
  bool first_content = true;
  while (start <= csv.size()) {
    auto nl = csv.find('\n', start);
    if (nl == std::string::npos) nl = csv.size();
    const std::string line = csv.substr(start, nl - start);
    start = nl + 1;
    ++line_no;
    if (trim(line).empty()) {
      if (nl == csv.size()) break;
      continue;
    }
    const auto f = split(line);
    double arrival = 0;
    if (first_content && !parse_double(f[0], arrival)) {
      first_content = false;  // a header row
      if (nl == csv.size()) break;
      continue;
    }
    first_content = false;
    if (out.diagnostics.size() >= 20) {  // enough to fix the file; don't flood the editor
      out.diagnostics.push_back(
          {pointer, "line " + std::to_string(line_no) + ": further errors not shown"});
      break;
    }
    if (f.size() < 3 || f.size() > 5) {
      fail(line_no, std::to_string(f.size()) +
                        " fields, expected 3 to 5: "
                        "arrival_s,prompt_tokens,output_tokens[,prefix_group[,session_id]]");
    } else {
      TraceRow row;
      std::int64_t n = 0;
      bool ok = true;
      if (!parse_double(f[0], row.arrival_s) || row.arrival_s < 0) {
        fail(line_no, "arrival_s " + quoted(f[0]) + " is not a number of seconds >= 0");
        ok = false;
      } else if (row.arrival_s < last_arrival) {
        fail(line_no, "arrival_s " + f[0] +
                          " is earlier than the previous row, expected arrival times in order");
        ok = false;
      }
      if (!parse_int(f[1], n) || n < 1 || n > 2147483647) {
        fail(line_no, "prompt_tokens " + quoted(f[1]) + " is not an integer >= 1");
        ok = false;
      } else {
        row.prompt_tokens = static_cast<std::int32_t>(n);
      }
      if (!parse_int(f[2], n) || n < 1 || n > 2147483647) {
        fail(line_no, "output_tokens " + quoted(f[2]) + " is not an integer >= 1");
        ok = false;
      } else {
        row.output_tokens = static_cast<std::int32_t>(n);
      }
      if (f.size() >= 4 && !f[3].empty()) {
        if (!parse_int(f[3], n) || n < 0 || n > 2147483647) {
          fail(line_no, "prefix_group " + quoted(f[3]) + " is not an integer >= 0 (or empty)");
          ok = false;
        } else {
          row.prefix_group = static_cast<std::int32_t>(n);
        }
      }
      if (f.size() == 5) row.session_id = f[4];
      if (ok) {
        last_arrival = row.arrival_s;
        out.rows.push_back(std::move(row));
      }
    }
    if (nl == csv.size()) break;
  }
  if (out.diagnostics.empty() && out.rows.empty()) {
    out.diagnostics.push_back({pointer, "no requests: the trace has no data rows"});
  }
  return out;
}

}  // namespace blis::scenario
