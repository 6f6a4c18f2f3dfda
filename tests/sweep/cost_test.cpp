// The cost block of summary.json: GPU count, per-GPU throughput and dollars, from the catalog
// GPU's indicative price or the pool's cost_per_gpu_hour.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "cluster/deployment_cost.h"
#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

TEST(DeploymentCost, CountsGpusAndPricesUnits) {
  const std::vector<PoolCostInput> pools = {{"p", 2 * 4, 2.0, "x"}, {"d", 4, 3.0, "y"}};
  const DeploymentCost c = deployment_cost(pools, 1200.0, 10.0, 6.0);
  EXPECT_EQ(c.gpus, 12);
  EXPECT_DOUBLE_EQ(c.output_tokens_per_s_per_gpu, 100.0);
  ASSERT_TRUE(c.goodput_requests_per_s_per_gpu);
  EXPECT_DOUBLE_EQ(*c.goodput_requests_per_s_per_gpu, 0.5);
  ASSERT_TRUE(c.usd_per_hour);
  EXPECT_DOUBLE_EQ(*c.usd_per_hour, 28.0);
  // $28/h over 1200 tok/s * 3600 s = 4.32M tokens per hour.
  EXPECT_NEAR(*c.usd_per_million_output_tokens, 28.0 / 4.32, 1e-12);
  EXPECT_NEAR(*c.usd_per_million_requests, 28.0 / 0.036, 1e-9);
}

TEST(DeploymentCost, UnknownPriceOrNoOutputLeavesDollarsNull) {
  const DeploymentCost unpriced = deployment_cost({{"p", 1, 0.0, ""}, {"q", 1, 2.0, ""}}, 10, 1, 1);
  EXPECT_EQ(unpriced.gpus, 2);
  EXPECT_FALSE(unpriced.usd_per_hour);
  EXPECT_FALSE(unpriced.usd_per_million_output_tokens);
  const DeploymentCost idle = deployment_cost({{"p", 1, 2.0, ""}}, 0, 0, 0);
  ASSERT_TRUE(idle.usd_per_hour);
  EXPECT_FALSE(idle.usd_per_million_output_tokens);
  EXPECT_FALSE(idle.usd_per_million_requests);
  const auto j = cost_json({{"p", 1, 0.0, ""}}, deployment_cost({{"p", 1, 0.0, ""}}, 1, 1, 1));
  EXPECT_TRUE(j["usd_per_hour"].is_null());
  EXPECT_TRUE(j["pools"][0]["usd_per_gpu_hour"].is_null());
}

TEST(CatalogPrice, EveryBuiltInGpuHasAnIndicativePriceWithSourceAndDate) {
  const auto& cat = catalog::Catalog::builtin();
  for (const char* id : {"H100-SXM-80GB", "H200-SXM-141GB", "A100-SXM-80GB", "A100-SXM-40GB",
                         "L40S-48GB", "L4-24GB", "B200-SXM-180GB", "MI300X-192GB"}) {
    const catalog::Gpu* g = cat.find_gpu(id);
    ASSERT_NE(g, nullptr) << id;
    EXPECT_GT(g->usd_per_gpu_hour, 0) << id;
    EXPECT_NE(g->price_source.find("http"), std::string::npos) << id;
    EXPECT_EQ(g->price_as_of.size(), 10u) << id;
  }
}

std::string scenario_text(const std::string& pool_extra) {
  return R"({"schema": "blis/scenario/v1", "name": "cost", "seed": 3,
    "horizon": {"duration_s": 3, "drain": true},
    "pools": [{"name": "p", "instances": 2, "hardware": "H100-SXM-80GB",
               "model": "meta-llama/Llama-3.1-8B-Instruct", "parallelism": {"tp": 2})" +
         pool_extra + R"(,
               "engine": {"args": {"max_model_len": 4096}}}],
    "workload": {"clients": [{"name": "c", "load": {"rate": 8},
      "prompt_tokens": {"dist": "constant", "value": 256},
      "output_tokens": {"dist": "constant", "value": 32}}]}})";
}

nlohmann::json run_summary(const std::string& text) {
  Simulation sim;
  const Diagnostics ds = sim.load(text, scenario::DecodeOptions{});
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds.front()));
  sim.run();
  return nlohmann::json::parse(sim.summary_json(0));
}

TEST(SummaryCost, UsesTheCatalogPriceAndCountsInstancesTimesTp) {
  const auto s = run_summary(scenario_text(""));
  const auto& c = s["cost"];
  EXPECT_EQ(c["gpus"].get<int>(), 4);
  const double price = catalog::Catalog::builtin().find_gpu("H100-SXM-80GB")->usd_per_gpu_hour;
  EXPECT_DOUBLE_EQ(c["usd_per_hour"].get<double>(), 4 * price);
  const double tok_s = s["throughput"]["output_tokens_per_s"].get<double>();
  ASSERT_GT(tok_s, 0);
  EXPECT_DOUBLE_EQ(c["output_tokens_per_s_per_gpu"].get<double>(), tok_s / 4);
  EXPECT_NEAR(c["usd_per_million_output_tokens"].get<double>(), 4 * price / (tok_s * 3600) * 1e6,
              1e-9);
  EXPECT_NE(c["pools"][0]["price_source"].get<std::string>().find("indicative"), std::string::npos);
}

TEST(SummaryCost, PoolCostPerGpuHourOverridesTheCatalog) {
  const auto s = run_summary(scenario_text(R"(, "cost_per_gpu_hour": 1.5)"));
  EXPECT_DOUBLE_EQ(s["cost"]["usd_per_hour"].get<double>(), 6.0);
  EXPECT_EQ(s["cost"]["pools"][0]["price_source"].get<std::string>(),
            "scenario /pools/0/cost_per_gpu_hour");
}

TEST(SummaryCost, BadCostPerGpuHourNamesItsPointer) {
  const Diagnostics ds =
      scenario::validate_scenario_text(scenario_text(R"(, "cost_per_gpu_hour": 0)"));
  ASSERT_TRUE(has_errors(ds));
  EXPECT_EQ(ds.front().pointer, "/pools/0/cost_per_gpu_hour");
}

}  // namespace
}  // namespace blis::cluster
