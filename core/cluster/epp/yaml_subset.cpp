#include "cluster/epp/yaml_subset.h"

#include <cctype>
#include <cstdlib>
#include <utility>
#include <vector>

#include "util/diagnostic.h"
#include "util/text.h"

namespace blis::cluster::epp {
namespace {

using nlohmann::json;

struct Line {
  std::int32_t no = 0;
  std::int32_t indent = 0;  // columns before `text`
  std::string text;         // comment and trailing blanks removed
};

struct YamlError {
  YamlPos at;
  std::string message;
};

// Drops a comment: '#' outside quotes, at the start or after a blank.
std::string strip_comment(const std::string& s) {
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote != 0) {
      if (c == '\\' && quote == '"' && i + 1 < s.size()) {
        ++i;
      } else if (c == quote) {
        quote = 0;
      }
    } else if (c == '"' || c == '\'') {
      if (i == 0 || s[i - 1] == ' ' || s[i - 1] == '[' || s[i - 1] == '{' || s[i - 1] == ',' ||
          s[i - 1] == ':' || s[i - 1] == '-')
        quote = c;
    } else if (c == '#' && (i == 0 || s[i - 1] == ' ')) {
      return s.substr(0, i);
    }
  }
  return s;
}

std::string rtrim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.pop_back();
  return s;
}

std::string trim(const std::string& s) {
  std::size_t b = 0;
  while (b < s.size() && s[b] == ' ') ++b;
  return rtrim(s.substr(b));
}

bool is_item(const std::string& t) {
  return t == "-" || t.rfind("- ", 0) == 0;
}

// YAML 1.2 core schema: the plain scalars that are not strings.
json plain_scalar(const std::string& s) {
  if (s.empty() || s == "~" || s == "null" || s == "Null" || s == "NULL") return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  std::size_t i = 0;
  if (s[i] == '-' || s[i] == '+') ++i;
  std::size_t digits = 0, frac = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  bool is_float = false;
  if (i < s.size() && s[i] == '.') {
    is_float = true;
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++frac;
  }
  if (digits + frac > 0 && i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    std::size_t j = i + 1;
    if (j < s.size() && (s[j] == '-' || s[j] == '+')) ++j;
    std::size_t exp = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++exp;
    if (exp > 0) {
      is_float = true;
      i = j;
    }
  }
  if (i != s.size() || digits + frac == 0 || digits > 18) return s;
  if (!is_float) return std::strtoll(s.c_str(), nullptr, 10);
  return std::strtod(s.c_str(), nullptr);
}

class Parser {
 public:
  Parser(std::vector<Line> lines, std::vector<std::string> raw)
      : lines_(std::move(lines)), raw_(std::move(raw)) {}

  bool run(YamlResult& out, YamlError& err) {
    if (lines_.empty()) {
      out.value = nullptr;
      return true;
    }
    std::size_t i = 0;
    if (!block(i, lines_[0].indent, "", 0, out.value)) {
      err = err_;
      return false;
    }
    if (i < lines_.size()) {
      err = {{lines_[i].no, lines_[i].indent + 1},
             "unexpected indentation (this line belongs to no mapping or sequence above)"};
      return false;
    }
    out.positions = std::move(pos_);
    return true;
  }

 private:
  std::vector<Line> lines_;
  std::vector<std::string> raw_;  // every line of the text as written (line n at n - 1)
  std::map<std::string, YamlPos> pos_;
  YamlError err_;

  bool fail(const Line& l, std::int32_t col_offset, const std::string& msg) {
    err_ = {{l.no, l.indent + 1 + col_offset}, msg};
    return false;
  }

  bool block(std::size_t& i, std::int32_t indent, const std::string& ptr, int depth, json& out) {
    if (depth > kMaxYamlDepth) return fail(lines_[i], 0, "nesting deeper than 32 levels");
    const Line& l = lines_[i];
    pos_[ptr] = {l.no, l.indent + 1};
    if (is_item(l.text)) return sequence(i, indent, ptr, depth, out);
    std::size_t colon = 0;
    if (key_end(l.text, colon)) return mapping(i, indent, ptr, depth, out);
    if (!scalar(l, 0, l.text, out)) return false;
    ++i;
    return true;
  }

