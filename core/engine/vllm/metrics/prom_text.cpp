#include "engine/vllm/metrics/prom_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace blis::vllm::metrics {
namespace {

// A decimal value 0.d1d2...dn x 10^decpt, digits without leading or trailing zeros.
struct Decimal {
  std::string digits;
  int decpt = 0;
};

// Reads back "d1d2...dn" x 10^(decpt - n) with strtod, which is correctly rounded in both
// glibc and musl.
double decimal_value(const std::string& digits, int decpt) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0.%se%d", digits.c_str(), decpt);
  return std::strtod(buf, nullptr);
}

// Adds `delta` (+1 or -1) to the last digit of a digit string (no sign, may carry or borrow).
// Returns the new digits and adjusts decpt when the length changes.
bool step_last_digit(std::string& digits, int& decpt, int delta) {
  if (delta > 0) {
    int i = static_cast<int>(digits.size()) - 1;
    while (i >= 0 && digits[static_cast<std::size_t>(i)] == '9') {
      digits[static_cast<std::size_t>(i)] = '0';
      --i;
    }
    if (i < 0) {
      digits.insert(digits.begin(), '1');
      digits.pop_back();
      ++decpt;
    } else {
      ++digits[static_cast<std::size_t>(i)];
    }
    return true;
  }
  int i = static_cast<int>(digits.size()) - 1;
  while (i >= 0 && digits[static_cast<std::size_t>(i)] == '0') {
    digits[static_cast<std::size_t>(i)] = '9';
    --i;
  }
  if (i < 0) return false;
  --digits[static_cast<std::size_t>(i)];
  if (digits[0] == '0') {
    if (digits.size() == 1) return false;
    digits.erase(digits.begin());
    digits.push_back('9');
    --decpt;
  }
  return true;
}

// Shortest round-trip digits of a finite, positive value.
Decimal shortest_digits(double value) {
  for (int precision = 1; precision <= 17; ++precision) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, value);
    // buf is "d.ddde[+-]xx" (or "de[+-]xx" when precision is 1).
    std::string digits;
    const char* p = buf;
    for (; *p != 'e'; ++p) {
      if (*p != '.') digits.push_back(*p);
    }
    const int exp10 = std::atoi(p + 1);
    const int decpt = exp10 + 1;
    // The correctly rounded candidate is the closest p-digit decimal; if it does not read
    // back, a neighbour still may when the double sits at a power of two (its rounding
    // interval is lopsided there). Gay's shortest mode would return that neighbour.
    if (decimal_value(digits, decpt) == value) {
      Decimal d{digits, decpt};
      while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
      return d;
    }
    for (int delta : {-1, +1}) {
      std::string nd = digits;
      int npt = decpt;
      if (!step_last_digit(nd, npt, delta)) continue;
      if (decimal_value(nd, npt) == value) {
        Decimal d{nd, npt};
        while (d.digits.size() > 1 && d.digits.back() == '0') d.digits.pop_back();
        return d;
      }
    }
  }
  // Unreachable for finite doubles: 17 significant digits always read back.
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.16e", value);
  return Decimal{std::string(1, buf[0]), 1};
}

}  // namespace

// Python's float_repr_style "short" ('r' format, Py_DTSF_ADD_DOT_0): exponent notation when
// decpt <= -4 or decpt > 16 (pystrtod.c format_float_short).
std::string python_float_repr(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::string out;
  if (std::signbit(value)) out.push_back('-');
  if (value == 0) return out + "0.0";
  const Decimal d = shortest_digits(std::fabs(value));
  const int n = static_cast<int>(d.digits.size());
  if (d.decpt <= -4 || d.decpt > 16) {
    out.push_back(d.digits[0]);
    if (n > 1) {
      out.push_back('.');
      out.append(d.digits, 1, std::string::npos);
    }
    const int exp10 = d.decpt - 1;
    char buf[16];
    std::snprintf(buf, sizeof buf, "e%c%02d", exp10 < 0 ? '-' : '+', exp10 < 0 ? -exp10 : exp10);
    out += buf;
    return out;
  }
  if (d.decpt <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-d.decpt), '0');
    out += d.digits;
  } else if (d.decpt < n) {
    out.append(d.digits, 0, static_cast<std::size_t>(d.decpt));
    out.push_back('.');
    out.append(d.digits, static_cast<std::size_t>(d.decpt), std::string::npos);
  } else {
    out += d.digits;
    out.append(static_cast<std::size_t>(d.decpt - n), '0');
    out += ".0";
  }
  return out;
}

