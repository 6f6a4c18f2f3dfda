#pragma once
// Simulation: one scenario run, driven step by step. The CLI (`blis run`), the WASM bindings
// and the tests all use this class:
//
//   Simulation sim;                                 // vLLM engines priced by the kernel
//   Diagnostics ds = sim.load(scenario_json, opts);  // errors carry JSON pointers
//   while (!sim.done()) sim.advance(sim.now() + from_seconds(1), 1'000'000);
//   sim.summary_json(wall_s);  sim.timeseries();  sim.requests_csv();  sim.metrics_text(i);
//
// Time is simulated only: nothing here reads a clock (the caller measures wall_s and passes
// it in). The event loop is described in docs/cluster.md.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "cluster/backend.h"
#include "cluster/timeseries.h"
#include "cluster/workload/workload.h"
#include "scenario/scenario.h"
#include "util/diagnostic.h"
#include "util/sim_time.h"

namespace blis::scenario {
struct DecodeOptions;
}

namespace blis::cluster {

struct AdvanceResult {
  std::uint64_t events = 0;  // events processed by this call
  std::uint64_t steps = 0;   // engine steps completed by this call
  SimTime now = 0;           // simulated time after the call
  bool done = false;
};

using WorkloadFactory = std::function<std::unique_ptr<Workload>(const scenario::Scenario&)>;
using BackendFactory = std::function<std::unique_ptr<Backend>()>;

class Simulation {
 public:
  // The product configuration: vLLM engines, latency-kernel pricing, the scenario's workload.
  Simulation();
  // Any backend and workload (tests use doubles).
  Simulation(BackendFactory backend, WorkloadFactory workload);
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  // Decodes and validates a scenario document and prepares the run at t = 0. On errors the
  // simulation stays unloaded and the diagnostics say why (JSON pointer + message).
  Diagnostics load(const std::string& scenario_json, const scenario::DecodeOptions& options);
  // Prepares a run of a scenario built in code, after the decoder's cross-section checks
  // (scenario/scenario_checks.h: P/D shape, client references).
  Diagnostics load(const scenario::Scenario& s);
  bool loaded() const;

  // Processes events up to simulated time `until` (inclusive), at most `max_events` of them.
  AdvanceResult advance(SimTime until, std::uint64_t max_events);
  // Processes events until one engine step (a forward pass on any instance) completes.
  AdvanceResult advance_one_step();
  // Runs to the end.
  AdvanceResult run();
  bool done() const;
  SimTime now() const;
  // Restarts the loaded scenario from t = 0.
  void reset();

  // Results (valid at any point; final once done()).
  std::string summary_json(double wall_s) const;
  // The digest of all results except wall_s (16 hex digits), as in summary.json.
  std::string digest() const;
  const TimeSeries& timeseries() const;
  std::string timeseries_json() const;
  std::string requests_csv() const;
  std::size_t instance_count() const;
  std::string instance_name(std::size_t i) const;  // "<pool>-<index in pool>"
  std::string metrics_text(std::size_t i) const;
  // Instance i's engine, read-only (the playground's mechanism view reads its state).
  const engine::Engine& instance_engine(std::size_t i) const;
  const scenario::Scenario& scenario() const;
  std::uint64_t events_processed() const;
  std::uint64_t requests_finished() const;

  struct State;  // internal (simulation_state.h)

 private:
  Diagnostics prepare(const scenario::Scenario& s, bool cross_section_checks);

  BackendFactory backend_factory_;
  WorkloadFactory workload_factory_;
  std::unique_ptr<scenario::Scenario> scenario_;
  std::unique_ptr<State> st_;
};

}  // namespace blis::cluster
