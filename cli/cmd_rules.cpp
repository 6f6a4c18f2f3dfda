// blis rules --markdown: docs/rules.md, generated from the rules packs.

#include <cstdio>

#include "command_registry.h"
#include "rules/rules.h"

namespace blis::cli::cmd_rules {
namespace {

int run_rules(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0] != "--markdown") {
    std::fprintf(stderr, "usage: blis rules --markdown\n");
    return 2;
  }
  const std::string md = rules::rules_markdown();
  std::fwrite(md.data(), 1, md.size(), stdout);
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("rules", "print docs/rules.md, generated from the rules packs",
                      "usage: blis rules --markdown   (blis rules --markdown > docs/rules.md)",
                      run_rules);

}  // namespace blis::cli::cmd_rules
