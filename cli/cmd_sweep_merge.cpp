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
#include "sweep/rank.h"
#include "sweep/sweep.h"
#include "sweep_files.h"
#include "util/text.h"

namespace blis::cli::cmd_sweep_merge {
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

// Shard directories and their files are echoed escaped and bounded (a directory listing from
// another machine may hold any name).
std::string shown(const fs::path& p) {
  return "'" + escape_excerpt(p.string(), 200) + "'";
}

int fail(int code, const std::string& why) {
  std::fprintf(stderr, "blis sweep-merge: %s\n", why.c_str());
  return code;
}

// The rows of one shard's points.jsonl, each checked against the sweep and against its
// point's summary: a row is derived data (sweep::point_row of the summary, as `blis sweep`
// makes it), so a row for no point of the sweep, or one its summary does not give, is an
// error rather than something the ranking trusts. Returns 0, or the exit status after the
// message.
int read_rows(const sweep::Sweep& s, const fs::path& dir,
              std::map<std::size_t, nlohmann::ordered_json>& rows,
              std::map<std::size_t, fs::path>& summaries) {
  std::string error;
  const fs::path file = dir / "points.jsonl";
  const auto jsonl = read_regular_file(file, kMaxRowsBytes, &error);
  if (!jsonl) return fail(1, "cannot read " + shown(file) + ": " + error);
  std::istringstream lines(*jsonl);
  std::string line;
  for (std::size_t no = 1; std::getline(lines, line); ++no) {
    const std::string at = shown(file) + " line " + std::to_string(no);
    auto row = nlohmann::ordered_json::parse(line, nullptr, false);
    if (row.is_discarded() || !row.is_object() || !row.contains("index") ||
        !row["index"].is_number_unsigned()) {
      return fail(1, at + " is not a row");
    }
    const std::size_t i = row["index"].get<std::size_t>();
    if (i >= s.points()) {
      return fail(2, at + ": point " + std::to_string(i) +
                         " is not a point of this sweep (it has " + std::to_string(s.points()) +
                         ")");
    }
    if (rows.count(i) != 0) {
      return fail(2, "point " + std::to_string(i) + " is in more than one shard (again in " +
                         shown(dir) + ")");
    }
    const fs::path summary_file = dir / "points" / (std::to_string(i) + ".json");
    const auto text = read_regular_file(summary_file, kMaxScenarioBytes, &error);
    if (!text) return fail(1, "cannot read " + shown(summary_file) + ": " + error);
    const auto summary = nlohmann::json::parse(*text, nullptr, false);
    if (summary.is_discarded() || !summary.is_object())
      return fail(1, shown(summary_file) + " is not a summary.json");
    if (sweep::point_row(s, i, summary) != row) {
      return fail(2, at + ": the row of point " + std::to_string(i) + " is not what its summary " +
                         shown(summary_file) + " gives");
    }
    rows[i] = std::move(row);
    summaries[i] = summary_file;
  }
  return 0;
}

int run_sweep_merge(const std::vector<std::string>& args) {
  std::vector<fs::path> shards;
  std::string out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--out" && i + 1 < args.size()) {
      out = args[++i];
    } else if (!args[i].empty() && args[i][0] == '-') {
      std::fprintf(stderr, "blis sweep-merge: unknown option %s\n%s\n",
                   quote_excerpt(args[i]).c_str(), kUsage);
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
  for (const fs::path& dir : shards) {
    const auto text = read_regular_file(dir / "sweep.json", kMaxScenarioBytes, &error);
    if (!text) return fail(1, "cannot read " + shown(dir / "sweep.json") + ": " + error);
    if (sweep_text.empty()) sweep_text = *text;
    if (*text != sweep_text) {
      return fail(2, shown(dir) + " is a shard of another sweep (its sweep.json differs from " +
                         shown(shards.front()) + ")");
    }
  }
  sweep::DecodeResult decoded = sweep::decode_sweep(sweep_text);
  if (!decoded.sweep) return fail(1, "the shards' sweep.json does not decode");
  const sweep::Sweep& s = *decoded.sweep;
  std::map<std::size_t, nlohmann::ordered_json> rows;
  std::map<std::size_t, fs::path> summaries;
  for (const fs::path& dir : shards) {
    if (const int code = read_rows(s, dir, rows, summaries)) return code;
  }
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
  if (ec) return fail(1, "cannot create " + shown(out_dir / "points") + ": " + ec.message());
  for (const auto& [i, path] : summaries) {
    const auto text = read_regular_file(path, kMaxScenarioBytes, &error);
    if (!text) return fail(1, "cannot read " + shown(path) + ": " + error);
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

}  // namespace blis::cli::cmd_sweep_merge
