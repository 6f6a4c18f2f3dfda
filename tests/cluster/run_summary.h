#pragma once
// Load a scenario text, run it to the end and return its summary.json: the one helper the
// cluster suites share (a load error fails the calling test with the first diagnostic).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster::test {

inline nlohmann::json run_summary(const std::string& text, std::string* digest = nullptr) {
  Simulation sim;
  const Diagnostics ds = sim.load(text, scenario::DecodeOptions{});
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds.front()));
  if (has_errors(ds)) return {};
  sim.run();
  EXPECT_TRUE(sim.done());
  if (digest != nullptr) *digest = sim.digest();
  return nlohmann::json::parse(sim.summary_json(0));
}

}  // namespace blis::cluster::test
