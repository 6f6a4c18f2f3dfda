#pragma once
// A small, bounded parser for the YAML subset EPP configuration files use (llm-d
// deploy/config/*.yaml): block mappings and sequences by indentation, `- ` items (a mapping
// may start on the dash's line), plain / single- / double-quoted scalars, `#` comments, the
// flow forms `[]`, `{}` and `[a, b]` of plain scalars, and `---` / `...` document markers
// around one document. Anchors, aliases, tags, block scalars (`|`, `>`), multi-line flow
// collections and multiple documents are refused with an error naming the line and column.
// Plain scalars become JSON booleans (true/false), null (null, ~, empty), numbers (when the
// whole scalar is a decimal or float) or strings, as YAML 1.2's core schema reads them.
//
// No new library: the output is an nlohmann::json value, plus where each value was written
// (its JSON pointer -> line and column), so later checks can point at the YAML text.

#include <cstdint>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace blis::cluster::epp {

struct YamlPos {
  std::int32_t line = 0, column = 0;  // 1-based
};

// Bounds: text longer than this, deeper nesting or more lines are refused.
inline constexpr std::size_t kMaxYamlBytes = 256 * 1024;
inline constexpr std::int32_t kMaxYamlDepth = 32;

struct YamlResult {
  bool ok = false;
  nlohmann::json value;
  std::map<std::string, YamlPos> positions;  // JSON pointer -> where its value starts
  std::string error;                         // "line L, column C: ..." when !ok
};

YamlResult parse_yaml_subset(const std::string& text);

}  // namespace blis::cluster::epp
