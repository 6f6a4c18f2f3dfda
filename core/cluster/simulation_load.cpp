// Simulation::load from scenario text: decode, validate, then prepare the run.

#include "cluster/simulation.h"
#include "cluster/simulation_state.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {

Diagnostics Simulation::load(const std::string& scenario_json,
                             const scenario::DecodeOptions& options) {
  st_.reset();
  scenario::DecodeResult decoded = scenario::decode_scenario(scenario_json, options);
  if (!decoded.scenario || has_errors(decoded.diagnostics)) return decoded.diagnostics;
  Diagnostics ds = std::move(decoded.diagnostics);  // warnings
  for (auto& d : load(*decoded.scenario)) ds.push_back(std::move(d));
  return ds;
}

}  // namespace blis::cluster
