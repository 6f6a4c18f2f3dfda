#include "util/diagnostic.h"

#include "util/text.h"

namespace blis {

std::string format_diagnostic(const Diagnostic& d) {
  // One line whatever the document held: a pointer made of a hostile key, or a message that
  // forgot to escape, cannot forge a second line or steer the terminal (util/text.h).
  std::string out = d.severity == Severity::kWarning ? "warning: " : "";
  out += d.pointer.empty() ? "/" : sanitize_line(d.pointer, 200);
  out += ": ";
  out += sanitize_line(d.message, 1000);
  return out;
}

std::string json_pointer_append(const std::string& pointer, const std::string& token) {
  std::string out = pointer;
  out += '/';
  for (char c : token) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string json_pointer_append(const std::string& pointer, std::size_t index) {
  return pointer + "/" + std::to_string(index);
}

}  // namespace blis