// prometheus_client utils.py floatToGoString.
std::string format_go_float(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  std::string s = python_float_repr(value);
  const std::size_t dot = s.find('.');
  // "Go switches to exponents sooner than Python": only positive values, and only when
  // the repr has a '.' past position 6 (s.find returns -1 otherwise, which never exceeds 6).
  if (value > 0 && dot != std::string::npos && dot > 6) {
    std::string mantissa;
    mantissa.push_back(s[0]);
    mantissa.push_back('.');
    mantissa.append(s, 1, dot - 1);
    mantissa.append(s, dot + 1, std::string::npos);
    // Python str.rstrip('0.') strips any trailing run of '0' and '.' characters.
    while (!mantissa.empty() && (mantissa.back() == '0' || mantissa.back() == '.'))
      mantissa.pop_back();
    char buf[32];
    std::snprintf(buf, sizeof buf, "e+0%d", static_cast<int>(dot) - 1);
    return mantissa + buf;
  }
  return s;
}

void append_escaped_label_value(std::string& out, std::string_view value) {
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

void append_escaped_help(std::string& out, std::string_view help) {
  for (char c : help) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out.push_back(c);
    }
  }
}

bool is_valid_label_name(std::string_view name) {
  if (name.empty()) return false;
  if (name.size() >= 2 && name[0] == '_' && name[1] == '_') return false;
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
    const bool digit = c >= '0' && c <= '9';
    if (!(alpha || (i > 0 && digit))) return false;
  }
  return true;
}

bool parse_label_list(std::string_view text, LabelList& out, std::string& error) {
  out.clear();
  std::size_t pos = 0;
  auto fail = [&](const char* what) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "label list: %s at offset %zu", what, pos);
    error = buf;
    out.clear();
    return false;
  };
  auto skip_spaces = [&] {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\t')) ++pos;
  };
  skip_spaces();
  if (pos == text.size()) return true;
  while (true) {
    skip_spaces();
    const std::size_t name_start = pos;
    while (pos < text.size() && text[pos] != '=' && text[pos] != ' ') ++pos;
    const std::string_view name = text.substr(name_start, pos - name_start);
    if (!is_valid_label_name(name)) {
      pos = name_start;
      return fail("expected a label name ([a-zA-Z_][a-zA-Z0-9_]*)");
    }
    skip_spaces();
    if (pos >= text.size() || text[pos] != '=') return fail("expected '='");
    ++pos;
    skip_spaces();
    if (pos >= text.size() || text[pos] != '"') return fail("expected '\"'");
    ++pos;
    std::string value;
    while (true) {
      if (pos >= text.size()) return fail("unterminated label value");
      const char c = text[pos++];
      if (c == '"') break;
      if (c != '\\') {
        value.push_back(c);
        continue;
      }
      if (pos >= text.size()) return fail("unterminated escape");
      const char e = text[pos++];
      if (e == '\\' || e == '"') {
        value.push_back(e);
      } else if (e == 'n') {
        value.push_back('\n');
      } else {
        --pos;
        return fail("unknown escape (expected \\\\, \\\" or \\n)");
      }
    }
    for (const Label& l : out) {
      if (l.first == name) return fail("duplicate label name");
    }
    out.emplace_back(std::string(name), std::move(value));
    skip_spaces();
    if (pos == text.size()) return true;
    if (text[pos] != ',') return fail("expected ',' between labels");
    ++pos;
    skip_spaces();
    if (pos == text.size()) return true;  // a trailing comma is allowed, as in selectors
  }
}

void append_sorted_labels(std::string& out, LabelList& labels) {
  if (labels.empty()) return;
  std::sort(labels.begin(), labels.end(),
            [](const Label& a, const Label& b) { return a.first < b.first; });
  out.push_back('{');
  bool first = true;
  for (const Label& l : labels) {
    if (!first) out.push_back(',');
    first = false;
    out += l.first;
    out += "=\"";
    append_escaped_label_value(out, l.second);
    out.push_back('"');
  }
  out.push_back('}');
}

}  // namespace blis::vllm::metrics
