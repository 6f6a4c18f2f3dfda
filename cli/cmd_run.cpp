// blis run SCENARIO --out DIR [--quiet] [--progress]: runs a scenario and writes its results
// (docs/results.md): DIR/summary.json, DIR/timeseries.json, DIR/requests.csv and
// DIR/metrics/<pool>-<i>.prom.

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "cluster/validate_scenario.h"
#include "command_registry.h"
#include "file_access.h"
#include "scenario/scenario_decode.h"
#include "util/text.h"

namespace blis::cli::cmd_run {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: blis run SCENARIO [--out DIR] [--quiet] [--progress] [--read-anywhere]\n"
    "                [--epp-config FILE]\n"
    "\n"
    "Runs the scenario and writes DIR/summary.json, DIR/timeseries.json, DIR/requests.csv\n"
    "and DIR/metrics/<pool>-<i>.prom (see docs/results.md).\n"
    "  --out DIR    where the results go (created if missing); default: a folder\n"
    "               SCENARIO-NAME-results in the current directory (the file name's stem)\n"
    "  --quiet      print nothing but errors\n"
    "  --progress   show progress on stderr even when it is not a terminal\n"
    "  --read-anywhere  let the scenario name files outside its own folder\n"
    "  --epp-config FILE  route with this llm-d EndpointPickerConfig (YAML or JSON): sets\n"
    "               router.policy to epp and router.epp_config to the file's text\n"
    "Exit status: 0 done, 1 failure (missing file, not JSON, I/O), 2 invalid scenario or usage.";

struct Options {
  std::string scenario, out, epp_config;
  bool quiet = false, progress = false, anywhere = false;
};

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) {
    std::fprintf(stderr, "blis run: cannot write %s\n", quote_excerpt(path.string(), 200).c_str());
    return false;
  }
  return true;
}

double wall_seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void print_progress(const cluster::Simulation& sim, double wall, std::uint64_t events,
                    double horizon_s, bool tty) {
  const double sim_s = to_seconds(sim.now());
  const double rate = wall > 0 ? static_cast<double>(events) / wall : 0.0;
  char eta[32] = "?";
  if (horizon_s > 0 && sim_s > 0) {
    const double left = wall * (horizon_s - sim_s) / sim_s;
    std::snprintf(eta, sizeof eta, "%.0f s", left > 0 ? left : 0.0);
  }
  std::fprintf(stderr, "%ssimulated %.1f s | %llu requests finished | %.2fM events/s | ETA %s%s",
               tty ? "\r" : "", sim_s, static_cast<unsigned long long>(sim.requests_finished()),
               rate / 1e6, eta, tty ? "   " : "\n");
  std::fflush(stderr);
}

// P/D pulls that crossed a link, and passes whose transfers between nodes were slowed: each
// part only when it happened (summary.json's `network`).
void print_network_line(const nlohmann::json& n) {
  const long long pulls = n["kv_pulls"].get<long long>();
  const long long slowed = n["passes_slowed"].get<long long>();
  std::printf("  network     ");
  if (pulls > 0) {
    std::printf("KV pulls mean %.2f ms (%.2f ms alone on their links), %lld pulls",
                n["kv_pull_ms_mean"].get<double>(), n["kv_pull_alone_ms_mean"].get<double>(),
                pulls);
  }
  if (slowed > 0) {
    std::printf("%s%lld passes slowed %.3f ms by transfers sharing their links",
                pulls > 0 ? "; " : "", slowed, n["collective_extra_ms"].get<double>());
    if (n.contains("passes_repriced")) {
      std::printf(" (%lld priced again when a transfer started while they ran)",
                  n["passes_repriced"].get<long long>());
    }
  }
  std::printf("\n");
}

