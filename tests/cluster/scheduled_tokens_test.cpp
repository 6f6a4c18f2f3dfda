// engine.args.max_num_scheduled_tokens reaches the cluster's engine: a budget below
// max_num_batched_tokens splits each prefill over more steps, so the same workload is
// scheduled differently (vllm/config/scheduler.py SchedulerConfig.max_num_scheduled_tokens,
// the token_budget of vllm/v1/core/sched/scheduler.py Scheduler.schedule).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"
#include "sim_harness.h"

namespace blis::cluster {
namespace {

using nlohmann::json;

// examples/default.json on one instance for 3 s, one client of 1000-token prompts; `budget`
// is max_num_scheduled_tokens (null = unset).
std::string scenario_text(const json& budget) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / "default.json",
                   std::ios::binary);
  json doc = json::parse(std::string(std::istreambuf_iterator<char>(in), {}));
  doc["horizon"] = {{"duration_s", 3}, {"drain", true}};
  json& pool = doc["pools"][0];
  pool["instances"] = 1;
  pool["engine"]["args"]["max_num_batched_tokens"] = 8192;
  pool["engine"]["args"]["async_scheduling"] = false;
  if (!budget.is_null()) pool["engine"]["args"]["max_num_scheduled_tokens"] = budget;
  doc["router"] = {{"policy", "round-robin"}};
  doc["workload"]["clients"] =
      json::array({{{"name", "c"},
                    {"load", {{"rate", 8}}},
                    {"prompt_tokens", {{"dist", "constant"}, {"value", 1000}}},
                    {"output_tokens", {{"dist", "constant"}, {"value", 40}}}}});
  return doc.dump();
}

struct BudgetRun {
  json summary;
  std::string digest;
};

BudgetRun run_budget(const std::string& text) {
  Simulation sim;
  testing::load_and_run(sim, text);
  return {json::parse(sim.summary_json(0)), sim.digest()};
}

TEST(ScheduledTokens, DecodesIntoThePoolsEngineArgs) {
  const auto r = scenario::decode_scenario(scenario_text(256));
  ASSERT_TRUE(r.scenario.has_value());
  EXPECT_EQ(r.scenario->pools[0].engine.args.max_num_scheduled_tokens, 256);
  const auto unset = scenario::decode_scenario(scenario_text(nullptr));
  ASSERT_TRUE(unset.scenario.has_value());
  EXPECT_FALSE(unset.scenario->pools[0].engine.args.max_num_scheduled_tokens.has_value());
}

TEST(ScheduledTokens, ASmallerBudgetChunksPrefillsInAClusterRun) {
  const BudgetRun wide = run_budget(scenario_text(nullptr));
  const BudgetRun narrow = run_budget(scenario_text(256));
  // Every request still finishes (the run drains) ...
  ASSERT_TRUE(wide.summary["requests"].contains("finished"));
  EXPECT_GT(wide.summary["requests"]["finished"].get<double>(), 0);
  EXPECT_EQ(wide.summary["requests"]["finished"], narrow.summary["requests"]["finished"]);
  EXPECT_EQ(narrow.summary["requests"]["arrived"], narrow.summary["requests"]["finished"]);
  // ... but a 1000-token prompt needs four steps of 256 instead of one: first tokens come later.
  EXPECT_NE(wide.digest, narrow.digest);
  EXPECT_GT(narrow.summary["sim"]["steps"].get<double>(),
            wide.summary["sim"]["steps"].get<double>());
  EXPECT_GT(narrow.summary["ttft_ms"]["mean"].get<double>(),
            wide.summary["ttft_ms"]["mean"].get<double>());
}

TEST(ScheduledTokens, TheBudgetEqualToTheBatchIsTheDefault) {
  // Without speculative decoding the unset budget is max_num_batched_tokens.
  EXPECT_EQ(run_budget(scenario_text(8192)).digest, run_budget(scenario_text(nullptr)).digest);
}

// A budget of 0 is accepted by vLLM (SchedulerConfig Field(ge=0); without speculative decoding
// VllmConfig._set_max_num_scheduled_tokens checks nothing) and its Scheduler.schedule then
// schedules no token: the run still ends (drained) with every request unserved, no step run.
TEST(ScheduledTokens, AZeroBudgetServesNothingAndTheRunEnds) {
  const BudgetRun zero = run_budget(scenario_text(0));
  EXPECT_GT(zero.summary["requests"]["arrived"].get<double>(), 0);
  EXPECT_EQ(zero.summary["requests"].value("finished", 0.0), 0.0) << zero.summary.dump();
  EXPECT_EQ(zero.summary["sim"]["steps"].get<double>(), 0.0) << zero.summary.dump();
}

}  // namespace
}  // namespace blis::cluster
