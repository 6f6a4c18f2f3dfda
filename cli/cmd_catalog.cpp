// blis catalog: list and show the built-in catalog (GPUs, models, fabrics) and the
// coefficients that apply to a GPU.

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "catalog/hf_import.h"
#include "command_registry.h"
#include "file_access.h"
#include "scenario/json_text.h"
#include "util/text.h"
#include "util/units.h"

namespace blis::cli::cmd_catalog {
namespace {

constexpr const char* kUsage =
    "usage: blis catalog list [gpus|models|fabrics] [--json]\n"
    "       blis catalog show ID [--json]\n"
    "       blis catalog import CONFIG.json [--id ID] [--out FILE]\n"
    "\n"
    "list: the ids of the built-in entries (all kinds, or one), with a one-line summary.\n"
    "show: one entry as its JSON (with where it came from); for a GPU also the efficiency\n"
    "coefficients the latency kernel uses for it. Exit status 2 for an unknown id.\n"
    "import: a Hugging Face config.json as a catalog model entry (stdout, or --out FILE), for a\n"
    "scenario's catalog.models or `blis price --model-file`; what it cannot read is an error\n"
    "naming the config's JSON pointer (exit status 2).";

using catalog::Catalog;
using catalog::Kind;

double gib(std::int64_t b) {
  return util::to_gib(b);
}

std::string summary(const Catalog& c, Kind kind, const std::string& id) {
  char buf[256];
  if (kind == Kind::kGpu) {
    const auto* g = c.find_gpu(id);
    std::snprintf(buf, sizeof buf, "%s: %.2f GiB usable, %.0f GB/s, %.0f BF16 TFLOPS%s",
                  g->name.c_str(), gib(g->usable_memory_bytes), g->hbm_bandwidth_bytes_per_s / 1e9,
                  g->bf16_dense_tflops, g->fp8_dense_tflops > 0 ? ", FP8" : "");
  } else if (kind == Kind::kModel) {
    const auto* m = c.find_model(id);
    std::snprintf(buf, sizeof buf, "%s, %d layers, hidden %lld, %d/%d heads%s%s%s",
                  m->architecture.c_str(), m->num_hidden_layers,
                  static_cast<long long>(m->hidden_size), m->num_attention_heads,
                  m->num_key_value_heads, m->is_moe() ? ", MoE" : "", m->is_mla() ? ", MLA" : "",
                  m->quantization.method.empty() ? "" : (", " + m->quantization.method).c_str());
  } else {
    const auto* f = c.find_fabric(id);
    std::snprintf(buf, sizeof buf, "%s: %.0f GB/s per GPU per direction, %.0f us, %s",
                  f->name.c_str(), f->bandwidth_bytes_per_s / 1e9, f->latency_us, f->scope.c_str());
  }
  return buf;
}

int list(const std::vector<std::string>& args) {
  bool json = false;
  std::vector<Kind> kinds;
  for (const auto& a : args) {
    if (a == "--json")
      json = true;
    else if (a == "gpus")
      kinds.push_back(Kind::kGpu);
    else if (a == "models")
      kinds.push_back(Kind::kModel);
    else if (a == "fabrics")
      kinds.push_back(Kind::kFabric);
    else {
      std::fprintf(stderr, "blis catalog list: unknown argument '%s'\n%s\n", a.c_str(), kUsage);
      return 2;
    }
  }
  if (kinds.empty()) kinds = {Kind::kGpu, Kind::kModel, Kind::kFabric};
  const Catalog& c = Catalog::builtin();
  nlohmann::json out = nlohmann::json::object();
  for (Kind k : kinds) {
    const std::vector<std::string> ids = k == Kind::kGpu     ? c.gpu_ids()
                                         : k == Kind::kModel ? c.model_ids()
                                                             : c.fabric_ids();
    const char* title = k == Kind::kGpu ? "gpus" : k == Kind::kModel ? "models" : "fabrics";
    if (json) {
      nlohmann::json arr = nlohmann::json::array();
      for (const auto& id : ids) arr.push_back({{"id", id}, {"summary", summary(c, k, id)}});
      out[title] = arr;
      continue;
    }
    std::printf("%s (%zu)\n", title, ids.size());
    for (const auto& id : ids) std::printf("  %-52s %s\n", id.c_str(), summary(c, k, id).c_str());
  }
  if (json) std::printf("%s\n", out.dump(2).c_str());
  return 0;
}

int show(const std::vector<std::string>& args) {
  bool json = false;
  std::string id;
  for (const auto& a : args) {
    if (a == "--json") {
      json = true;
    } else if (id.empty()) {
      id = a;
    } else {
      std::fprintf(stderr, "blis catalog show: unexpected argument '%s'\n%s\n", a.c_str(), kUsage);
      return 2;
    }
  }
  if (id.empty()) {
    std::fprintf(stderr, "blis catalog show: an id is required\n%s\n", kUsage);
    return 2;
  }
  const Catalog& c = Catalog::builtin();
  Kind kind;
  if (c.find_gpu(id))
    kind = Kind::kGpu;
  else if (c.find_model(id))
    kind = Kind::kModel;
  else if (c.find_fabric(id))
    kind = Kind::kFabric;
  else {
    std::vector<std::string> all = c.gpu_ids();
    for (const auto& v : {c.model_ids(), c.fabric_ids()}) all.insert(all.end(), v.begin(), v.end());
    const auto near = closest_ids(id, all);
    std::fprintf(stderr, "blis catalog show: unknown id \"%s\" (did you mean %s?)\n", id.c_str(),
                 quoted_list(near).c_str());
    return 2;
  }
  nlohmann::json entry = nlohmann::json::parse(*c.entry_json(kind, id));
  nlohmann::json out = {
      {"kind", catalog::to_string(kind)}, {"origin", c.entry_origin(kind, id)}, {"entry", entry}};
  if (kind == Kind::kGpu) {
    const std::string cid = c.has_measured_coefficients(id) ? id : std::string("default");
    out["coefficients"] = {
        {"id", cid},
        {"origin", c.entry_origin(Kind::kCoefficients, cid)},
        {"entry", nlohmann::json::parse(*c.entry_json(Kind::kCoefficients, cid))}};
  }
  if (json) {
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::printf("%s %s (catalog/%s)\n  %s\n\n", catalog::to_string(kind), id.c_str(),
              c.entry_origin(kind, id).c_str(), summary(c, kind, id).c_str());
  std::printf("%s\n", entry.dump(2).c_str());
  if (kind == Kind::kGpu) {
    std::printf("\ncoefficients (catalog/%s):\n%s\n",
                out["coefficients"]["origin"].get<std::string>().c_str(),
                out["coefficients"]["entry"].dump(2).c_str());
  }
  return 0;
}

int import_config(const std::vector<std::string>& args) {
  std::string config_path, id, out_path;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if ((a == "--id" || a == "--out") && i + 1 < args.size()) {
      (a == "--id" ? id : out_path) = args[++i];
    } else if (!a.empty() && a[0] != '-' && config_path.empty()) {
      config_path = a;
    } else {
      std::fprintf(stderr, "blis catalog import: unexpected argument '%s'\n%s\n", a.c_str(),
                   kUsage);
      return 2;
    }
  }
  if (config_path.empty()) {
    std::fprintf(stderr, "blis catalog import: a config.json is required\n%s\n", kUsage);
    return 2;
  }
  // A regular file below the cap (never a device such as /dev/zero or a FIFO that blocks),
  // parsed as a scenario is (depth, NUL, duplicate keys, trailing bytes refused); every echo
  // of the path is escaped.
  const std::string shown = escape_excerpt(config_path, 200);
  const auto text = read_named_file("blis catalog import", config_path);
  if (!text) return 1;
  const scenario::JsonText parsed = scenario::parse_json_text(*text);
  if (parsed.error) {
    std::fprintf(stderr, "blis catalog import: %s: %s\n", shown.c_str(),
                 format_diagnostic(*parsed.error).c_str());
    return parsed.duplicate_key ? 2 : 1;
  }
  const nlohmann::json& config = parsed.value;
  nlohmann::json entry;
  const std::string name = config_path.substr(config_path.find_last_of('/') + 1);
  const Diagnostics diags = catalog::import_hf_config(config, {id, name}, &entry);
  for (const auto& d : diags) {
    std::fprintf(stderr, "blis catalog import: %s: %s\n", shown.c_str(),
                 format_diagnostic(d).c_str());
  }
  if (has_errors(diags)) return 2;
  const std::string json_text = entry.dump(2) + "\n";
  if (out_path.empty()) {
    std::fputs(json_text.c_str(), stdout);
    return 0;
  }
  std::ofstream out(out_path, std::ios::binary);
  out << json_text;
  if (!out) {
    std::fprintf(stderr, "blis catalog import: cannot write %s\n",
                 escape_excerpt(out_path, 200).c_str());
    return 1;
  }
  std::fprintf(stderr, "blis catalog import: wrote %s (%s)\n",
               escape_excerpt(out_path, 200).c_str(),
               quote_excerpt(entry["id"].get<std::string>()).c_str());
  return 0;
}

int run_catalog(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::fprintf(stderr, "%s\n", kUsage);
    return 2;
  }
  const std::vector<std::string> rest(args.begin() + 1, args.end());
  if (args[0] == "list") return list(rest);
  if (args[0] == "show") return show(rest);
  if (args[0] == "import") return import_config(rest);
  std::fprintf(stderr, "blis catalog: unknown subcommand '%s'\n%s\n", args[0].c_str(), kUsage);
  return 2;
}

}  // namespace

BLIS_REGISTER_COMMAND("catalog",
                      "list or show GPUs, models and fabrics of the built-in catalog; import a "
                      "Hugging Face config.json",
                      kUsage, run_catalog);

}  // namespace blis::cli::cmd_catalog