  bool sequence(std::size_t& i, std::int32_t indent, const std::string& ptr, int depth, json& out) {
    out = json::array();
    while (i < lines_.size() && lines_[i].indent == indent && is_item(lines_[i].text)) {
      const std::string item_ptr = json_pointer_append(ptr, out.size());
      Line& l = lines_[i];
      std::size_t k = 1;
      while (k < l.text.size() && l.text[k] == ' ') ++k;
      json item;
      if (k >= l.text.size()) {
        pos_[item_ptr] = {l.no, l.indent + 1};
        ++i;
        if (i < lines_.size() && lines_[i].indent > indent) {
          if (!block(i, lines_[i].indent, item_ptr, depth + 1, item)) return false;
        }
      } else {
        // The item's content starts on the dash's line: read it as if indented there.
        l.indent += static_cast<std::int32_t>(k);
        l.text = l.text.substr(k);
        if (!block(i, l.indent, item_ptr, depth + 1, item)) return false;
      }
      out.push_back(std::move(item));
    }
    if (i < lines_.size() && lines_[i].indent > indent)
      return fail(lines_[i], 0, "unexpected indentation inside a sequence");
    return true;
  }

  // Where a mapping key ends (the ':' of "key: value" or a trailing "key:"), if this is one.
  static bool key_end(const std::string& t, std::size_t& colon) {
    std::size_t i = 0;
    if (!t.empty() && (t[0] == '"' || t[0] == '\'')) {
      const char q = t[0];
      i = 1;
      while (i < t.size() && t[i] != q) i += (t[i] == '\\' && q == '"') ? 2 : 1;
      if (i >= t.size()) return false;
      ++i;
      if (i < t.size() && t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) {
        colon = i;
        return true;
      }
      return false;
    }
    if (!t.empty() && (t[0] == '[' || t[0] == '{')) return false;
    for (; i < t.size(); ++i) {
      if (t[i] == ':' && (i + 1 == t.size() || t[i + 1] == ' ')) {
        colon = i;
        return i > 0;
      }
    }
    return false;
  }

  bool mapping(std::size_t& i, std::int32_t indent, const std::string& ptr, int depth, json& out) {
    out = json::object();
    while (i < lines_.size() && lines_[i].indent == indent) {
      const Line& l = lines_[i];
      if (is_item(l.text)) return fail(l, 0, "a sequence item where a mapping key was expected");
      std::size_t colon = 0;
      if (!key_end(l.text, colon)) return fail(l, 0, "expected 'key: value'");
      json key;
      if (!scalar(l, 0, l.text.substr(0, colon), key)) return false;
      const std::string name = key.is_string() ? key.get<std::string>() : key.dump();
      if (out.contains(name))
        return fail(l, 0, "duplicate key " + quote_excerpt(name) + " in this mapping");
      const std::string child = json_pointer_append(ptr, name);
      pos_[child] = {l.no, l.indent + 1};
      const std::string rest = trim(l.text.substr(colon + 1));
      json val;
      if (is_block_scalar_header(rest)) {
        if (!block_scalar(i, indent, rest, val)) return false;
      } else if (!rest.empty()) {
        const auto at = static_cast<std::int32_t>(l.text.find(rest, colon + 1));
        if (!scalar(l, at, rest, val)) return false;
        ++i;
      } else {
        ++i;
        if (i < lines_.size() && lines_[i].indent > indent) {
          if (!block(i, lines_[i].indent, child, depth + 1, val)) return false;
        } else if (i < lines_.size() && lines_[i].indent == indent && is_item(lines_[i].text)) {
          // A sequence may sit at its key's own indentation.
          if (!sequence(i, indent, child, depth + 1, val)) return false;
        }
      }
      out[name] = std::move(val);
    }
    if (i < lines_.size() && lines_[i].indent > indent)
      return fail(lines_[i], 0, "unexpected indentation inside a mapping");
    return true;
  }

