// blis sweep-merge SHARD_DIR... --out DIR: joins the directories of `blis sweep --shard I/N`
// runs into the directory the unsharded run writes, byte for byte (docs/sweeps.md).

#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "file_access.h"
#include "sweep/sweep.h"
#include "sweep_files.h"

namespace blis::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: blis sweep-merge SHARD_DIR... --out DIR\n"
    "\n"
    "Joins the output directories of `blis sweep --shard I/N` runs of one sweep into DIR,\n"
    "which then holds exactly what the unsharded `blis sweep` writes. Every point must be in\n"
    "exactly one shard, and every shard must come from the same sweep (same sweep.json).\n"
    "Exit status: 0 done, 1 failure (file, I/O), 2 shards that do not fit together or usage.";

constexpr std::uintmax_t kMaxRowsBytes = 1u << 30;

int fail(int code, const std::string& why) {
  std::fprintf(stderr, "blis sweep-merge: %s\n", why.c_str());
  return code;
}

int run_sweep_merge(const std::vector<std::string>& args) {
  std::vector<fs::path> shards;
  std::string out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out" && i + 1 < args.size()) {
      out = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::fprintf(stderr, "blis sweep-merge: unknown option '%s'\n%s\n", args[i].c_str(), kUsage);
      return 2;
    } else {
      shards.emplace_back(args[i]);
    }
  }
  if (shards.empty() || out.empty()) {
    std::fprintf(stderr, "blis sweep-merge: shard directories and --out DIR are required\n%s\n",
                 kUsage);
    return 2;
  }
  std::string sweep_text, error;
  std::map<std::size_t, nlohmann::ordered_json> rows;
  std::map<std::size_t, fs::path> summaries;
  for (const fs::path& dir : shards) {
    const auto text = read_regular_file(dir / "sweep.json", kMaxScenarioBytes, &error);
    if (!text) return fail(1, "cannot read '" + (dir / "sweep.json").string() + "': " + error);
    if (sweep_text.empty()) sweep_text = *text;
    if (*text != sweep_text) {
      return fail(2, "'" + dir.string() +
                         "' is a shard of another sweep (its sweep.json differs from '" +
                         shards.front().string() + "')");
    }
    const auto jsonl = read_regular_file(dir / "points.jsonl", kMaxRowsBytes, &error);
    if (!jsonl) return fail(1, "cannot read '" + (dir / "points.jsonl").string() + "': " + error);
    std::istringstream lines(*jsonl);
    std::string line;
    while (std::getline(lines, line)) {
      auto row = nlohmann::ordered_json::parse(line, nullptr, false);
      if (row.is_discarded() || !row.contains("index") || !row["index"].is_number_unsigned()) {
        return fail(1, "'" + (dir / "points.jsonl").string() + "' has a line that is not a row");
      }
      const std::size_t i = row["index"].get<std::size_t>();
      if (rows.count(i) != 0) {
        return fail(2, "point " + std::to_string(i) + " is in more than one shard (again in '" +
                           dir.string() + "')");
      }
      rows[i] = std::move(row);
      summaries[i] = dir / "points" / (std::to_string(i) + ".json");
    }
  }
  sweep::DecodeResult decoded = sweep::decode_sweep(sweep_text);
  if (!decoded.sweep) return fail(1, "the shards' sweep.json does not decode");
  const sweep::Sweep& s = *decoded.sweep;
  std::string missing;
  std::size_t n_missing = 0;
  for (std::size_t i = 0; i < s.points(); ++i) {
    if (rows.count(i) != 0) continue;
    if (++n_missing <= 10) missing += (missing.empty() ? "" : ", ") + std::to_string(i);
  }
  if (n_missing > 0) {
    return fail(2, std::to_string(n_missing) + " of " + std::to_string(s.points()) +
                       " points are in no shard (" + missing + (n_missing > 10 ? ", ..." : "") +
                       ")");
  }
  const fs::path out_dir(out);
  std::error_code ec;
  fs::create_directories(out_dir / "points", ec);
  if (ec) return fail(1, "cannot create '" + (out_dir / "points").string() + "': " + ec.message());
  for (const auto& [i, path] : summaries) {
    const auto text = read_regular_file(path, kMaxScenarioBytes, &error);
    if (!text) return fail(1, "cannot read '" + path.string() + "': " + error);
    if (!write_file("sweep-merge", out_dir / "points" / (std::to_string(i) + ".json"), *text))
      return 1;
  }
  std::vector<nlohmann::ordered_json> all;
  for (auto& [i, row] : rows) all.push_back(std::move(row));
  return write_sweep_results("sweep-merge", out_dir, s, std::move(all)) ? 0 : 1;
}

}  // namespace

BLIS_REGISTER_COMMAND("sweep-merge", "join the shards of a sweep into one result", kUsage,
                      run_sweep_merge);

}  // namespace blis::cli
