// blis version [--json]: the project's version and the engine provenance.

#include <cstdio>

#include <nlohmann/json.hpp>

#include "blis_version.h"
#include "command_registry.h"
#include "engine/vllm/provenance.h"

namespace blis::cli::cmd_version {
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
  // The engine's provenance: the vLLM release it models and the upstream commit its
  // behaviour was checked against (tests/conformance).
  const engine::Provenance p = vllm::engine_provenance();
  if (json) {
    nlohmann::json out = {{"blis", BLIS_VERSION},
                          {"engine",
                           {{"kind", p.kind},
                            {"release", p.release},
                            {"upstream_repo", p.upstream_repo},
                            {"upstream_commit", p.upstream_commit}}}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    std::printf("blis %s (engine: %s %s, checked against %s@%.12s)\n", BLIS_VERSION, p.kind.c_str(),
                p.release.c_str(), p.upstream_repo.c_str(), p.upstream_commit.c_str());
  }
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("version", "print the version (and engine provenance with --json)",
                      "usage: blis version [--json]", run_version);

}  // namespace blis::cli::cmd_version