  // A literal (|) or folded (>) block scalar, with an optional chomping indicator (- strips
  // the final line breaks, + keeps them all, none keeps one); an explicit indentation
  // indicator is outside the subset.
  static bool is_block_scalar_header(const std::string& rest) {
    return rest == "|" || rest == "|-" || rest == "|+" || rest == ">" || rest == ">-" ||
           rest == ">+";
  }

  // Reads the block scalar introduced by lines_[i] (a key at `indent`): the raw lines after it
  // that are blank or indented more than the key, at the first content line's indentation.
  bool block_scalar(std::size_t& i, std::int32_t indent, const std::string& header, json& out) {
    const Line& key_line = lines_[i];
    std::size_t n = static_cast<std::size_t>(key_line.no);  // raw_ index of the next line
    std::int32_t content_indent = -1;
    std::vector<std::string> body;
    for (; n < raw_.size(); ++n) {
      const std::string& r = raw_[n];
      std::size_t ind = 0;
      while (ind < r.size() && r[ind] == ' ') ++ind;
      if (ind == r.size()) {  // a blank line belongs to the scalar (trailing ones: chomping)
        body.emplace_back();
        continue;
      }
      if (static_cast<std::int32_t>(ind) <= indent) break;
      if (content_indent < 0) content_indent = static_cast<std::int32_t>(ind);
      if (static_cast<std::int32_t>(ind) < content_indent) break;
      body.push_back(r.substr(static_cast<std::size_t>(content_indent)));
    }
    // Trailing blank lines are not content; they count only for "keep" chomping.
    std::size_t trailing = 0;
    while (!body.empty() && body.back().empty()) {
      body.pop_back();
      ++trailing;
    }
    const std::size_t last_no = key_line.no + body.size();  // the last content line's number
    std::string text;
    const bool folded = header[0] == '>';
    for (std::size_t k = 0; k < body.size(); ++k) {
      if (k > 0) {
        if (!folded) {
          text += '\n';
        } else if (body[k].empty()) {
          text += '\n';  // folding: each empty line is one line break, the break before it goes
        } else if (!body[k - 1].empty()) {
          // Adjacent lines join with a space, unless one is more indented (kept as written).
          text += body[k][0] != ' ' && body[k - 1][0] != ' ' ? ' ' : '\n';
        }
      }
      text += body[k];
    }
    const char chomp = header.size() > 1 ? header[1] : 0;
    if (!body.empty() && chomp != '-') text += '\n';
    if (chomp == '+') text.append(trailing, '\n');
    out = text;
    while (i < lines_.size() && static_cast<std::size_t>(lines_[i].no) <= last_no) ++i;
    return true;
  }

  bool quoted(const Line& l, std::int32_t col, const std::string& s, std::size_t& end,
              std::string& out) {
    const char q = s[0];
    out.clear();
    std::size_t i = 1;
    for (; i < s.size(); ++i) {
      const char c = s[i];
      if (q == '\'' && c == '\'') {
        if (i + 1 < s.size() && s[i + 1] == '\'') {
          out += '\'';
          ++i;
          continue;
        }
        break;
      }
      if (q == '"' && c == '"') break;
      if (q == '"' && c == '\\' && i + 1 < s.size()) {
        const char e = s[++i];
        if (e == 'n')
          out += '\n';
        else if (e == 't')
          out += '\t';
        else if (e == '"' || e == '\\' || e == '/')
          out += e;
        else
          return fail(l, col + static_cast<std::int32_t>(i), "unsupported escape in a string");
        continue;
      }
      out += c;
    }
    if (i >= s.size()) return fail(l, col, "unterminated quoted string (one line only)");
    end = i + 1;
    return true;
  }

