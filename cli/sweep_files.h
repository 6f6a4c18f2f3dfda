#pragma once
// What `blis sweep`, `blis sweep-point` and `blis sweep-merge` share: reading a sweep
// document (its base through the scenario file reader), and writing a sweep's results
// (docs/sweeps.md): DIR/sweep.json, DIR/points.jsonl, DIR/ranking.json, DIR/ranking.md.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario_decode.h"
#include "sweep/sweep.h"

namespace blis::cli {

struct LoadedSweep {
  sweep::Sweep sweep;
  scenario::DecodeOptions scenario_options;  // files the base scenario names (trace paths)
};

// Reads and decodes SWEEP; prints diagnostics as "<pointer>: <message>" on stderr prefixed
// with `command`. nullopt with *exit_code 1 (unreadable, not JSON) or 2 (invalid). Unless
// `anywhere`, the base and the files it names must be inside the sweep's folder.
std::optional<LoadedSweep> load_sweep(const std::string& command, const std::filesystem::path& path,
                                      bool anywhere, int* exit_code);

// Writes the files of the rows given (sorted by index here). false after printing why.
bool write_sweep_results(const std::string& command, const std::filesystem::path& dir,
                         const sweep::Sweep& s, std::vector<nlohmann::ordered_json> rows);

bool write_file(const std::string& command, const std::filesystem::path& path,
                const std::string& text);

}  // namespace blis::cli
