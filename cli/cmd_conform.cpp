// blis conform INPUT.json [--out FILE]: replays a golden-trace input through the vLLM engine
// core and prints the step trace (tests/conformance/data/FORMAT.md), or, for an input with a
// "metrics" key, the ext trace with the Prometheus text (tests/conformance/data/ext/FORMAT.md).

#include <cstdio>
#include <fstream>

#include "command_registry.h"
#include "conform/conform.h"
#include "conform/conform_ext.h"
#include "file_access.h"
#include "util/diagnostic.h"

namespace blis::cli::cmd_conform {
namespace {

int run_conform(const std::vector<std::string>& args) {
  std::string input;
  std::string out_path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "blis conform: --out needs a file name\n");
        return 2;
      }
      out_path = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::fprintf(stderr, "blis conform: unknown option '%s'\n", args[i].c_str());
      return 2;
    } else if (input.empty()) {
      input = args[i];
    } else {
      std::fprintf(stderr, "blis conform: only one input file may be given\n");
      return 2;
    }
  }
  if (input.empty()) {
    std::fprintf(stderr, "usage: blis conform INPUT.json [--out FILE]\n");
    return 2;
  }
  const auto text = read_named_file("blis conform", input);
  if (!text) return 1;
  // An input with "metrics" is the ext format (tests/conformance/data/ext/FORMAT.md).
  const std::string& doc = *text;
  const vllm::ConformOutcome outcome =
      vllm::is_ext_input(doc) ? vllm::run_ext_conformance(doc) : vllm::run_conformance(doc);
  if (!outcome.ok) {
    for (const Diagnostic& d : outcome.diagnostics) {
      std::fprintf(stderr, "%s: %s\n", input.c_str(), format_diagnostic(d).c_str());
    }
    return 2;
  }
  if (out_path.empty()) {
    std::fwrite(outcome.trace_json.data(), 1, outcome.trace_json.size(), stdout);
    std::fputc('\n', stdout);
    return 0;
  }
  std::ofstream out(out_path, std::ios::binary);
  out << outcome.trace_json << '\n';
  if (!out) {
    std::fprintf(stderr, "blis conform: cannot write '%s'\n", out_path.c_str());
    return 1;
  }
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("conform", "replay a golden vLLM trace input through the engine",
                      "usage: blis conform INPUT.json [--out FILE]\n"
                      "  Prints the engine's step trace as JSON (format: "
                      "tests/conformance/data/FORMAT.md; an input with \"metrics\" gives the\n"
                      "  ext trace with the vllm:* Prometheus text: "
                      "tests/conformance/data/ext/FORMAT.md).\n"
                      "  Exit 2 on invalid input (each problem named by its JSON pointer).",
                      run_conform);

}  // namespace blis::cli::cmd_conform
