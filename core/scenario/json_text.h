#pragma once
// Parsing the scenario text: malformed JSON is reported with its line and column, and
// nesting deeper than any scenario needs is refused before a DOM is built, so no input can
// exhaust the stack (natively or in WASM). A NUL byte (nlohmann would stop reading there and
// ignore what follows) and a key given twice in one object are errors too.

#include <cstddef>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "util/diagnostic.h"

namespace blis::scenario {

inline constexpr std::size_t kMaxJsonDepth = 64;

struct JsonText {
  nlohmann::json value;
  std::optional<Diagnostic> error;  // pointer "" (the document), message with line and column
  // The error is a key given twice in one object (valid JSON syntax, refused as a scenario):
  // the pointer names that object.
  bool duplicate_key = false;
};

JsonText parse_json_text(const std::string& text, std::size_t max_depth = kMaxJsonDepth);

// 1-based line and column (in characters) of byte offset `offset` of `text`.
void line_and_column(const std::string& text, std::size_t offset, std::size_t& line,
                     std::size_t& column);

}  // namespace blis::scenario
