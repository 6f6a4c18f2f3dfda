// blis sweep SWEEP.json --out DIR [--jobs N] [--shard I/N] [--quiet]: runs every point of a
// sweep (docs/sweeps.md) in parallel worker processes, each `blis sweep-point`, and writes
// one JSONL row per point, the ranking and its Pareto front. The core stays single-threaded
// and clock-free: parallelism is whole processes, and a point's result does not depend on
// which process ran it, so any --jobs and any sharding give byte-identical files.

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "file_access.h"
#include "sweep/rank.h"
#include "sweep/run_point.h"
#include "sweep_files.h"

extern char** environ;

namespace blis::cli::cmd_sweep {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: blis sweep SWEEP --out DIR [--jobs N] [--shard I/N] [--quiet] [--read-anywhere]\n"
    "\n"
    "Runs every point of the sweep (schema blis/sweep/v1, docs/sweeps.md) and writes\n"
    "DIR/points.jsonl (one row per point, by index), DIR/ranking.md and DIR/ranking.json\n"
    "(ranked by constraints and objective, with the Pareto front), DIR/sweep.json (the sweep\n"
    "with its base inlined) and DIR/points/<index>.json (each point's summary.json).\n"
    "  --jobs N     worker processes (default: the number of CPUs)\n"
    "  --shard I/N  run only the points whose index % N == I (0 <= I < N); join the shards'\n"
    "               directories with `blis sweep-merge`\n"
    "  --quiet      no progress on stderr\n"
    "  --read-anywhere  let the sweep's base (and the files it names) be outside its folder\n"
    "Exit status: 0 done, 1 failure (file, I/O, a point failed), 2 invalid sweep or usage.";

struct Options {
  std::string sweep, out;
  long jobs = 0;
  long shard = 0, shards = 1;
  bool quiet = false, anywhere = false;
};

bool parse_long(const std::string& s, long lo, long hi, long* out) {
  if (s.empty() || s.size() > 9) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  *out = std::stol(s);
  return *out >= lo && *out <= hi;
}

int usage_error(const std::string& why) {
  std::fprintf(stderr, "blis sweep: %s\n%s\n", why.c_str(), kUsage);
  return 2;
}

int parse(const std::vector<std::string>& args, Options* o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool has_value = i + 1 < args.size();
    if (a == "--out" && has_value) {
      o->out = args[++i];
    } else if (a == "--jobs" && has_value) {
      if (!parse_long(args[++i], 1, 1024, &o->jobs)) return usage_error("--jobs needs 1..1024");
    } else if (a == "--shard" && has_value) {
      const std::string v = args[++i];
      const auto slash = v.find('/');
      if (slash == std::string::npos || !parse_long(v.substr(slash + 1), 1, 100000, &o->shards) ||
          !parse_long(v.substr(0, slash), 0, o->shards - 1, &o->shard)) {
        return usage_error("--shard needs I/N with 0 <= I < N, e.g. 0/4");
      }
    } else if (a == "--quiet") {
      o->quiet = true;
    } else if (a == "--read-anywhere") {
      o->anywhere = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option or missing value '" + a + "'");
    } else if (o->sweep.empty()) {
      o->sweep = a;
    } else {
      return usage_error("more than one sweep given ('" + a + "')");
    }
  }
  if (o->sweep.empty() || o->out.empty()) return usage_error("a sweep and --out DIR are required");
  if (o->jobs == 0) {
    const long n = sysconf(_SC_NPROCESSORS_ONLN);
    o->jobs = n > 0 ? n : 1;
  }
  return 0;
}

fs::path self_exe() {
  std::error_code ec;
  return fs::read_symlink("/proc/self/exe", ec);
}

// Starts `blis sweep-point SWEEP --point I --out FILE`; 0 when it could not start.
pid_t spawn_point(const fs::path& exe, const Options& o, std::size_t index, const fs::path& out) {
  std::vector<std::string> argv_s = {exe.string(),          "sweep-point", o.sweep,     "--point",
                                     std::to_string(index), "--out",       out.string()};
  if (o.anywhere) argv_s.push_back("--read-anywhere");
  std::vector<char*> argv;
  for (auto& s : argv_s) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawn(&pid, exe.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return 0;
  return pid;
}

// Runs the points, at most `jobs` at a time; false when one failed (already reported).
bool run_points(const Options& o, const std::vector<std::size_t>& todo, const fs::path& dir) {
  const fs::path exe = self_exe();
  if (exe.empty()) {
    std::fprintf(stderr, "blis sweep: cannot find its own executable (/proc/self/exe)\n");
    return false;
  }
  const auto t0 = std::chrono::steady_clock::now();
  std::map<pid_t, std::size_t> running;
  std::size_t next = 0, done = 0;
  bool ok = true;
  while (done < todo.size()) {
    while (ok && next < todo.size() && running.size() < static_cast<std::size_t>(o.jobs)) {
      const std::size_t i = todo[next++];
      const pid_t pid = spawn_point(exe, o, i, dir / (std::to_string(i) + ".json"));
      if (pid == 0) {
        std::fprintf(stderr, "blis sweep: cannot start a worker for point %zu\n", i);
        ok = false;
        break;
      }
      running[pid] = i;
    }
    if (running.empty()) break;
    int status = 0;
    const pid_t pid = waitpid(-1, &status, 0);
    const auto it = running.find(pid);
    if (it == running.end()) continue;
    const std::size_t i = it->second;
    running.erase(it);
    ++done;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "blis sweep: point %zu failed (exit status %d)\n", i,
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
      ok = false;
    }
    if (!o.quiet) {
      const double wall =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::fprintf(stderr, "blis sweep: [%zu/%zu] point %zu done, %.1f s\n", done, todo.size(), i,
                   wall);
    }
  }
  return ok;
}

