// pydantic-core's lax reading of numbers from strings (input/shared.rs str_as_int and
// str_as_float), which vLLM's config classes apply to engine arguments given as text.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

#include "util/json_fields.h"

namespace blis {

namespace {

// The length of the Unicode White_Space character (Rust's char::is_whitespace, which
// str::trim strips) that starts at `s[i]`, 0 if none: ASCII \t \n \v \f \r and space, and in
// UTF-8 U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
std::size_t space_at(const std::string& s, std::size_t i) {
  const auto b = [&](std::size_t k) {
    return k < s.size() ? static_cast<unsigned char>(s[k]) : 0u;
  };
  const unsigned c = b(i);
  if (c == ' ' || (c >= 0x09 && c <= 0x0d)) return 1;
  if (c == 0xc2 && (b(i + 1) == 0x85 || b(i + 1) == 0xa0)) return 2;
  if (c == 0xe1 && b(i + 1) == 0x9a && b(i + 2) == 0x80) return 3;
  if (c == 0xe2 && b(i + 1) == 0x80) {
    const unsigned t = b(i + 2);
    if ((t >= 0x80 && t <= 0x8a) || t == 0xa8 || t == 0xa9 || t == 0xaf) return 3;
  }
  if (c == 0xe2 && b(i + 1) == 0x81 && b(i + 2) == 0x9f) return 3;
  if (c == 0xe3 && b(i + 1) == 0x80 && b(i + 2) == 0x80) return 3;
  return 0;
}

// Rust's str::trim: leading and trailing Unicode whitespace removed.
std::string trimmed(const std::string& raw) {
  std::size_t b = 0;
  while (b < raw.size()) {
    const std::size_t n = space_at(raw, b);
    if (n == 0) break;
    b += n;
  }
  std::size_t e = raw.size();
  while (e > b) {
    // Step back over one character: find the start of the UTF-8 sequence that ends at e.
    std::size_t k = e - 1;
    while (k > b && (static_cast<unsigned char>(raw[k]) & 0xc0) == 0x80) --k;
    if (space_at(raw, k) != e - k) break;
    e = k;
  }
  return raw.substr(b, e - b);
}

// jiter's integer grammar (NumberInt::try_from, what str_as_int tries first): an optional '-',
// then "0" or a digit 1-9 followed by digits; nothing else (no '+', spaces or leading zeros).
std::optional<std::int64_t> parse_json_int(const std::string& s) {
  const std::size_t i = (!s.empty() && s[0] == '-') ? 1 : 0;
  if (i == s.size() || s.size() > 20) return std::nullopt;
  if (s[i] == '0' && s.size() > i + 1) return std::nullopt;
  std::int64_t whole = 0;
  for (std::size_t j = i; j < s.size(); ++j) {
    const char c = s[j];
    if (c < '0' || c > '9') return std::nullopt;
    if (whole > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    whole = whole * 10 + (c - '0');
  }
  return i == 1 ? -whole : whole;
}

// pydantic-core shared.rs strip_underscores: none leading, trailing or doubled.
std::optional<std::string> strip_underscores(const std::string& s) {
  if (s.empty() || s.front() == '_' || s.back() == '_' || s.find('_') == std::string::npos ||
      s.find("__") != std::string::npos) {
    return std::nullopt;
  }
  std::string out;
  for (const char c : s) {
    if (c != '_') out += c;
  }
  return out;
}

// Rust's `str::parse::<f64>` grammar: [+-] then inf / infinity / nan (any case), or digits
// with an optional fraction (at least one digit in all) and an optional exponent.
std::optional<double> parse_f64(const std::string& s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  std::size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  std::string rest = s.substr(i);
  for (auto& ch : rest) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const bool negative = s[0] == '-';
  if (rest == "inf" || rest == "infinity") {
    return negative ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  }
  if (rest == "nan") return std::numeric_limits<double>::quiet_NaN();
  std::size_t digits = 0;
  std::size_t j = 0;
  while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j]))) ++j, ++digits;
  if (j < rest.size() && rest[j] == '.') {
    ++j;
    while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j]))) ++j, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (j < rest.size() && rest[j] == 'e') {
    ++j;
    if (j < rest.size() && (rest[j] == '+' || rest[j] == '-')) ++j;
    const std::size_t exp_start = j;
    while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j]))) ++j;
    if (j == exp_start) return std::nullopt;
  }
  if (j != rest.size()) return std::nullopt;
  return std::strtod(s.c_str(), nullptr);  // correctly rounded, as Rust's parse is
}

// pydantic-core input/shared.rs strip_leading_zeros: "007" -> "7", "000" -> "0", "00.0" ->
// "0.0", "0_1" -> "1"; nullopt when the text does not start with a digit (or '-').
std::optional<std::string> strip_leading_zeros(const std::string& s) {
  if (s.empty()) return std::nullopt;
  if (s[0] != '0') {
    if ((s[0] >= '1' && s[0] <= '9') || s[0] == '-') return s;
    return std::nullopt;
  }
  for (std::size_t i = 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '0' || c == '_') continue;
    if ((c >= '1' && c <= '9') || c == '-') return s.substr(i);
    if (c == '.') return s.substr(i - 1);
    return std::nullopt;
  }
  return s.substr(s.size() - 1);
}

}  // namespace

std::optional<std::int64_t> pydantic_str_int(const std::string& raw) {
  // pydantic-core input/shared.rs str_as_int: the text as a JSON integer, else cleaned
  // (clean_int_str): trimmed, one leading '+' or '-' taken off ("+-1", "--1", "-+1" refused),
  // leading zeros stripped, a non-empty all-zero fraction dropped ("128.0"; "128." is refused),
  // single inner underscores removed ("1_000"); refused when cleaning changed nothing.
  if (raw.size() > 4300) return std::nullopt;
  if (auto n = parse_json_int(raw)) return n;
  std::string s = trimmed(raw);
  const std::size_t len_before = raw.size();
  if (!s.empty() && s[0] == '+') {
    if (s.size() > 1 && s[1] == '-') return std::nullopt;
    s = s.substr(1);
  }
  bool negative = false;
  if (!s.empty() && s[0] == '-') {
    if (s.size() > 1 && (s[1] == '-' || s[1] == '+')) return std::nullopt;
    negative = true;
    s = s.substr(1);
  }
  auto z = strip_leading_zeros(s);
  if (!z) return std::nullopt;
  s = *z;
  if (const auto dot = s.find('.'); dot != std::string::npos) {
    const std::string frac = s.substr(dot + 1);
    if (!frac.empty() && frac.find_first_not_of('0') == std::string::npos) s = s.substr(0, dot);
  }
  std::string cleaned;
  if (auto u = strip_underscores(s)) {
    cleaned = *u;
  } else if (s.size() == len_before) {
    return std::nullopt;
  } else {
    cleaned = s;
  }
  return parse_json_int(negative ? "-" + cleaned : cleaned);
}

std::optional<double> pydantic_str_float(const std::string& raw) {
  // pydantic-core input/shared.rs str_as_float: Rust's f64 parse of the trimmed text, else of
  // the text with its underscores removed (untrimmed there: " 1_0.5" is refused).
  if (auto d = parse_f64(trimmed(raw))) return d;
  if (auto u = strip_underscores(raw)) return parse_f64(*u);
  return std::nullopt;
}

}  // namespace blis
