#pragma once
// Diagnostic: one problem found in user input, located by a JSON pointer (RFC 6901), e.g.
// `/pools/0/engine/args/block_size: 17 is not accepted by vLLM 0.32.0 (accepted: ...)`.
// Errors stop a run; warnings are reported and do not. The CLI prints them one per line, the
// WASM API returns them as {pointer, message, severity}, the web editor marks them inline.

#include <string>
#include <vector>

namespace blis {

enum class Severity { kError, kWarning };

struct Diagnostic {
  std::string pointer;  // "" is the document root
  std::string message;
  Severity severity = Severity::kError;
};

using Diagnostics = std::vector<Diagnostic>;

inline bool has_errors(const Diagnostics& ds) {
  for (const auto& d : ds) {
    if (d.severity == Severity::kError) return true;
  }
  return false;
}

// "<pointer>: <message>" (the root pointer prints as "/"), prefixed "warning: " for warnings.
std::string format_diagnostic(const Diagnostic& d);

// Appends a reference token to a JSON pointer, escaping '~' and '/' (RFC 6901).
std::string json_pointer_append(const std::string& pointer, const std::string& token);
std::string json_pointer_append(const std::string& pointer, std::size_t index);

}  // namespace blis