int run_sweep(const std::vector<std::string>& args) {
  Options o;
  if (const int rc = parse(args, &o)) return rc;
  int rc = 0;
  const auto loaded = load_sweep("sweep", o.sweep, o.anywhere, &rc);
  if (!loaded) return rc;
  const sweep::Sweep& s = loaded->sweep;
  const Diagnostics checks = sweep::check_points(s, loaded->scenario_options);
  for (const auto& d : checks)
    std::fprintf(stderr, "blis sweep: %s\n", format_diagnostic(d).c_str());
  if (has_errors(checks)) return 2;

  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < s.points(); ++i) {
    if (static_cast<long>(i % static_cast<std::size_t>(o.shards)) == o.shard) todo.push_back(i);
  }
  const fs::path out(o.out), points_dir = fs::path(o.out) / "points";
  std::error_code ec;
  fs::create_directories(points_dir, ec);
  if (ec) {
    std::fprintf(stderr, "blis sweep: cannot create '%s': %s\n", points_dir.string().c_str(),
                 ec.message().c_str());
    return 1;
  }
  if (!o.quiet) {
    std::fprintf(stderr, "blis sweep: %zu points%s, %ld jobs\n", todo.size(),
                 o.shards > 1
                     ? (" (shard " + std::to_string(o.shard) + "/" + std::to_string(o.shards) +
                        " of " + std::to_string(s.points()) + ")")
                           .c_str()
                     : "",
                 o.jobs);
  }
  if (!run_points(o, todo, points_dir)) return 1;

  std::vector<nlohmann::ordered_json> rows;
  for (std::size_t i : todo) {
    std::string error;
    const auto text =
        read_regular_file(points_dir / (std::to_string(i) + ".json"), kMaxScenarioBytes, &error);
    const auto summary = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
    if (!text || summary.is_discarded()) {
      std::fprintf(stderr, "blis sweep: point %zu left no readable summary%s%s\n", i,
                   error.empty() ? "" : ": ", error.c_str());
      return 1;
    }
    rows.push_back(sweep::point_row(s, i, summary));
  }
  if (!write_sweep_results("sweep", out, s, rows)) return 1;
  if (o.shards > 1) {
    const nlohmann::ordered_json shard = {{"shard", o.shard}, {"of", o.shards}, {"points", todo}};
    if (!write_file("sweep", out / "shard.json", shard.dump(2) + "\n")) return 1;
  }
  if (!o.quiet) {
    std::fprintf(stderr, "blis sweep: results in %s (ranking.md)\n", out.string().c_str());
  }
  return 0;
}

// The worker: one point, its summary.json to --out.
int run_sweep_point(const std::vector<std::string>& args) {
  std::string sweep_path, out;
  long index = -1;
  bool anywhere = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--read-anywhere") {
      anywhere = true;
    } else if (args[i] == "--point" && i + 1 < args.size()) {
      if (!parse_long(args[++i], 0, static_cast<long>(sweep::kMaxRuns) - 1, &index)) index = -1;
    } else if (args[i] == "--out" && i + 1 < args.size()) {
      out = args[++i];
    } else if (sweep_path.empty() && !args[i].empty() && args[i][0] != '-') {
      sweep_path = args[i];
    } else {
      index = -1;
      break;
    }
  }
  if (sweep_path.empty() || out.empty() || index < 0) {
    std::fprintf(stderr, "usage: blis sweep-point SWEEP --point I --out FILE\n");
    return 2;
  }
  int rc = 0;
  const auto loaded = load_sweep("sweep-point", sweep_path, anywhere, &rc);
  if (!loaded) return rc;
  if (static_cast<std::size_t>(index) >= loaded->sweep.points()) {
    std::fprintf(stderr, "blis sweep-point: the sweep has %zu points, no point %ld\n",
                 loaded->sweep.points(), index);
    return 2;
  }
  const sweep::PointRun r =
      sweep::run_point(loaded->sweep, static_cast<std::size_t>(index), loaded->scenario_options);
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::kError)
      std::fprintf(stderr, "blis sweep-point: %s\n", format_diagnostic(d).c_str());
  }
  if (!r.summary) return 2;
  return write_file("sweep-point", out, *r.summary + "\n") ? 0 : 1;
}

}  // namespace

BLIS_REGISTER_COMMAND("sweep", "run a sweep of scenarios in parallel and rank them", kUsage,
                      run_sweep);
BLIS_REGISTER_COMMAND("sweep-point", "run one point of a sweep (the worker `blis sweep` starts)",
                      "usage: blis sweep-point SWEEP --point I --out FILE [--read-anywhere]\n\n"
                      "Runs point I of SWEEP and writes its summary.json (sim.wall_s = 0) to FILE.",
                      run_sweep_point);

}  // namespace blis::cli::cmd_sweep
