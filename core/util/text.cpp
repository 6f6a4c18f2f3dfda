#include "util/text.h"

#include <cstdio>

namespace blis {

namespace {

// Length of the valid UTF-8 sequence starting at s[i], or 0 when it is not one.
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  std::size_t n = 0;
  if (b < 0x80) return 1;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  }
  return n;
}

void put_hex(std::string& out, unsigned char b) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "\\x%02x", b);
  out += buf;
}

// The one walk both escapers share: valid UTF-8 is kept whole (never cut in two at the
// limit), C1 controls and other control bytes, DEL and invalid UTF-8 become \xNN, and "..."
// marks a cut. `quote_safe` also escapes backslash and double quote and names \n, \t, \r,
// so the result can sit inside quotes.
std::string escape(std::string_view s, std::size_t max_bytes, bool quote_safe) {
  std::string out;
  std::size_t i = 0;
  while (i < s.size() && i < max_bytes) {
    const auto b = static_cast<unsigned char>(s[i]);
    const std::size_t n = utf8_length(s, i);
    if (n > 1) {
      if (i + n > max_bytes) break;  // do not cut a character in two
      // C1 controls (U+0080..U+009F) steer some terminals too.
      if (n == 2 && b == 0xC2 && static_cast<unsigned char>(s[i + 1]) < 0xA0) {
        put_hex(out, b);
        put_hex(out, static_cast<unsigned char>(s[i + 1]));
      } else {
        out.append(s.substr(i, n));
      }
      i += n;
      continue;
    }
    if (quote_safe && b == '\\') {
      out += "\\\\";
    } else if (quote_safe && b == '"') {
      out += "\\\"";
    } else if (quote_safe && b == '\n') {
      out += "\\n";
    } else if (quote_safe && b == '\t') {
      out += "\\t";
    } else if (quote_safe && b == '\r') {
      out += "\\r";
    } else if (b < 0x20 || b >= 0x7F) {
      put_hex(out, b);  // other controls, DEL, invalid UTF-8
    } else {
      out += static_cast<char>(b);
    }
    ++i;
  }
  if (i < s.size()) out += "...";
  return out;
}

}  // namespace

std::string escape_excerpt(std::string_view s, std::size_t max_bytes) {
  return escape(s, max_bytes, /*quote_safe=*/true);
}

std::string sanitize_line(std::string_view s, std::size_t max_bytes) {
  return escape(s, max_bytes, /*quote_safe=*/false);
}

std::string quote_excerpt(std::string_view s, std::size_t max_bytes) {
  return "\"" + escape_excerpt(s, max_bytes) + "\"";
}

std::optional<std::string> file_name_problem(std::string_view name, std::size_t max_bytes) {
  if (name.empty()) return std::string("is empty");
  if (name.size() > max_bytes) {
    return "is " + std::to_string(name.size()) + " bytes long, at most " +
           std::to_string(max_bytes) + " (it becomes part of a file name)";
  }
  const auto alnum = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  };
  if (!alnum(name.front())) {
    return std::string("must start with a letter or a digit (it becomes part of a file name)");
  }
  for (char c : name) {
    if (!alnum(c) && c != '.' && c != '_' && c != '-') {
      return std::string(
          "may hold only letters, digits, '.', '_' and '-' (it becomes part of a file name)");
    }
  }
  return std::nullopt;
}

std::optional<std::string> label_problem(std::string_view name) {
  if (name.empty()) return std::string("is empty");
  if (name.size() > kMaxLabel) {
    return "is " + std::to_string(name.size()) + " bytes long, at most " +
           std::to_string(kMaxLabel);
  }
  for (char c : name) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7F) return std::string("holds a control character");
  }
  return std::nullopt;
}

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

}  // namespace blis
