#include "sweep_files.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "file_access.h"
#include "sweep/rank.h"
#include "util/text.h"

namespace blis::cli {

namespace fs = std::filesystem;

std::optional<LoadedSweep> load_sweep(const std::string& command, const fs::path& path,
                                      bool anywhere, int* exit_code) {
  const auto text = read_named_file(("blis " + command).c_str(), path);
  if (!text) {
    *exit_code = 1;
    return std::nullopt;
  }
  sweep::DecodeOptions options;
  // The base scenario is read as a scenario's own files are: inside the sweep's folder.
  options.read_file = scenario_file_reader(path, anywhere);
  sweep::DecodeResult r = sweep::decode_sweep(*text, options);
  for (const auto& d : r.diagnostics) {
    std::fprintf(stderr, "blis %s: %s\n", command.c_str(), format_diagnostic(d).c_str());
  }
  if (!r.sweep) {
    *exit_code = r.malformed_json ? 1 : 2;
    return std::nullopt;
  }
  LoadedSweep out{std::move(*r.sweep), {}};
  // A trace path in the base is relative to the base file (when the base is a path), else to
  // the sweep file.
  fs::path anchor = path;
  const auto doc = nlohmann::json::parse(*text, nullptr, false);
  if (doc.is_object() && doc.contains("base") && doc["base"].is_string()) {
    anchor = path.parent_path() / doc["base"].get<std::string>();
  }
  out.scenario_options.read_file = scenario_file_reader(anchor, anywhere);
  return out;
}

bool write_file(const std::string& command, const fs::path& path, const std::string& text) {
  // Written beside, then renamed: a reader never sees half a file.
  const fs::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
      std::fprintf(stderr, "blis %s: cannot write '%s'\n", command.c_str(),
                   escape_excerpt(tmp.string(), 200).c_str());
      return false;
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::fprintf(stderr, "blis %s: cannot write '%s': %s\n", command.c_str(),
                 escape_excerpt(path.string(), 200).c_str(), ec.message().c_str());
    return false;
  }
  return true;
}

bool write_sweep_results(const std::string& command, const fs::path& dir, const sweep::Sweep& s,
                         std::vector<nlohmann::ordered_json> rows) {
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) {
    return a["index"].template get<std::size_t>() < b["index"].template get<std::size_t>();
  });
  std::string jsonl;
  for (const auto& row : rows) jsonl += row.dump() + "\n";
  const sweep::Ranking ranking = sweep::rank_rows(s, rows);
  std::string md = "# " + (s.name.empty() ? std::string("sweep") : s.name) + "\n\n";
  md += std::to_string(rows.size()) + " of " + std::to_string(s.points()) + " points\n\n";
  md += sweep::ranking_table(s, rows, ranking);
  return write_file(command, dir / "sweep.json", sweep::normalized_document(s).dump(2) + "\n") &&
         write_file(command, dir / "points.jsonl", jsonl) &&
         write_file(command, dir / "ranking.json",
                    sweep::ranking_json(s, rows, ranking).dump(2) + "\n") &&
         write_file(command, dir / "ranking.md", md);
}

}  // namespace blis::cli
