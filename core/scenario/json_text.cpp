#include "scenario/json_text.h"

#include <set>
#include <vector>

#include "util/text.h"

namespace blis::scenario {

void line_and_column(const std::string& text, std::size_t offset, std::size_t& line,
                     std::size_t& column) {
  line = 1;
  column = 1;
  const std::size_t end = offset < text.size() ? offset : text.size();
  for (std::size_t i = 0; i < end; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      ++line;
      column = 1;
    } else if ((c & 0xC0) != 0x80) {  // count UTF-8 characters, not continuation bytes
      ++column;
    }
  }
}

namespace {

std::string at(const std::string& text, std::size_t offset) {
  std::size_t line = 0, column = 0;
  line_and_column(text, offset, line, column);
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// Byte offset where nesting first exceeds `max_depth`, if it does. Strings are skipped, so
// brackets inside them do not count; the scan is linear and uses no recursion.
std::optional<std::size_t> too_deep(const std::string& text, std::size_t max_depth) {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > max_depth) return i;
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: "
// prefix (we compute the position ourselves, counting characters).
// Long tokens (a 10000-digit number, a megabyte string) are cut so the message stays a line,
// and escaped: nlohmann quotes the bytes it last read raw (a control byte, half a UTF-8
// character), and the CLI prints this message as it is.
std::string detail_of(const std::string& what) {
  std::string d = what;
  const auto col = what.find("column ");
  const auto colon = col == std::string::npos ? std::string::npos : what.find(": ", col);
  if (colon != std::string::npos) {
    d = what.substr(colon + 2);
  } else if (const auto bracket = what.find("] "); bracket != std::string::npos) {
    d = what.substr(bracket + 2);
  }
  constexpr std::size_t kMax = 160;
  return sanitize_line(d, kMax);
}

// A DOM builder that records the first error instead of throwing: nlohmann reports
// syntax errors and number overflow (out_of_range 406, e.g. 1e400) through parse_error,
// with the byte position either way. It also refuses a key given twice in one object
// (nlohmann keeps the last one silently, so a document could say two things at once), naming
// the object by its JSON pointer. sax_parse calls these members on the Builder type, so they
// hide the base's.
struct Builder : nlohmann::detail::json_sax_dom_parser<nlohmann::json> {
  using Base = nlohmann::detail::json_sax_dom_parser<nlohmann::json>;
  explicit Builder(nlohmann::json& j) : Base(j, false) {}
  template <class Exception>
  bool parse_error(std::size_t position, const std::string&, const Exception& ex) {
    failed = true;
    where = position;
    what = ex.what();
    return false;
  }
  bool null() { return value() && Base::null(); }
  bool boolean(bool v) { return value() && Base::boolean(v); }
  bool number_integer(std::int64_t v) { return value() && Base::number_integer(v); }
  bool number_unsigned(std::uint64_t v) { return value() && Base::number_unsigned(v); }
  bool number_float(double v, const std::string& s) { return value() && Base::number_float(v, s); }
  bool string(std::string& v) { return value() && Base::string(v); }
  bool start_object(std::size_t n) {
    if (!value()) return false;
    frames.push_back({false, 0, {}, {}});
    return Base::start_object(n);
  }
  bool start_array(std::size_t n) {
    if (!value()) return false;
    frames.push_back({true, 0, {}, {}});
    return Base::start_array(n);
  }
  bool end_object() {
    frames.pop_back();
    return Base::end_object();
  }
  bool end_array() {
    frames.pop_back();
    return Base::end_array();
  }
  bool key(std::string& k) {
    Frame& f = frames.back();
    if (!f.keys.insert(k).second) {
      duplicate = Diagnostic{pointer(), "the key " + quote_excerpt(k) +
                                            " appears twice in this object (which one is meant?)"};
      return false;
    }
    f.key = k;
    return Base::key(k);
  }

  struct Frame {
    bool array;
    std::size_t elements;  // arrays: values seen so far
    std::string key;       // objects: the current key
    std::set<std::string> keys;
  };
  std::vector<Frame> frames;
  bool failed = false;
  std::size_t where = 0;
  std::string what;
  std::optional<Diagnostic> duplicate;

 private:
  // Counts a value in its array (so pointers name the element).
  bool value() {
    if (!frames.empty() && frames.back().array) ++frames.back().elements;
    return true;
  }
  std::string pointer() const {
    std::string p;
    for (std::size_t i = 0; i + 1 < frames.size(); ++i) {
      p = frames[i].array ? json_pointer_append(p, frames[i].elements - 1)
                          : json_pointer_append(p, frames[i].key);
    }
    return p;
  }
};

// Where the first NUL byte is: nlohmann's lexer ends the input there, so "{}\0garbage" would
// read as "{}".
std::optional<std::size_t> nul_byte(const std::string& text) {
  const auto i = text.find('\0');
  if (i == std::string::npos) return std::nullopt;
  return i;
}

}  // namespace

JsonText parse_json_text(const std::string& text, std::size_t max_depth) {
  JsonText out;
  if (const auto deep = too_deep(text, max_depth)) {
    out.error = Diagnostic{
        "", "nesting deeper than " + std::to_string(max_depth) + " levels at " + at(text, *deep) +
                " (no scenario needs that; is the document truncated or generated wrong?)"};
    return out;
  }
  if (const auto nul = nul_byte(text)) {
    out.error = Diagnostic{"", "a NUL byte at " + at(text, *nul) +
                                   " (a scenario is text; is the file binary or truncated?)"};
    return out;
  }
  Builder builder(out.value);
  const bool ok = nlohmann::json::sax_parse(text, &builder);
  if (builder.duplicate) {
    out.error = builder.duplicate;
    out.duplicate_key = true;
    out.value = nullptr;
  } else if (!ok || builder.failed) {
    const std::size_t offset = builder.where > 0 ? builder.where - 1 : 0;
    out.error =
        Diagnostic{"", "malformed JSON at " + at(text, offset) + ": " + detail_of(builder.what)};
    out.value = nullptr;
  }
  return out;
}

}  // namespace blis::scenario