  bool scalar(const Line& l, std::int32_t col, const std::string& s, json& out) {
    if (s.empty()) {
      out = nullptr;
      return true;
    }
    const char c = s[0];
    if (c == '"' || c == '\'') {
      std::size_t end = 0;
      std::string v;
      if (!quoted(l, col, s, end, v)) return false;
      if (!trim(s.substr(end)).empty())
        return fail(l, col + static_cast<std::int32_t>(end), "text after a quoted string");
      out = v;
      return true;
    }
    if (c == '[' || c == '{') return flow(l, col, s, out);
    if (c == '&' || c == '*' || c == '!' || c == '|' || c == '>' || c == '%' || c == '@' ||
        c == '`') {
      return fail(l, col,
                  std::string("'") + c +
                      "' (anchors, aliases, tags, block scalars) is outside the YAML subset read "
                      "here");
    }
    out = plain_scalar(s);
    return true;
  }

  // One-line flow collections of scalars: [a, b], {k: v}, [] and {}.
  bool flow(const Line& l, std::int32_t col, const std::string& s, json& out) {
    const char close = s[0] == '[' ? ']' : '}';
    if (s.back() != close)
      return fail(
          l, col,
          std::string("a flow collection must close with '") + close + "' on the same line");
    const std::string inner = trim(s.substr(1, s.size() - 2));
    out = s[0] == '[' ? json::array() : json::object();
    if (inner.empty()) return true;
    std::size_t start = 0;
    while (start <= inner.size()) {
      std::size_t comma = start;
      char q = 0;
      for (; comma < inner.size(); ++comma) {
        const char ch = inner[comma];
        if (q != 0) {
          if (ch == q) q = 0;
        } else if (ch == '"' || ch == '\'') {
          q = ch;
        } else if (ch == ',') {
          break;
        } else if (ch == '[' || ch == '{') {
          return fail(l, col, "nested flow collections are outside the YAML subset read here");
        }
      }
      const std::string part = trim(inner.substr(start, comma - start));
      if (close == ']') {
        json v;
        if (!scalar(l, col, part, v)) return false;
        out.push_back(std::move(v));
      } else {
        std::size_t colon = 0;
        if (!key_end(part, colon)) return fail(l, col, "expected 'key: value' in a flow mapping");
        json k, v;
        if (!scalar(l, col, part.substr(0, colon), k) ||
            !scalar(l, col, trim(part.substr(colon + 1)), v))
          return false;
        out[k.is_string() ? k.get<std::string>() : k.dump()] = std::move(v);
      }
      start = comma + 1;
      if (comma >= inner.size()) break;
    }
    return true;
  }
};

}  // namespace

YamlResult parse_yaml_subset(const std::string& text) {
  YamlResult r;
  auto fail = [&r](std::int32_t line, std::int32_t col, const std::string& msg) {
    r.error = "line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + msg;
    return r;
  };
  if (text.size() > kMaxYamlBytes) return fail(1, 1, "YAML text over 256 KiB");
  std::vector<Line> lines;
  std::vector<std::string> raw;
  std::size_t start = 0;
  std::int32_t no = 0;
  bool seen_doc = false;
  while (start <= text.size()) {
    std::size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    raw.push_back(text.substr(start, nl - start));
    if (!raw.back().empty() && raw.back().back() == '\r') raw.back().pop_back();  // CRLF text
    const std::string& line = raw.back();
    start = nl + 1;
    ++no;
    std::size_t ind = 0;
    while (ind < line.size() && line[ind] == ' ') ++ind;
    if (ind < line.size() && line[ind] == '\t')
      return fail(no, static_cast<std::int32_t>(ind) + 1,
                  "a tab in indentation (YAML allows spaces only)");
    const std::string body = rtrim(strip_comment(line.substr(ind)));
    if (body.empty()) {
      if (nl == text.size()) break;
      continue;
    }
    if (ind == 0 && (body == "---" || body == "...")) {
      if (body == "---" && (seen_doc || !lines.empty()))
        return fail(no, 1, "more than one YAML document");
      seen_doc = true;
      if (nl == text.size()) break;
      continue;
    }
    lines.push_back({no, static_cast<std::int32_t>(ind), body});
    if (nl == text.size()) break;
  }
  Parser p(std::move(lines), std::move(raw));
  YamlError err;
  if (!p.run(r, err)) return fail(err.at.line, err.at.column, err.message);
  r.ok = true;
  return r;
}

}  // namespace blis::cluster::epp
