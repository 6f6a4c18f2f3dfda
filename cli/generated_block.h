#pragma once
// The generated tables of docs/ (the metrics manifest, the llm-d parity matrix) sit between a
// begin and an end marker in a hand-written page: the one way `--update-docs` rewrites them.
#include <optional>
#include <string>

namespace blis::cli {

// The text of the file at `path` with everything from `begin` through `end` (and the newline
// after it) replaced by `block`; or nothing, after "COMMAND: ..." on stderr, when the file
// cannot be read or lacks the markers.
std::optional<std::string> replace_generated_block(const char* command, const std::string& path,
                                                   const std::string& begin, const std::string& end,
                                                   const std::string& block);

// Writes `text` to `path`; false (after "COMMAND: cannot write ...") on failure.
bool write_generated_file(const char* command, const std::string& path, const std::string& text);

}  // namespace blis::cli
