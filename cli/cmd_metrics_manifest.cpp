// blis metrics-manifest [--markdown] [--out FILE] [--update-docs DIR]: every vllm:* family
// vLLM defines at the modelled upstream commit, with the class of its simulated value
// (core/engine/vllm/metrics/manifest.h).

#include <cstdio>
#include <fstream>
#include <sstream>

#include "command_registry.h"
#include "engine/vllm/metrics/manifest.h"

namespace blis::cli {
namespace {

namespace m = vllm::metrics;

bool write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  return static_cast<bool>(out);
}

// Rewrites docs/metrics-manifest.json and the generated block of docs/metrics.md under `dir`.
int update_docs(const std::string& dir) {
  const std::string json_path = dir + "/docs/metrics-manifest.json";
  const std::string md_path = dir + "/docs/metrics.md";
  std::ifstream in(md_path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "blis metrics-manifest: cannot read '%s'\n", md_path.c_str());
    return 1;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string md = text.str();
  const std::size_t begin = md.find(m::kManifestBegin);
  const std::size_t end = md.find(m::kManifestEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    std::fprintf(stderr, "blis metrics-manifest: '%s' has no manifest markers\n", md_path.c_str());
    return 1;
  }
  std::size_t stop = end + std::string(m::kManifestEnd).size();
  if (stop < md.size() && md[stop] == '\n') ++stop;
  md.replace(begin, stop - begin, m::manifest_markdown());
  if (!write_file(json_path, m::manifest_json()) || !write_file(md_path, md)) {
    std::fprintf(stderr, "blis metrics-manifest: cannot write under '%s'\n", dir.c_str());
    return 1;
  }
  return 0;
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
  if (!write_file(out_path, text)) {
    std::fprintf(stderr, "blis metrics-manifest: cannot write '%s'\n", out_path.c_str());
    return 1;
  }
  return 0;
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

}  // namespace blis::cli
