// blis: the native command line. Dispatches to the registered subcommands.

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include "blis_version.h"
#include "command_registry.h"
#include "util/text.h"

namespace blis::cli {

std::map<std::string, Command>& command_registry() {
  static std::map<std::string, Command> registry;
  return registry;
}

namespace {

void print_help() {
  std::printf("blis %s: an LLM-serving cluster simulator with vLLM's engine\n\n", BLIS_VERSION);
  std::printf("usage: blis <command> [args]\n\ncommands:\n");
  for (const auto& [name, cmd] : command_registry()) {
    std::printf("  %-10s %s\n", name.c_str(), cmd.summary.c_str());
  }
  std::printf("\n`blis help <command>` shows a command's usage.\n");
}

}  // namespace
}  // namespace blis::cli

int main(int argc, char** argv) {
  using namespace blis::cli;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "help" || args[0] == "--help" || args[0] == "-h") {
    if (args.size() >= 2) {
      const auto it = command_registry().find(args[1]);
      if (it == command_registry().end()) {
        std::fprintf(stderr, "blis: unknown command %s\n", blis::quote_excerpt(args[1]).c_str());
        return 2;
      }
      std::printf("%s\n", it->second.usage.c_str());
      return 0;
    }
    print_help();
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") args[0] = "version";
  const auto it = command_registry().find(args[0]);
  if (it == command_registry().end()) {
    std::fprintf(stderr, "blis: unknown command %s (try `blis help`)\n",
                 blis::quote_excerpt(args[0]).c_str());
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  // `blis COMMAND --help` (or -h) anywhere in its arguments: the command's usage, exit 0.
  for (const std::string& a : rest) {
    if (a == "--help" || a == "-h") {
      std::printf("%s\n", it->second.usage.c_str());
      return 0;
    }
  }
  // No exception leaves main (an uncaught one aborts with SIGABRT): every failure is a
  // message and exit status 1.
  try {
    return it->second.run(rest);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "blis %s: out of memory (the input asks for more than this machine has)\n",
                 args[0].c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "blis %s: %s\n", args[0].c_str(),
                 blis::escape_excerpt(e.what(), 300).c_str());
  } catch (...) {
    std::fprintf(stderr, "blis %s: internal error (unknown exception)\n", args[0].c_str());
  }
  return 1;
}
