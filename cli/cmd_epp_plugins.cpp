// blis epp-plugins [--update-docs DIR]: the llm-d EPP plugins the simulator knows, with their
// parameters, status and upstream source (core/cluster/epp/plugins.h).

#include <cstdio>

#include "cluster/epp/plugins.h"
#include "command_registry.h"
#include "generated_block.h"

namespace blis::cli::cmd_epp_plugins {
namespace {

namespace epp = cluster::epp;

// Rewrites the generated block of DIR/docs/llm-d-parity.md.
int update_parity_doc(const std::string& dir) {
  const char* cmd = "blis epp-plugins";
  const std::string path = dir + "/docs/llm-d-parity.md";
  const auto md = replace_generated_block(cmd, path, epp::kParityBegin, epp::kParityEnd,
                                          epp::parity_markdown());
  return md && write_generated_file(cmd, path, *md) ? 0 : 1;
}

int run_epp_plugins(const std::vector<std::string>& args) {
  if (args.size() == 2 && args[0] == "--update-docs") return update_parity_doc(args[1]);
  if (!args.empty()) {
    std::fprintf(stderr, "blis epp-plugins: unknown argument '%s'\n", args[0].c_str());
    return 2;
  }
  const std::string text = epp::parity_markdown();
  std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND(
    "epp-plugins", "list the llm-d EPP plugins router policy epp accepts, with their status",
    "usage: blis epp-plugins [--update-docs DIR]\n"
    "  Prints the llm-d EndpointPickerConfig plugin matrix (markdown): each plugin type with\n"
    "  its parameters, whether the simulator supports, approximates, accepts without effect\n"
    "  or refuses it, and the upstream file of its rule.\n"
    "  --update-docs DIR rewrites the generated table of DIR/docs/llm-d-parity.md.",
    run_epp_plugins);

}  // namespace blis::cli::cmd_epp_plugins
