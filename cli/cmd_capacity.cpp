// blis capacity SCENARIO --slo METRIC<=VALUE ... [--vary rate|instances] [--rate R]
// [--pool NAME] [--tolerance F] [--max-probes N]: the highest offered rate the deployment
// sustains within the SLO, or the fewest instances of a pool that serve a rate
// (sweep/capacity.h), with every probe listed.

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "command_registry.h"
#include "file_access.h"
#include "scenario/json_text.h"
#include "sweep/capacity.h"
#include "util/text.h"

namespace blis::cli::cmd_capacity {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUsage =
    "usage: blis capacity SCENARIO --slo METRIC<=VALUE [--slo ...] [--vary rate|instances]\n"
    "                     [--rate R] [--pool NAME] [--tolerance F] [--max-probes N]\n"
    "                     [--read-anywhere]\n"
    "\n"
    "Bisects on runs of SCENARIO. A probe passes when every --slo bound holds and the run did\n"
    "not saturate (timeouts, unfinished requests or a growing queue). METRIC is a summary.json\n"
    "value, dotted or as a JSON pointer: ttft_ms.p99<=500, /e2e_ms/p99<=2000,\n"
    "goodput_requests_per_s>=10.\n"
    "  --vary rate       (default) the highest offered rate (req/s, every client scaled) that "
    "passes\n"
    "  --vary instances  the fewest instances of --pool (default: the first) that pass at --rate\n"
    "                    (default: the scenario's rate)\n"
    "  --tolerance F     rate: stop when the bracket is within F of its top (default 0.02)\n"
    "  --max-probes N    at most N runs (default 24)\n"
    "Exit status: 0 found, 1 failure (file, or no value passes), 2 invalid scenario or usage.";

int usage_error(const std::string& why) {
  std::fprintf(stderr, "blis capacity: %s\n%s\n", why.c_str(), kUsage);
  return 2;
}

int run_capacity(const std::vector<std::string>& args) {
  std::string path, pool;
  sweep::CapacityQuery q;
  bool anywhere = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    const bool v = i + 1 < args.size();
    std::string why;
    if (a == "--slo" && v) {
      const auto b = sweep::parse_slo(args[++i], &why);
      if (!b) return usage_error(why);
      q.slo.push_back(*b);
    } else if (a == "--vary" && v) {
      const std::string x = args[++i];
      if (x != "rate" && x != "instances") return usage_error("--vary takes rate or instances");
      q.vary = x == "rate" ? sweep::Vary::kRate : sweep::Vary::kInstances;
    } else if ((a == "--rate" || a == "--tolerance") && v) {
      char* end = nullptr;
      const std::string x = args[++i];
      const double d = std::strtod(x.c_str(), &end);
      if (x.empty() || end != x.c_str() + x.size() || !(d > 0) || d > 1e9)
        return usage_error(a + " needs a number > 0");
      if (a == "--rate")
        q.rate = d;
      else
        q.tolerance = d;
    } else if (a == "--max-probes" && v) {
      const int n = std::atoi(args[++i].c_str());
      if (n < 2 || n > 200) return usage_error("--max-probes needs 2..200");
      q.max_probes = n;
    } else if (a == "--pool" && v) {
      pool = args[++i];
    } else if (a == "--read-anywhere") {
      anywhere = true;
    } else if (!a.empty() && a[0] == '-') {
      return usage_error("unknown option or missing value " + quote_excerpt(a));
    } else if (path.empty()) {
      path = a;
    } else {
      return usage_error("more than one scenario given");
    }
  }
  if (path.empty() || q.slo.empty()) return usage_error("a scenario and at least one --slo");
  const auto text = read_named_file("blis capacity", path);
  if (!text) return 1;
  const scenario::JsonText doc = scenario::parse_json_text(*text);
  if (doc.error) {
    std::fprintf(stderr, "blis capacity: %s: %s\n", escape_excerpt(path, 200).c_str(),
                 doc.error->message.c_str());
    return 1;
  }
  if (!pool.empty()) {
    bool found = false;
    const auto& pools = doc.value.contains("pools") ? doc.value["pools"] : nlohmann::json::array();
    for (std::size_t p = 0; p < pools.size(); ++p) {
      if (pools[p].value("name", std::string()) == pool) {
        q.pool = p;
        found = true;
      }
    }
    if (!found) return usage_error("the scenario has no pool named " + quote_excerpt(pool));
  }
  scenario::DecodeOptions options;
  options.read_file = scenario_file_reader(path, anywhere);
  const sweep::CapacityResult r = sweep::capacity_search(doc.value, q, options);
  for (const auto& d : r.diagnostics) {
    std::fprintf(stderr, "blis capacity: %s\n", format_diagnostic(d).c_str());
  }
  if (!r.diagnostics.empty() && r.probes.empty()) return 2;
  const bool rate = q.vary == sweep::Vary::kRate;
  std::printf("probe  %-10s  result  why\n", rate ? "rate req/s" : "instances");
  for (std::size_t i = 0; i < r.probes.size(); ++i) {
    const auto& p = r.probes[i];
    std::printf("%5zu  %10.4g  %-6s  %s (digest %s)\n", i + 1, p.value, p.pass ? "pass" : "fail",
                p.why.c_str(), p.digest.c_str());
  }
  if (!r.answer) {
    std::printf("no %s passes within %d probes\n", rate ? "rate" : "instance count", q.max_probes);
    return 1;
  }
  if (rate) {
    std::printf("highest rate within the SLO: %.4g req/s", *r.answer);
    if (r.first_fail) std::printf(" (fails at %.4g)", *r.first_fail);
  } else {
    std::printf("fewest instances within the SLO: %.0f", *r.answer);
    if (r.first_fail) std::printf(" (%.0f fails)", *r.first_fail);
  }
  std::printf("\n");
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("capacity", "find the highest rate or fewest instances within an SLO", kUsage,
                      run_capacity);

}  // namespace blis::cli::cmd_capacity
