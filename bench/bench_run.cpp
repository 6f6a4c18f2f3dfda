// blis_bench_run SCENARIO [--repeat N]: runs one scenario file to the end and prints one JSON
// line (docs/performance.md): requests, events, steps, CPU and wall seconds, simulated requests
// per CPU second, peak RSS and the result digest. `bench/run` wraps it; `bench/run-wasm.mjs`
// prints the same line from the WASM build under node, so the two digests can be compared.
//
// Measurement only: the clock and getrusage are read here, never in core/. Trace files are not
// read (bench scenarios are self-contained), so a scenario from anywhere is safe to time.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"
#include "util/diagnostic.h"

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // Linux reports KiB
}

int usage() {
  std::fprintf(stderr,
               "usage: blis_bench_run SCENARIO [--repeat N]\n"
               "Runs SCENARIO to the end N times (default 1) and prints one JSON line for the\n"
               "fastest run (by CPU time): requests, events, steps, cpu_s, wall_s,\n"
               "requests_per_cpu_s, peak_rss_mib, digest.\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int repeat = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") return usage(), 0;
    if (a == "--repeat" && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
      if (repeat < 1 || repeat > 100) return usage();
    } else if (path.empty() && !a.empty() && a[0] != '-') {
      path = a;
    } else {
      return usage();
    }
  }
  if (path.empty()) return usage();
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "blis_bench_run: cannot read '%s'\n", path.c_str());
    return 1;
  }
  std::ostringstream text;
  text << in.rdbuf();

  nlohmann::ordered_json best;
  double best_cpu = 0;
  std::string first_digest;
  for (int r = 0; r < repeat; ++r) {
    blis::cluster::Simulation sim;
    const double c0 = cpu_seconds();
    const auto w0 = std::chrono::steady_clock::now();
    const blis::Diagnostics ds = sim.load(text.str(), blis::scenario::DecodeOptions{});
    if (blis::has_errors(ds)) {
      for (const auto& d : ds) std::fprintf(stderr, "%s\n", blis::format_diagnostic(d).c_str());
      return 2;
    }
    const auto res = sim.run();
    const double cpu = cpu_seconds() - c0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    const std::string digest = sim.digest();
    if (r == 0) first_digest = digest;
    if (digest != first_digest) {
      std::fprintf(stderr, "blis_bench_run: run %d gave digest %s, run 0 gave %s\n", r,
                   digest.c_str(), first_digest.c_str());
      return 1;
    }
    if (r > 0 && cpu >= best_cpu) continue;
    best_cpu = cpu;
    // The same count run-wasm.mjs reads: summary.json requests.finished.
    const auto summary = nlohmann::json::parse(sim.summary_json(0.0));
    const std::uint64_t finished = summary.at("requests").at("finished").get<std::uint64_t>();
    const double requests = static_cast<double>(finished);
    best = nlohmann::ordered_json{
        {"scenario", path},     {"target", "native"},
        {"requests", finished}, {"events", sim.events_processed()},
        {"steps", res.steps},   {"cpu_s", cpu},
        {"wall_s", wall},       {"requests_per_cpu_s", cpu > 0 ? requests / cpu : 0.0},
        {"digest", digest}};
  }
  best["peak_rss_mib"] = peak_rss_mib();
  std::printf("%s\n", best.dump().c_str());
  return 0;
}
