// stepTrace(scenarioJson, maxSteps): the engine steps of a run, per instance, for the
// playground's Perfetto export. Replays the scenario in its own Simulation one event at a
// time and watches each instance's in-flight batches: a batch is scheduled at the event where
// it first appears and its output applied at the event where it leaves the queue, so both
// times are exact simulated times. Deterministic: the same scenario gives the same steps as
// the run on the page (the simulation is).
//
// Returns JSON {instances: [names], steps: [{instance, id, start_us, end_us, requests,
// tokens, prefill_tokens, prefills, decodes, spec_tokens, preempted}], truncated}; a step
// still in flight at the end (or at the limit) ends at the last simulated time; at most
// maxSteps steps in all (`truncated` when more were left out).

#include <emscripten/bind.h>

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "embind_guard.h"
#include "engine_snapshot.h"
#include "scenario/scenario_decode.h"
#include "util/diagnostic.h"
#include "util/sim_time.h"

namespace blis::wasm {
namespace {

using ojson = nlohmann::ordered_json;

struct OpenStep {
  BatchShape shape;
  SimTime start = 0;
};

ojson step_json(std::size_t instance, const OpenStep& o, SimTime end) {
  const BatchShape& b = o.shape;
  return ojson{{"instance", instance},
               {"id", b.id},
               {"start_us", o.start},
               {"end_us", end},
               {"requests", b.requests},
               {"tokens", b.tokens},
               {"prefill_tokens", b.prefill_tokens},
               {"prefills", b.prefills},
               {"decodes", b.decodes},
               {"spec_tokens", b.spec_tokens},
               {"preempted", b.preempted}};
}

std::string step_trace(const std::string& json, double max_steps) {
  return guard([&] {
    if (!(max_steps >= 1)) throw std::invalid_argument("maxSteps must be at least 1");
    cluster::Simulation sim;
    const Diagnostics ds = sim.load(json, scenario::DecodeOptions{});
    for (const Diagnostic& d : ds) {
      if (d.severity == Severity::kError) {
        throw std::invalid_argument(
            "the scenario has errors: " + (d.pointer.empty() ? "/" : d.pointer) + ": " + d.message);
      }
    }
    const std::size_t n = sim.instance_count();
    std::vector<std::map<std::uint64_t, OpenStep>> open(n);  // batch id -> when scheduled
    ojson steps = ojson::array();
    ojson names = ojson::array();
    for (std::size_t i = 0; i < n; ++i) names.push_back(sim.instance_name(i));
    const auto limit = static_cast<std::size_t>(max_steps);
    bool truncated = false;
    // An empty batch (nothing scheduled) is dropped by the engine: not a step.
    auto add = [&](std::size_t i, const OpenStep& o, SimTime end) {
      if (o.shape.requests == 0) return;
      if (steps.size() < limit) {
        steps.push_back(step_json(i, o, end));
      } else {
        truncated = true;
      }
    };
    while (!sim.done()) {
      if (steps.size() >= limit) {
        truncated = true;
        break;
      }
      if (sim.advance(kSimTimeNever, 1).events == 0) break;
      const SimTime now = sim.now();
      for (std::size_t i = 0; i < n; ++i) {
        const std::vector<BatchShape> shapes = in_flight_shapes(sim.instance_engine(i));
        std::map<std::uint64_t, OpenStep>& mine = open[i];
        for (auto it = mine.begin(); it != mine.end();) {
          bool still = false;
          for (const BatchShape& b : shapes) still = still || b.id == it->first;
          if (still) {
            ++it;
            continue;
          }
          add(i, it->second, now);
          it = mine.erase(it);
        }
        for (const BatchShape& b : shapes) {
          if (mine.count(b.id) == 0) mine.emplace(b.id, OpenStep{b, now});
        }
      }
    }
    const SimTime end = sim.now();
    for (std::size_t i = 0; i < n; ++i) {
      for (const auto& [id, o] : open[i]) add(i, o, end);
    }
    ojson out;
    out["instances"] = std::move(names);
    out["steps"] = std::move(steps);
    out["truncated"] = truncated;
    return out.dump();
  });
}

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_step_trace) {
  emscripten::function("stepTrace", &blis::wasm::step_trace);
}