void print_summary(const std::string& summary_text, const std::string& out_dir) {
  const auto s = nlohmann::json::parse(summary_text);
  const auto& r = s["requests"];
  std::printf("%s\n", escape_excerpt(s["scenario"].get<std::string>(), 200).c_str());
  const auto rejected = r["rejected"].get<unsigned long long>();
  std::string refused;  // only when it happened: a 400 for a too-long request is worth seeing
  if (rejected > 0 && s.contains("flow_control")) {
    // Router epp with flow control: its refusals (HTTP 429 / 503) are among the rejected.
    const auto& fc = s["flow_control"];
    const auto cap = fc["rejected_capacity"].get<unsigned long long>();
    const auto ttl = fc["evicted_ttl"].get<unsigned long long>();
    refused = ", " + std::to_string(rejected) + " rejected (flow control: " + std::to_string(cap) +
              " over capacity, " + std::to_string(ttl) + " past their TTL" +
              (rejected > cap + ttl ? "; others: too long or no endpoint" : "") + ")";
  } else if (rejected > 0) {
    refused = ", " + std::to_string(rejected) + " rejected (prompt + max_tokens > max_model_len)";
  }
  std::printf(
      "  requests    %llu finished, %llu aborted%s, %llu arrived; %.1f s simulated in %.2f s\n",
      r["finished"].get<unsigned long long>(), r["aborted"].get<unsigned long long>(),
      refused.c_str(), r["arrived"].get<unsigned long long>(),
      s["sim"]["simulated_s"].get<double>(), s["sim"]["wall_s"].get<double>());
  for (const char* key : {"ttft_ms", "itl_ms", "e2e_ms"}) {
    const auto& m = s[key];
    std::printf("  %-11s mean %.1f  p50 %.1f  p90 %.1f  p99 %.1f\n", key, m["mean"].get<double>(),
                m["p50"].get<double>(), m["p90"].get<double>(), m["p99"].get<double>());
  }
  if (s.contains("percentiles")) {
    // Beyond the exact limit the percentiles come from the sketch (docs/reliability.md).
    const auto& pc = s["percentiles"];
    std::string which;
    for (const auto& k : pc["approximate"]) which += " " + k.get<std::string>();
    std::printf("  percentiles approximate (within %.2f%%, more than %llu distinct values):%s\n",
                100 * pc["relative_error"].get<double>(),
                pc["exact_limit"].get<unsigned long long>(), which.c_str());
  }
  const auto& t = s["throughput"];
  // Goodput only with an SLO (summary.json writes null without one), beside its targets.
  std::string goodput;
  if (s["goodput_requests_per_s"].is_number()) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "; goodput %.2f requests/s (SLO",
                  s["goodput_requests_per_s"].get<double>());
    goodput = buf;
    for (const auto& [key, v] : s["slo"].items()) {
      if (v.is_number()) goodput += " " + key + " <= " + v.dump();
    }
    goodput += s["slo"].contains("classes") ? " and per-class targets)" : ")";
  }
  std::printf("  throughput  %.2f requests/s, %.0f output tokens/s%s\n",
              t["requests_per_s"].get<double>(), t["output_tokens_per_s"].get<double>(),
              goodput.c_str());
  // The deployment's size and price (summary.json cost; docs/results.md): what a planner
  // compares across runs.
  if (s.contains("cost") && s["cost"].is_object()) {
    const auto& c = s["cost"];
    std::string gpus;
    for (const auto& p : c["pools"]) {
      gpus += (gpus.empty() ? " (" : ", ") + escape_excerpt(p["name"].get<std::string>(), 80) +
              " " + p["gpus"].dump();
    }
    if (!gpus.empty()) gpus += ")";
    std::printf("  gpus        %s%s; %.1f output tokens/s per GPU", c["gpus"].dump().c_str(),
                gpus.c_str(), c["output_tokens_per_s_per_gpu"].get<double>());
    if (c["usd_per_hour"].is_number() && c["usd_per_million_output_tokens"].is_number())
      std::printf("; $%.2f/h, $%.2f per million output tokens", c["usd_per_hour"].get<double>(),
                  c["usd_per_million_output_tokens"].get<double>());
    std::printf("\n");
  }
  const auto& sat = s["saturation"];
  std::printf("  saturation  %s: %s; queue time mean %.1f ms p99 %.1f ms\n",
              sat["verdict"].get<std::string>().c_str(), sat["reason"].get<std::string>().c_str(),
              s["queue_ms"]["mean"].get<double>(), s["queue_ms"]["p99"].get<double>());
  std::printf("  preemptions %llu; prefix-cache hit rate %.1f%%; KV usage mean %.1f%% max %.1f%%\n",
              s["preemptions"].get<unsigned long long>(),
              100 * s["prefix_cache_hit_rate"].get<double>(),
              100 * s["kv_usage"]["mean"].get<double>(), 100 * s["kv_usage"]["max"].get<double>());
  // Data-parallel instances: the engine core's wave bookkeeping (summary.json instances[].dp).
  // Dense models' ranks have none.
  for (const auto& inst : s["instances"]) {
    if (!inst.contains("dp")) continue;
    const auto& dp = inst["dp"];
    std::string ranks;
    for (const auto& n : dp["requests_per_rank"]) ranks += (ranks.empty() ? "" : " ") + n.dump();
    if (!dp.contains("waves_started")) {
      // A dense model's ranks are independent engine cores: no waves.
      std::printf("  dp          %s: %lld independent ranks; requests per rank %s\n",
                  escape_excerpt(inst["name"].get<std::string>(), 80).c_str(),
                  dp["ranks"].get<long long>(), ranks.c_str());
      continue;
    }
    std::printf(
        "  dp          %s: %lld waves started, %lld ended; %lld steps, %lld dummy batches; "
        "requests per rank %s\n",
        escape_excerpt(inst["name"].get<std::string>(), 80).c_str(),
        dp["waves_started"].get<long long>(), dp["waves_completed"].get<long long>(),
        dp["steps"].get<long long>(), dp["dummy_batches"].get<long long>(), ranks.c_str());
  }
  if (s.contains("network")) print_network_line(s["network"]);
  std::printf("  results in %s (digest %s)\n", out_dir.c_str(),
              s["digest"].get<std::string>().c_str());
}

