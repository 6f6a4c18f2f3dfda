#include "util/diagnostic.h"

namespace blis {

std::string format_diagnostic(const Diagnostic& d) {
  std::string out = d.severity == Severity::kWarning ? "warning: " : "";
  out += d.pointer.empty() ? "/" : d.pointer;
  out += ": ";
  out += d.message;
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
