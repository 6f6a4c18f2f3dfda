// cluster::validate_scenario: what `blis validate` and the WASM validateScenario report is what
// Simulation::load reports, the router's EndpointPickerConfig included (a broken config used
// to validate "ok" and fail only at load).
#include <gtest/gtest.h>

#include "cluster/simulation.h"
#include "cluster/validate_scenario.h"
#include "scenario/documents.h"

namespace blis::cluster {
namespace {

nlohmann::json with_epp_config(const std::string& config) {
  nlohmann::json doc = scenario::testing::base_unified();
  doc["router"] = {{"policy", "epp"}, {"epp_config", config}};
  return doc;
}

TEST(ValidateScenario, ABrokenEppConfigIsAnErrorAtItsPointer) {
  const nlohmann::json doc = with_epp_config("plugins: [");
  const scenario::DecodeResult r = validate_scenario(doc.dump(), scenario::DecodeOptions{});
  EXPECT_FALSE(r.scenario.has_value());
  ASSERT_TRUE(has_errors(r.diagnostics));
  bool at_pointer = false;
  for (const auto& d : r.diagnostics)
    at_pointer =
        at_pointer || (d.severity == Severity::kError && d.pointer == "/router/epp_config");
  EXPECT_TRUE(at_pointer) << format_diagnostic(r.diagnostics.front());
  // The decoder alone lets it through; load refuses it at the same pointer.
  const scenario::DecodeResult decoded = scenario::decode_scenario(doc.dump(), {});
  ASSERT_TRUE(decoded.scenario.has_value());
  Simulation sim;
  const Diagnostics load = sim.load(*decoded.scenario);
  ASSERT_TRUE(has_errors(load));
  bool load_at_pointer = false;
  for (const auto& d : load) load_at_pointer = load_at_pointer || d.pointer == "/router/epp_config";
  EXPECT_TRUE(load_at_pointer);
}

TEST(ValidateScenario, AGoodEppConfigValidatesAndLoads) {
  const nlohmann::json doc = with_epp_config(R"(apiVersion: inference.networking.x-k8s.io/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: queue-scorer
- type: max-score-picker
schedulingProfiles:
- name: default
  plugins:
  - pluginRef: queue-scorer
  - pluginRef: max-score-picker
)");
  const scenario::DecodeResult r = validate_scenario(doc.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(r.scenario.has_value())
      << (r.diagnostics.empty() ? "" : format_diagnostic(r.diagnostics.front()));
  Simulation sim;
  EXPECT_FALSE(has_errors(sim.load(*r.scenario)));
}

}  // namespace
}  // namespace blis::cluster
