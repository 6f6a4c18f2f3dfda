#include "conformance/prom_compare.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

namespace blis::testing {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// `name{a="1",b="2"} value`; label values may hold \\, \" and \n escapes.
bool parse_sample(const std::string& line, PromSample& s) {
  const std::size_t brace = line.find('{');
  const std::size_t space = line.rfind(' ');
  if (space == std::string::npos) return false;
  s.value = line.substr(space + 1);
  if (brace == std::string::npos || brace > space) {
    s.name = line.substr(0, space);
    return !s.name.empty();
  }
  s.name = line.substr(0, brace);
  std::size_t pos = brace + 1;
  while (pos < line.size() && line[pos] != '}') {
    const std::size_t eq = line.find('=', pos);
    if (eq == std::string::npos || eq + 1 >= line.size() || line[eq + 1] != '"') return false;
    std::string name = line.substr(pos, eq - pos);
    std::string value;
    pos = eq + 2;
    while (pos < line.size() && line[pos] != '"') {
      if (line[pos] == '\\' && pos + 1 < line.size()) {
        const char e = line[pos + 1];
        value.push_back(e == 'n' ? '\n' : e);
        pos += 2;
      } else {
        value.push_back(line[pos++]);
      }
    }
    if (pos >= line.size()) return false;
    ++pos;  // closing quote
    s.labels.emplace_back(std::move(name), std::move(value));
    if (pos < line.size() && line[pos] == ',') ++pos;
  }
  std::sort(s.labels.begin(), s.labels.end());
  return pos < line.size();
}

std::string family_base(const PromFamily& f) {
  return f.type == "counter" && ends_with(f.name, "_total") ? f.name.substr(0, f.name.size() - 6)
                                                            : f.name;
}

std::string label_text(const PromSample& s) {
  std::string out = s.name + "{";
  for (std::size_t i = 0; i < s.labels.size(); ++i) {
    if (i > 0) out += ",";
    out += s.labels[i].first + "=\"" + s.labels[i].second + "\"";
  }
  return out + "} " + s.value;
}

// The tolerance section 6 gives the sample: < 0 exact text; otherwise (relative?, bound).
struct Tolerance {
  bool exact = true;
  bool relative = false;
  double bound = 0;
};

Tolerance tolerance_of(const PromFamily& f, const PromSample& s) {
  const std::string base = family_base(f);
  if (base == "vllm:kv_cache_usage_perc") return {false, false, 1e-12};
  if (f.type == "histogram" && ends_with(base, "_seconds") && s.name == base + "_sum")
    return {false, true, 1e-9};
  return {};
}

bool values_match(const Tolerance& t, const std::string& e, const std::string& a) {
  if (t.exact) return e == a;
  const double x = std::strtod(e.c_str(), nullptr);
  const double y = std::strtod(a.c_str(), nullptr);
  const double diff = std::fabs(x - y);
  return t.relative ? diff <= t.bound * std::max(std::fabs(x), std::fabs(y)) : diff <= t.bound;
}

bool excluded(const PromFamily& f) {
  return f.name == "vllm:cache_config_info";
}

}  // namespace

bool parse_exposition(const std::string& text, std::vector<PromFamily>& out, std::string& error) {
  out.clear();
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty()) continue;
    if (line.rfind("# HELP ", 0) == 0) {
      const std::size_t sp = line.find(' ', 7);
      PromFamily f;
      f.name = line.substr(7, sp == std::string::npos ? std::string::npos : sp - 7);
      f.help = sp == std::string::npos ? "" : line.substr(sp + 1);
      out.push_back(std::move(f));
      continue;
    }
    if (line.rfind("# TYPE ", 0) == 0) {
      const std::size_t sp = line.find(' ', 7);
      if (out.empty() || sp == std::string::npos || line.substr(7, sp - 7) != out.back().name) {
        error = "line " + std::to_string(n) + ": TYPE without its HELP: " + line;
        return false;
      }
      out.back().type = line.substr(sp + 1);
      continue;
    }
    if (line[0] == '#') continue;
    PromSample s;
    if (out.empty() || !parse_sample(line, s)) {
      error = "line " + std::to_string(n) + ": not a sample line: " + line;
      return false;
    }
    out.back().samples.push_back(std::move(s));
  }
  return true;
}

std::optional<PromMismatch> compare_expositions(const std::string& expected,
                                                const std::string& actual) {
  std::vector<PromFamily> e, a;
  std::string error;
  if (!parse_exposition(expected, e, error)) return PromMismatch{"", "", "expected: " + error};
  if (!parse_exposition(actual, a, error)) return PromMismatch{"", "", "actual: " + error};
  e.erase(std::remove_if(e.begin(), e.end(), excluded), e.end());
  a.erase(std::remove_if(a.begin(), a.end(), excluded), a.end());
  for (std::size_t i = 0; i < std::max(e.size(), a.size()); ++i) {
    if (i >= a.size()) return PromMismatch{e[i].name, "", "family missing (and later ones)"};
    if (i >= e.size()) return PromMismatch{a[i].name, "", "unexpected family"};
    const PromFamily& fe = e[i];
    const PromFamily& fa = a[i];
    if (fe.name != fa.name)
      return PromMismatch{fe.name, "", "family " + std::to_string(i) + " is " + fa.name};
    if (fe.help != fa.help)
      return PromMismatch{fe.name, "", "HELP \"" + fa.help + "\", expected \"" + fe.help + "\""};
    if (fe.type != fa.type)
      return PromMismatch{fe.name, "", "TYPE " + fa.type + ", expected " + fe.type};
    for (std::size_t k = 0; k < std::max(fe.samples.size(), fa.samples.size()); ++k) {
      if (k >= fa.samples.size())
        return PromMismatch{fe.name, label_text(fe.samples[k]), "sample missing"};
      if (k >= fe.samples.size())
        return PromMismatch{fe.name, label_text(fa.samples[k]), "unexpected sample"};
      const PromSample& se = fe.samples[k];
      const PromSample& sa = fa.samples[k];
      if (se.name != sa.name || se.labels != sa.labels)
        return PromMismatch{fe.name, label_text(se), "sample is " + label_text(sa)};
      if (!values_match(tolerance_of(fe, se), se.value, sa.value))
        return PromMismatch{fe.name, label_text(se), "value " + sa.value};
    }
  }
  return std::nullopt;
}

}  // namespace blis::testing