// Every output goes to `out` or `out`/metrics under a name checked to be one plain path
// component, whatever the scenario says (the decoder checks pool names too; this is the
// second line). Names are all checked before anything is written, so a refusal leaves no
// partial output.
bool write_outputs(const cluster::Simulation& sim, const fs::path& out, bool per_request,
                   const std::string& summary) {
  constexpr std::size_t kMaxFileName = 255;  // bytes in a file name on Linux and macOS
  std::vector<std::string> metrics;
  for (std::size_t i = 0; i < sim.instance_count(); ++i) {
    const std::string name = sim.instance_name(i) + ".prom";
    if (const auto bad = file_name_problem(name, kMaxFileName)) {
      std::fprintf(stderr, "blis run: refusing to write metrics file %s: it %s\n",
                   quote_excerpt(name).c_str(), bad->c_str());
      return false;
    }
    metrics.push_back(name);
  }
  std::error_code ec;
  fs::create_directories(out / "metrics", ec);
  if (ec) {
    std::fprintf(stderr, "blis run: cannot create %s: %s\n",
                 quote_excerpt((out / "metrics").string(), 200).c_str(), ec.message().c_str());
    return false;
  }
  bool ok = write_text(out / "summary.json", summary + "\n") &&
            write_text(out / "timeseries.json", sim.timeseries_json() + "\n");
  if (ok && per_request) ok = write_text(out / "requests.csv", sim.requests_csv());
  for (std::size_t i = 0; ok && i < metrics.size(); ++i) {
    ok = write_text(out / "metrics" / metrics[i], sim.metrics_text(i));
  }
  return ok;
}

