#pragma once
// Decoding a blis/scenario/v1 document (docs/scenario.md) into
// the typed Scenario, with every default filled in. Problems come back as Diagnostics
// naming the JSON pointer, the value and what was expected; a document with errors yields
// no Scenario. Warnings are reported and do not stop a run.

#include <functional>
#include <optional>
#include <string>

#include "scenario/scenario.h"
#include "util/diagnostic.h"

namespace blis::scenario {

struct DecodeOptions {
  // Reads the file a trace names in `path`. The CLI passes a reader that resolves the path
  // relative to the scenario file; returns the text, or nullopt with *error set. Without a
  // reader (WASM, the web editor) a trace must be given inline as `csv`.
  std::function<std::optional<std::string>(const std::string& path, std::string* error)> read_file;
  // `blis run --epp-config FILE`: the router is policy "epp" with this EndpointPickerConfig
  // text, whatever the document's router section says (its scorers are dropped).
  std::optional<std::string> epp_config;
};

// Diagnostics one decode reports at most; beyond them, one "… and N more" at "/".
inline constexpr std::size_t kMaxDiagnostics = 50;
// Cuts `ds` to kMaxDiagnostics and appends the "… and N more" line (an error when any cut one
// is); every reader of a document from a stranger (scenario, sweep) reports through it.
void cap_diagnostics(Diagnostics& ds);

struct DecodeResult {
  std::optional<Scenario> scenario;  // set when there is no error
  Diagnostics diagnostics;
  bool malformed_json = false;  // the text is not JSON (the CLI exits 1, not 2)
};

DecodeResult decode_scenario(const std::string& json_text, const DecodeOptions& options = {});

// Every diagnostic of `json_text` (errors and warnings), without file access: the entry
// point the WASM API and the web editor use ({pointer, message, severity}).
Diagnostics validate_scenario_text(const std::string& json_text);

}  // namespace blis::scenario
