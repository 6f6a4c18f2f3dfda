#pragma once
// Builds Simulations over the test doubles.

#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "fake_engine.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster::testing {

inline std::unique_ptr<Simulation> make_sim(FakeBackendConfig cfg,
                                            std::vector<ScriptedRequest> reqs) {
  return std::make_unique<Simulation>(
      [cfg] { return std::make_unique<FakeBackend>(cfg); },
      [reqs](const scenario::Scenario&) { return std::make_unique<ScriptedWorkload>(reqs); });
}

// Loads `text` with the real decoder and engine and runs it to the end; a load error or an
// unfinished run fails the calling test.
inline void load_and_run(Simulation& sim, const std::string& text) {
  const Diagnostics ds = sim.load(text, scenario::DecodeOptions{});
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds.front()));
  sim.run();
  EXPECT_TRUE(sim.done());
}

inline nlohmann::json summary(const Simulation& sim) {
  return nlohmann::json::parse(sim.summary_json(0.0));
}

// Rows of requests.csv as vectors of fields (header excluded).
inline std::vector<std::vector<std::string>> csv_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::size_t pos = csv.find('\n') + 1;
  while (pos < csv.size()) {
    const std::size_t end = csv.find('\n', pos);
    std::vector<std::string> fields;
    std::size_t a = pos;
    for (;;) {
      const std::size_t comma = csv.find(',', a);
      if (comma == std::string::npos || comma > end) {
        fields.push_back(csv.substr(a, end - a));
        break;
      }
      fields.push_back(csv.substr(a, comma - a));
      a = comma + 1;
    }
    rows.push_back(fields);
    pos = end + 1;
  }
  return rows;
}

}  // namespace blis::cluster::testing