// Reads the command line into `o`; false (after printing why) on a usage error.
bool parse_run_options(const std::vector<std::string>& args, Options& o) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--out") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "blis run: --out needs a directory\n%s\n", kUsage);
        return false;
      }
      o.out = args[++i];
    } else if (a == "--quiet") {
      o.quiet = true;
    } else if (a == "--progress") {
      o.progress = true;
    } else if (a == "--read-anywhere") {
      o.anywhere = true;
    } else if (a == "--epp-config") {
      if (i + 1 >= args.size()) {
        std::fprintf(stderr, "blis run: --epp-config needs a file\n%s\n", kUsage);
        return false;
      }
      o.epp_config = args[++i];
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "blis run: unknown option %s\n%s\n", quote_excerpt(a).c_str(), kUsage);
      return false;
    } else if (o.scenario.empty()) {
      o.scenario = a;
    } else {
      std::fprintf(stderr, "blis run: more than one scenario given (%s)\n%s\n",
                   quote_excerpt(a).c_str(), kUsage);
      return false;
    }
  }
  if (o.scenario.empty()) {
    std::fprintf(stderr, "blis run: a scenario is required\n%s\n", kUsage);
    return false;
  }
  if (o.out.empty()) {
    // Default: a folder named after the scenario file, in the current directory (only a
    // safe file-name stem; anything else must be given with --out).
    const std::string stem = fs::path(o.scenario).stem().string() + "-results";
    if (const auto problem = file_name_problem(stem, 200)) {
      std::fprintf(stderr, "blis run: give --out DIR (the default %s is not a safe name: %s)\n",
                   quote_excerpt(stem).c_str(), problem->c_str());
      return false;
    }
    o.out = stem;
  }

  return true;
}

int run_run(const std::vector<std::string>& args) {
  Options o;
  if (!parse_run_options(args, o)) return 2;

  const fs::path scenario_path(o.scenario);
  const auto text = read_named_file("blis run", scenario_path);
  if (!text) return 1;
  scenario::DecodeOptions opts;
  opts.read_file = scenario_file_reader(scenario_path, o.anywhere);
  if (!o.epp_config.empty()) {
    // The user named this file on the command line (a scenario itself never reads one).
    const auto epp = read_named_file("blis run", o.epp_config, 256u << 10);
    if (!epp) return 1;
    opts.epp_config = *epp;
  }
  const scenario::DecodeResult decoded = cluster::validate_scenario(*text, opts);
  bool failed = false;
  for (const auto& d : decoded.diagnostics) {
    const bool is_error = d.severity == Severity::kError;
    failed = failed || is_error;
    if (is_error || !o.quiet) std::fprintf(stderr, "%s\n", format_diagnostic(d).c_str());
  }
  if (decoded.malformed_json) return 1;
  if (failed || !decoded.scenario) return 2;

  const scenario::Scenario& sc = *decoded.scenario;
  cluster::Simulation sim;
  const Diagnostics ds = sim.load(sc);
  // load repeats the decoder's cross-section checks (a scenario built in code meets them
  // there too): print only what the decode did not already say.
  std::set<std::string> said;
  for (const auto& d : decoded.diagnostics) said.insert(format_diagnostic(d));
  for (const auto& d : ds) {
    const std::string line = format_diagnostic(d);
    if ((d.severity == Severity::kError || !o.quiet) && said.insert(line).second) {
      std::fprintf(stderr, "%s\n", line.c_str());
    }
  }
  if (has_errors(ds)) return 2;

  const bool tty = isatty(STDERR_FILENO) != 0;
  const bool show_progress = !o.quiet && (o.progress || tty);
  const double horizon_s = decoded.scenario->horizon.duration_s.value_or(0.0);
  const auto t0 = std::chrono::steady_clock::now();
  double last_report = 0;
  std::uint64_t reported_events = 0;
  const double report_every = tty ? 0.25 : 2.0;
  while (!sim.done()) {
    sim.advance(kSimTimeNever, 200'000);
    if (!show_progress) continue;
    const double wall = wall_seconds_since(t0);
    if (wall - last_report >= report_every) {
      print_progress(sim, wall, sim.events_processed(), horizon_s, tty);
      last_report = wall;
      reported_events = sim.events_processed();
    }
  }
  const double wall_s = wall_seconds_since(t0);
  if (show_progress) {
    // The final state, unless the last line already showed it.
    if (reported_events != sim.events_processed() || tty) {
      print_progress(sim, wall_s, sim.events_processed(), horizon_s, tty);
    }
    if (tty) std::fprintf(stderr, "\n");
  }

  const fs::path out(o.out);
  const std::string summary = sim.summary_json(wall_s);
  if (!write_outputs(sim, out, decoded.scenario->outputs.per_request, summary)) return 1;
  if (!o.quiet) print_summary(summary, out.string());
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("run", "run a scenario and write its results", kUsage, run_run);

}  // namespace blis::cli::cmd_run
