// blis validate SCENARIO: decode a scenario exactly as `blis run` would and report.
//   exit 0: prints "ok" (warnings on stderr as "warning: <pointer>: <message>")
//   exit 2: one "<pointer>: <message>" line per error on stdout (warnings on stderr)
//   exit 1: the file cannot be read, or is not JSON (message with line and column)

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>

#include "cluster/validate_scenario.h"
#include "command_registry.h"
#include "file_access.h"
#include "scenario/scenario_decode.h"
#include "util/text.h"

namespace blis::cli::cmd_validate {
namespace {

namespace fs = std::filesystem;

int run_validate(const std::vector<std::string>& args) {
  std::string scenario;
  bool anywhere = false;
  for (const auto& a : args) {
    if (a == "--read-anywhere") {
      anywhere = true;
    } else if (a.empty() || a[0] == '-' || !scenario.empty()) {
      std::fprintf(stderr, "usage: blis validate SCENARIO [--read-anywhere]\n");
      return 2;
    } else {
      scenario = a;
    }
  }
  if (scenario.empty()) {
    std::fprintf(stderr, "usage: blis validate SCENARIO [--read-anywhere]\n");
    return 2;
  }
  const fs::path file = scenario;
  const std::string shown = quote_excerpt(file.string(), 200);
  const auto text = read_named_file("blis validate", file);
  if (!text) return 1;
  scenario::DecodeOptions options;
  // trace.path is relative to the scenario file and, by default, inside its folder.
  options.read_file = scenario_file_reader(file, anywhere);
  const scenario::DecodeResult result = cluster::validate_scenario(*text, options);
  if (result.malformed_json) {
    for (const auto& d : result.diagnostics) {
      std::fprintf(stderr, "blis validate: %s: %s\n", shown.c_str(), d.message.c_str());
    }
    return 1;
  }
  for (const auto& d : result.diagnostics) {
    if (d.severity == Severity::kWarning)
      std::fprintf(stderr, "%s\n", format_diagnostic(d).c_str());
  }
  if (!result.scenario) {
    for (const auto& d : result.diagnostics) {
      if (d.severity == Severity::kError) std::printf("%s\n", format_diagnostic(d).c_str());
    }
    return 2;
  }
  std::printf("ok\n");
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND(
    "validate", "check a scenario file against the rules of its vLLM release",
    "usage: blis validate SCENARIO [--read-anywhere]\n\n"
    "Decodes SCENARIO (schema blis/scenario/v1) as `blis run` would.\n"
    "--read-anywhere: let the scenario name files outside its own folder\n"
    "exit 0: prints \"ok\"; warnings go to stderr as \"warning: <pointer>: <message>\"\n"
    "exit 2: prints one \"<pointer>: <message>\" line per error\n"
    "exit 1: the file cannot be read or is not JSON (with line and column)",
    run_validate);

}  // namespace blis::cli::cmd_validate
