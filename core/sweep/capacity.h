#pragma once
// Capacity search (blis capacity): the highest offered rate a deployment sustains within an
// SLO, or the fewest instances of a pool that serve a given rate. Each probe is one run; it
// passes when every SLO bound holds and the run did not saturate
// (summary.json's saturation verdict is "stable"). Rate is bisected on a continuous scale,
// instances on the integers, both assuming that more load (or fewer instances) never helps.

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario_decode.h"
#include "util/diagnostic.h"

namespace blis::sweep {

// "ttft_ms.p99<=500" or "/ttft_ms/p99<=500" (also >=): a bound on a summary.json number.
struct SloBound {
  std::string metric;  // JSON pointer into summary.json
  bool upper = true;   // <= (else >=)
  double value = 0;
  std::string text;  // as given, escaped (escape_excerpt) for echoing
};
std::optional<SloBound> parse_slo(const std::string& text, std::string* why);

enum class Vary { kRate, kInstances };

struct CapacityProbe {
  double value = 0;  // the rate (req/s) or the instance count probed
  bool pass = false;
  bool saturated = false;
  bool invalid = false;  // the probe's scenario was refused (why: its first error)
  std::string why;       // the first bound violated, or the saturation reason, or "ok"
  std::string digest;    // of the probe's results
};

struct CapacityQuery {
  Vary vary = Vary::kRate;
  std::vector<SloBound> slo;
  std::size_t pool = 0;        // kInstances: the pool whose instances vary
  std::optional<double> rate;  // offered rate (req/s) to use; unset = the scenario's
  double tolerance = 0.02;     // kRate: stop when (hi - lo) / hi <= tolerance
  int max_probes = 24;
  // Called after each probe, in order (the browser shows the search's progress with it).
  std::function<void(const CapacityProbe&)> on_probe;
};

struct CapacityResult {
  std::vector<CapacityProbe> probes;  // in the order run
  std::optional<double> answer;       // highest passing rate / fewest passing instances
  std::optional<double> first_fail;   // the bracket's other side, when found
  Diagnostics diagnostics;            // why the search could not run
};

// The scenario's offered rate: the sum over clients of load.rate, or of the duration-weighted
// mean rate of load.stages. nullopt (with *why) for closed-loop clients or a trace.
std::optional<double> offered_rate(const nlohmann::json& scenario, std::string* why);
// Multiplies every client's rate (and stage rates) by `factor`.
void scale_rate(nlohmann::json& scenario, double factor);

CapacityResult capacity_search(const nlohmann::json& scenario, const CapacityQuery& q,
                               const scenario::DecodeOptions& options);

}  // namespace blis::sweep
