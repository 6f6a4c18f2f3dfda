// blis version [--json]: the project's version and the engine provenance.

#include <cstdio>

#include <nlohmann/json.hpp>

#include "blis_version.h"
#include "command_registry.h"

namespace blis::cli {
namespace {

int run_version(const std::vector<std::string>& args) {
  bool json = false;
  for (const auto& a : args) {
    if (a == "--json") {
      json = true;
    } else {
      std::fprintf(stderr, "blis version: unknown argument '%s'\n", a.c_str());
      return 2;
    }
  }
  if (json) {
    nlohmann::json out = {{"blis", BLIS_VERSION}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("blis %s\n", BLIS_VERSION);
  }
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("version", "print the version (and engine provenance with --json)",
                      "usage: blis version [--json]", run_version);

}  // namespace blis::cli
