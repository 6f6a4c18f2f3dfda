// blis metrics-manifest [--markdown] [--out FILE] [--update-docs DIR]: every vllm:* family
// vLLM defines at the modelled upstream commit, with the class of its simulated value
// (core/engine/vllm/metrics/manifest.h).

#include <cstdio>

#include "command_registry.h"
#include "engine/vllm/metrics/manifest.h"
#include "generated_block.h"

namespace blis::cli::cmd_metrics_manifest {
namespace {

namespace m = vllm::metrics;

// Rewrites docs/metrics-manifest.json and the generated block of docs/metrics.md under `dir`.
int update_docs(const std::string& dir) {
  const char* cmd = "blis metrics-manifest";
  const std::string md_path = dir + "/docs/metrics.md";
  const auto md = replace_generated_block(cmd, md_path, m::kManifestBegin, m::kManifestEnd,
                                          m::manifest_markdown());
  if (!md) return 1;
  return write_generated_file(cmd, dir + "/docs/metrics-manifest.json", m::manifest_json()) &&
                 write_generated_file(cmd, md_path, *md)
             ? 0
             : 1;
}

int run_metrics_manifest(const std::vector<std::string>& args) {
  bool markdown = false;
  std::string out_path;
  std::string docs_dir;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--markdown") {
      markdown = true;
    } else if (args[i] == "--out" || args[i] == "--update-docs") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "blis metrics-manifest: %s needs a path\n", args[i].c_str());
        return 2;
      }
      (args[i] == "--out" ? out_path : docs_dir) = args[i + 1];
      ++i;
    } else {
      std::fprintf(stderr, "blis metrics-manifest: unknown argument '%s'\n", args[i].c_str());
      return 2;
    }
  }
  if (!docs_dir.empty()) return update_docs(docs_dir);
  const std::string text = markdown ? m::manifest_markdown() : m::manifest_json();
  if (out_path.empty()) {
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  return write_generated_file("blis metrics-manifest", out_path, text) ? 0 : 1;
}

}  // namespace

BLIS_REGISTER_COMMAND(
    "metrics-manifest", "list every vllm:* family vLLM defines, with how it is simulated",
    "usage: blis metrics-manifest [--markdown] [--out FILE] [--update-docs DIR]\n"
    "  Prints the manifest as JSON (docs/metrics-manifest.json), or with --markdown the table\n"
    "  docs/metrics.md shows. Each family is exact (the engine's decisions decide it), derived\n"
    "  (it needs simulated time or transfer outcomes) or unavailable (it needs real hardware\n"
    "  or a process the simulation does not have), with the reason.\n"
    "  --update-docs DIR rewrites DIR/docs/metrics-manifest.json and the generated table of\n"
    "  DIR/docs/metrics.md.",
    run_metrics_manifest);

}  // namespace blis::cli::cmd_metrics_manifest
