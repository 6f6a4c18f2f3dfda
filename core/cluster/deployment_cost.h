#pragma once
// What a deployment costs to run, from its GPU count and prices: the `cost` block of
// summary.json (docs/results.md). Prices are indicative list prices (catalog GPUs) or the
// scenario's own (pools[].cost_per_gpu_hour); a pool without a price leaves the dollar
// figures null.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace blis::cluster {

struct PoolCostInput {
  std::string name;
  std::int64_t gpus = 0;        // instances x tp x pp x dp
  double usd_per_gpu_hour = 0;  // 0 = unknown
  std::string price_source;
};

struct DeploymentCost {
  std::int64_t gpus = 0;
  double output_tokens_per_s_per_gpu = 0;
  // Null without an SLO: goodput is only defined against one (summary.json writes null).
  std::optional<double> goodput_requests_per_s_per_gpu;
  // Null when a pool has no price, or (per-unit figures) when nothing finished.
  std::optional<double> usd_per_hour, usd_per_million_output_tokens, usd_per_million_requests;
};

// Throughputs are the cluster's, over the summary's span (requests finished / span).
DeploymentCost deployment_cost(const std::vector<PoolCostInput>& pools, double output_tokens_per_s,
                               double requests_per_s, std::optional<double> goodput_requests_per_s);

// {"gpus", "usd_per_hour", "output_tokens_per_s_per_gpu", "goodput_requests_per_s_per_gpu",
//  "usd_per_million_output_tokens", "usd_per_million_requests", "pools": [...]}.
nlohmann::ordered_json cost_json(const std::vector<PoolCostInput>& pools,
                                 const DeploymentCost& cost);

}  // namespace blis::cluster
