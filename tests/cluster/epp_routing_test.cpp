// Router policy epp end to end: llm-d's own P/D sample config (tests/cluster/data/epp,
// verbatim) routes as its documentation says — the decode profile picks a decode instance,
// and the prefill profile runs only when at least nonCachedTokens (16) prompt tokens are not
// cached there — and the other policies are untouched.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"
#include "test_files.h"

namespace blis::cluster {
namespace {

using blis::test::read_file;

// 1 prefill + 1 decode instance; one client with constant prompts of `prompt` tokens.
nlohmann::json pd_scenario(int prompt, const nlohmann::json& epp_config) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "schema": "blis/scenario/v1", "seed": 5, "horizon": {"duration_s": 10, "drain": true},
    "pools": [
      {"name": "p", "role": "prefill", "instances": 1, "hardware": "H100-SXM-80GB",
       "model": "meta-llama/Llama-3.1-8B-Instruct",
       "engine": {"release": "0.32.0", "args": {"max_model_len": 4096}}},
      {"name": "d", "role": "decode", "instances": 1, "hardware": "H100-SXM-80GB",
       "model": "meta-llama/Llama-3.1-8B-Instruct",
       "engine": {"release": "0.32.0", "args": {"max_model_len": 4096}}}],
    "fabric": "ib-ndr",
    "router": {"policy": "epp"},
    "workload": {"clients": [{"name": "c", "load": {"rate": 4},
      "prompt_tokens": {"dist": "constant", "value": 8},
      "output_tokens": {"dist": "constant", "value": 20}}]}
  })");
  j["workload"]["clients"][0]["prompt_tokens"]["value"] = prompt;
  j["router"]["epp_config"] = epp_config;
  return j;
}

nlohmann::json run(const nlohmann::json& scenario) {
  Simulation sim;
  const Diagnostics ds = sim.load(scenario.dump(), scenario::DecodeOptions{});
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds.front()));
  if (has_errors(ds)) return {};
  sim.run();
  EXPECT_TRUE(sim.done());
  return nlohmann::json::parse(sim.summary_json(0));
}

std::int64_t routed(const nlohmann::json& summary, const std::string& instance) {
  for (const auto& i : summary["instances"])
    if (i["name"] == instance) return i["requests"]["routed"].get<std::int64_t>();
  ADD_FAILURE() << "no instance " << instance;
  return -1;
}

const std::string kPdSample =
    read_file(std::string(BLIS_SOURCE_DIR) + "/tests/cluster/data/epp/pd-epp-config.yaml");

TEST(EppRouting, LlmdPdSampleDisaggregatesOnlyAboveTheThreshold) {
  // Prompts of 8 tokens (< nonCachedTokens 16): the decode instance serves them whole.
  const nlohmann::json short_p = run(pd_scenario(8, kPdSample));
  ASSERT_TRUE(short_p.contains("requests"));
  EXPECT_EQ(short_p["requests"]["finished"], short_p["requests"]["arrived"]);
  EXPECT_EQ(routed(short_p, "p-0"), 0);
  EXPECT_EQ(routed(short_p, "d-0"), short_p["requests"]["arrived"].get<std::int64_t>());

  // Prompts of 1000 distinct tokens: every one has >= 16 uncached tokens, so P then D.
  const nlohmann::json long_p = run(pd_scenario(1000, kPdSample));
  const auto arrived = long_p["requests"]["arrived"].get<std::int64_t>();
  EXPECT_GT(arrived, 20);
  EXPECT_EQ(long_p["requests"]["finished"], arrived);
  EXPECT_EQ(routed(long_p, "p-0"), arrived);
  EXPECT_EQ(routed(long_p, "d-0"), arrived);  // the hand-off counts on D as well
}

TEST(EppRouting, LlmdDeprecatedPdConfigRoutesAsTheCurrentOne) {
  // llm-d's e2e test of the deprecated P/D config (prefill-header-handler and pd-profile-handler
  // with deciderPluginName): the same threshold (nonCachedTokens 16), the same routing.
  const std::string deprecated = read_file(std::string(BLIS_SOURCE_DIR) +
                                           "/tests/cluster/data/epp/e2e-deprecatedPdConfig.yaml");
  for (const std::int32_t prompt : {8, 1000}) {
    const nlohmann::json old_cfg = run(pd_scenario(prompt, deprecated));
    const nlohmann::json current = run(pd_scenario(prompt, kPdSample));
    const auto arrived = old_cfg["requests"]["arrived"].get<std::int64_t>();
    EXPECT_EQ(old_cfg["requests"]["finished"], arrived) << prompt;
    EXPECT_EQ(routed(old_cfg, "p-0"), prompt < 16 ? 0 : arrived) << prompt;
    EXPECT_EQ(routed(old_cfg, "d-0"), arrived) << prompt;
    EXPECT_EQ(routed(old_cfg, "p-0"), routed(current, "p-0")) << prompt;
  }
}

