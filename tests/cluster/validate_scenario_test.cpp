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

// A prefill pool behind a handler that runs one profile (llm-d single/data-parallel handlers
// never split a request): a warning at the EPP config, and the run shows why it matters.
std::string one_profile_config(const std::string& handler, const std::string& filter) {
  return "plugins:\n- type: " + handler +
         "\n- type: queue-scorer\n- type: decode-filter\n- type: max-score-picker\n"
         "schedulingProfiles:\n- name: default\n  plugins:\n" +
         (filter.empty() ? "" : "  - pluginRef: " + filter + "\n") +
         "  - pluginRef: queue-scorer\n";
}

bool warns_prefill_pool(const Diagnostics& ds) {
  for (const auto& d : ds)
    if (d.severity == Severity::kWarning && d.pointer == "/router/epp_config" &&
        d.message.find("has role prefill") != std::string::npos)
      return true;
  return false;
}

TEST(ValidateScenario, APrefillPoolBehindAOneProfileHandlerIsWarnedAbout) {
  for (const std::string handler : {"single-profile-handler", "data-parallel-profile-handler"}) {
    nlohmann::json doc = scenario::testing::base_pd();
    doc["router"] = {{"policy", "epp"},
                     {"epp_config", one_profile_config(handler, "decode-filter")}};
    const scenario::DecodeResult r = validate_scenario(doc.dump(), scenario::DecodeOptions{});
    ASSERT_TRUE(r.scenario.has_value()) << handler;
    EXPECT_TRUE(warns_prefill_pool(r.diagnostics)) << handler;
    EXPECT_NE(format_diagnostic(r.diagnostics.back()).find(handler), std::string::npos);
    // The run's load says the same (the web playground reports load's diagnostics).
    Simulation sim;
    EXPECT_TRUE(warns_prefill_pool(sim.load(*r.scenario))) << handler;
  }
  // The same handlers over unified pools, and disagg-profile-handler over P/D pools: silent.
  nlohmann::json unified = with_epp_config(one_profile_config("single-profile-handler", ""));
  EXPECT_FALSE(
      warns_prefill_pool(validate_scenario(unified.dump(), scenario::DecodeOptions{}).diagnostics));
  nlohmann::json pd = scenario::testing::base_pd();
  pd["router"] = {{"policy", "epp"}, {"epp_config", R"(plugins:
- type: queue-scorer
- type: prefill-filter
- type: decode-filter
- type: always-disagg-pd-decider
- type: disagg-profile-handler
  parameters:
    deciders:
      prefill: always-disagg-pd-decider
schedulingProfiles:
- name: prefill
  plugins:
  - pluginRef: prefill-filter
  - pluginRef: queue-scorer
- name: decode
  plugins:
  - pluginRef: decode-filter
  - pluginRef: queue-scorer
)"}};
  const scenario::DecodeResult r = validate_scenario(pd.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(r.scenario.has_value())
      << (r.diagnostics.empty() ? "" : format_diagnostic(r.diagnostics.front()));
  EXPECT_FALSE(warns_prefill_pool(r.diagnostics));
}

}  // namespace
}  // namespace blis::cluster
