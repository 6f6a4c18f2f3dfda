// blis validate SCENARIO: decode a scenario exactly as `blis run` would and report.
//   exit 0: prints "ok" (warnings on stderr as "warning: <pointer>: <message>")
//   exit 2: one "<pointer>: <message>" line per error on stdout (warnings on stderr)
//   exit 1: the file cannot be read, or is not JSON (message with line and column)

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>

#include "command_registry.h"
#include "scenario/scenario_decode.h"

namespace blis::cli {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> read_text(const fs::path& path, std::string* error) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    *error = "is a directory";
    return std::nullopt;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = std::strerror(errno);
    return std::nullopt;
  }
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) {
    *error = "read error";
    return std::nullopt;
  }
  return buf.str();
}

int run_validate(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    std::fprintf(stderr, "usage: blis validate SCENARIO\n");
    return 2;
  }
  const fs::path file = args[0];
  std::string error;
  const auto text = read_text(file, &error);
  if (!text) {
    std::fprintf(stderr, "blis validate: cannot read '%s': %s\n", file.string().c_str(),
                 error.c_str());
    return 1;
  }
  scenario::DecodeOptions options;
  // trace.path is relative to the scenario file.
  const fs::path base = file.parent_path();
  options.read_file = [base](const std::string& path, std::string* err) {
    const fs::path p = fs::path(path).is_absolute() ? fs::path(path) : base / path;
    return read_text(p, err);
  };
  const scenario::DecodeResult result = scenario::decode_scenario(*text, options);
  if (result.malformed_json) {
    for (const auto& d : result.diagnostics) {
      std::fprintf(stderr, "blis validate: %s: %s\n", file.string().c_str(), d.message.c_str());
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
    "usage: blis validate SCENARIO\n\n"
    "Decodes SCENARIO (schema blis/scenario/v1) as `blis run` would.\n"
    "exit 0: prints \"ok\"; warnings go to stderr as \"warning: <pointer>: <message>\"\n"
    "exit 2: prints one \"<pointer>: <message>\" line per error\n"
    "exit 1: the file cannot be read or is not JSON (with line and column)",
    run_validate);

}  // namespace blis::cli
