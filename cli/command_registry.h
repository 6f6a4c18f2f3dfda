#pragma once
// The blis subcommands. Each cmd_<name>.cpp defines one in namespace blis::cli::cmd_<name>
// (the CLI is a unity build: each command's kUsage, Options and helpers stay its own) and
// registers it with BLIS_REGISTER_COMMAND; main() looks the name up here.
//
// Exit codes, for every command: 0 success, 1 failure (missing file, not JSON, I/O),
// 2 invalid input (usage errors and scenario validation errors).

#include <map>
#include <string>
#include <vector>

namespace blis::cli {

using CommandFn = int (*)(const std::vector<std::string>& args);

struct Command {
  std::string summary;  // one line for `blis help`
  std::string usage;    // full usage text
  CommandFn run;
};

std::map<std::string, Command>& command_registry();

struct CommandRegistrar {
  CommandRegistrar(const char* name, const char* summary, const char* usage, CommandFn fn) {
    command_registry()[name] = Command{summary, usage, fn};
  }
};

#define BLIS_REGISTER_COMMAND(name, summary, usage, fn) \
  static ::blis::cli::CommandRegistrar blis_command_registrar_##fn(name, summary, usage, fn)

}  // namespace blis::cli