TEST(EppRouting, YamlStringAndJsonObjectRouteAlike) {
  // The same config as YAML text and as a JSON object: the same run.
  nlohmann::json as_object = nlohmann::json::parse(R"({
    "apiVersion": "llm-d.ai/v1alpha1", "kind": "EndpointPickerConfig",
    "plugins": [{"type": "prefix-cache-scorer"}, {"type": "queue-scorer"},
      {"type": "prefill-filter"}, {"type": "decode-filter"}, {"type": "max-score-picker"},
      {"type": "prefix-based-pd-decider", "parameters": {"nonCachedTokens": 16}},
      {"type": "disagg-profile-handler",
       "parameters": {"deciders": {"prefill": "prefix-based-pd-decider"}}}],
    "schedulingProfiles": [
      {"name": "prefill", "plugins": [{"pluginRef": "prefill-filter"},
        {"pluginRef": "max-score-picker"}, {"pluginRef": "prefix-cache-scorer", "weight": 2},
        {"pluginRef": "queue-scorer", "weight": 1}]},
      {"name": "decode", "plugins": [{"pluginRef": "decode-filter"},
        {"pluginRef": "max-score-picker"}, {"pluginRef": "prefix-cache-scorer", "weight": 2},
        {"pluginRef": "queue-scorer", "weight": 1}]}]})");
  // pd-epp-config.yaml also sets the prefix scorer's two parameters to their defaults.
  as_object["plugins"][0]["parameters"] = {{"maxPrefixBlocksToMatch", 256},
                                           {"lruCapacityPerServer", 31250}};
  Simulation a, b;
  ASSERT_FALSE(has_errors(a.load(pd_scenario(600, kPdSample).dump(), scenario::DecodeOptions{})));
  ASSERT_FALSE(has_errors(b.load(pd_scenario(600, as_object).dump(), scenario::DecodeOptions{})));
  a.run();
  b.run();
  EXPECT_EQ(a.digest(), b.digest());
}

TEST(EppRouting, ErrorsReachTheScenarioPointer) {
  nlohmann::json s = pd_scenario(
      8, nlohmann::json::parse(R"({"plugins": [{"type": "queue-scorer", "name": 3}]})"));
  Simulation sim;
  const Diagnostics ds = sim.load(s.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ds));
  EXPECT_EQ(ds.front().pointer, "/router/epp_config/plugins/0/name");

  s["router"]["epp_config"] = "plugins:\n- type: queue-scorr\n";
  const Diagnostics ys = Simulation().load(s.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ys));
  EXPECT_EQ(ys.front().pointer, "/router/epp_config");
  EXPECT_NE(ys.front().message.find("line 2, column 3"), std::string::npos) << ys.front().message;
  EXPECT_NE(ys.front().message.find("did you mean \"queue-scorer\""), std::string::npos);

  s["router"] = {{"policy", "epp"}};
  const Diagnostics ms = Simulation().load(s.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ms));
  EXPECT_EQ(ms.front().pointer, "/router/epp_config");

  s["router"] = {{"policy", "round-robin"}, {"epp_config", nlohmann::json::object()}};
  ASSERT_TRUE(has_errors(Simulation().load(s.dump(), scenario::DecodeOptions{})));
}

TEST(EppRouting, KvEventsDoNotChangeTheEngines) {
  // The precise scorer attaches KV-event listeners to every engine; with a single unified
  // instance the route is forced, so the run must equal round-robin's exactly.
  nlohmann::json s = nlohmann::json::parse(R"({
    "schema": "blis/scenario/v1", "seed": 2, "horizon": {"duration_s": 10, "drain": true},
    "pools": [{"name": "u", "instances": 1, "hardware": "H100-SXM-80GB",
       "model": "meta-llama/Llama-3.1-8B-Instruct",
       "engine": {"release": "0.32.0", "args": {"max_model_len": 4096}}}],
    "router": {"policy": "round-robin"},
    "workload": {"clients": [{"name": "c", "load": {"rate": 6},
      "shared_prefix": {"system_prompts": 2, "users_per_prompt": 2, "system_prompt_tokens": 500,
                        "question_tokens": 50, "output_tokens": 30}}]}
  })");
  Simulation rr;
  ASSERT_FALSE(has_errors(rr.load(s.dump(), scenario::DecodeOptions{})));
  rr.run();
  s["router"] = {
      {"policy", "epp"},
      {"epp_config", read_file(std::string(BLIS_SOURCE_DIR) +
                               "/tests/cluster/data/epp/epp-precise-prefix-cache-config.yaml")}};
  Simulation ep;
  const Diagnostics ds = ep.load(s.dump(), scenario::DecodeOptions{});
  ASSERT_FALSE(has_errors(ds)) << format_diagnostic(ds.front());
  ep.run();
  EXPECT_EQ(rr.digest(), ep.digest());
}

TEST(EppRouting, PreciseScorerFollowsTheEnginesCache) {
  // Two unified instances, two system prompts: the precise scorer sends each prompt's
  // requests where the engine holds its blocks, so the prefix-cache hit rate beats random's.
  nlohmann::json s = nlohmann::json::parse(R"({
    "schema": "blis/scenario/v1", "seed": 4, "horizon": {"duration_s": 20, "drain": true},
    "pools": [{"name": "u", "instances": 2, "hardware": "H100-SXM-80GB",
       "model": "meta-llama/Llama-3.1-8B-Instruct",
       "engine": {"release": "0.32.0", "args": {"max_model_len": 4096}}}],
    "router": {"policy": "random"},
    "workload": {"clients": [{"name": "c", "load": {"rate": 8},
      "shared_prefix": {"system_prompts": 6, "users_per_prompt": 4, "system_prompt_tokens": 1500,
                        "question_tokens": 50, "output_tokens": 30}}]}
  })");
  const nlohmann::json rnd = run(s);
  s["router"] = {
      {"policy", "epp"},
      {"epp_config", read_file(std::string(BLIS_SOURCE_DIR) +
                               "/tests/cluster/data/epp/epp-precise-prefix-cache-config.yaml")}};
  const nlohmann::json precise = run(s);
  const double hit_rnd = rnd["prefix_cache_hit_rate"].get<double>();
  const double hit_precise = precise["prefix_cache_hit_rate"].get<double>();
  EXPECT_GT(hit_precise, hit_rnd + 0.02) << hit_precise << " vs " << hit_rnd;
}

}  // namespace
}  // namespace blis::cluster
