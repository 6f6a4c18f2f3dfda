#include "cluster/deployment_cost.h"

namespace blis::cluster {

namespace {

constexpr double kSecondsPerHour = 3600;

nlohmann::ordered_json or_null(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}

}  // namespace

DeploymentCost deployment_cost(const std::vector<PoolCostInput>& pools, double output_tokens_per_s,
                               double requests_per_s,
                               std::optional<double> goodput_requests_per_s) {
  DeploymentCost c;
  double usd_per_hour = 0;
  bool priced = !pools.empty();
  for (const PoolCostInput& p : pools) {
    c.gpus += p.gpus;
    if (p.usd_per_gpu_hour <= 0) priced = false;
    usd_per_hour += static_cast<double>(p.gpus) * p.usd_per_gpu_hour;
  }
  if (c.gpus > 0) {
    const auto g = static_cast<double>(c.gpus);
    c.output_tokens_per_s_per_gpu = output_tokens_per_s / g;
    if (goodput_requests_per_s) c.goodput_requests_per_s_per_gpu = *goodput_requests_per_s / g;
  }
  if (!priced) return c;
  c.usd_per_hour = usd_per_hour;
  // Dollars per hour over units per hour: the whole deployment is paid for while it serves
  // the offered load, idle or not.
  if (output_tokens_per_s > 0)
    c.usd_per_million_output_tokens = usd_per_hour / (output_tokens_per_s * kSecondsPerHour) * 1e6;
  if (requests_per_s > 0)
    c.usd_per_million_requests = usd_per_hour / (requests_per_s * kSecondsPerHour) * 1e6;
  return c;
}

nlohmann::ordered_json cost_json(const std::vector<PoolCostInput>& pools,
                                 const DeploymentCost& cost) {
  nlohmann::ordered_json out;
  out["gpus"] = cost.gpus;
  out["usd_per_hour"] = or_null(cost.usd_per_hour);
  out["output_tokens_per_s_per_gpu"] = cost.output_tokens_per_s_per_gpu;
  out["goodput_requests_per_s_per_gpu"] = or_null(cost.goodput_requests_per_s_per_gpu);
  out["usd_per_million_output_tokens"] = or_null(cost.usd_per_million_output_tokens);
  out["usd_per_million_requests"] = or_null(cost.usd_per_million_requests);
  nlohmann::ordered_json ps = nlohmann::ordered_json::array();
  for (const PoolCostInput& p : pools) {
    ps.push_back(
        {{"name", p.name},
         {"gpus", p.gpus},
         {"usd_per_gpu_hour", p.usd_per_gpu_hour > 0 ? nlohmann::ordered_json(p.usd_per_gpu_hour)
                                                     : nlohmann::ordered_json(nullptr)},
         {"price_source", p.price_source}});
  }
  out["pools"] = std::move(ps);
  return out;
}

}  // namespace blis::cluster
