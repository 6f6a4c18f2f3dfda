#include "cluster/kernel_step_cost.h"

#include <algorithm>
#include <cmath>

namespace blis::cluster {

KernelStepCost::KernelStepCost(const kernel::Deployment& d)
    : pricer_(d),
      cpu_step_us_(d.coefficients.host_step_us),
      cpu_per_request_us_(d.coefficients.host_per_request_us) {}

double KernelStepCost::cpu_us(const engine::Batch& batch) const {
  return cpu_step_us_ + cpu_per_request_us_ * static_cast<double>(batch.requests.size());
}

StepTiming KernelStepCost::price(const engine::Batch& batch) const {
  return timing(pricer_.price(batch), batch);
}

StepTiming KernelStepCost::price_rank(const engine::Batch& batch, double group_max_tokens) const {
  return timing(pricer_.price_in_group(batch, group_max_tokens), batch);
}

StepTiming KernelStepCost::timing(const kernel::StepCost& c, const engine::Batch& batch) const {
  if (c.total <= 0) return {};
  // Rounded like the kernel's total (floor(x + 0.5) of a non-negative value).
  const auto cpu =
      std::min<SimTime>(c.total, static_cast<SimTime>(std::floor(cpu_us(batch) + 0.5)));
  const auto drafter = static_cast<SimTime>(std::floor(drafter_.price_us(batch) + 0.5));
  StepTiming t{c.total - cpu + drafter, cpu};
  t.cross_node_us = c.cross_node_us;
  // Pipeline parallelism: the busiest stage's hold on the GPUs, the CPU work taken out as
  // from the total (the drafter runs on the last stage after sampling).
  if (c.pp_stage_us > 0) {
    const auto stage = static_cast<SimTime>(std::floor(c.pp_stage_us + 0.5));
    t.stage = std::max<SimTime>(1, std::min(t.gpu, stage - cpu + drafter));
  }
  return t;
}

std::vector<CostTerm> KernelStepCost::explain(const engine::Batch& batch) const {
  return explain_rank(batch, -1);
}

std::vector<CostTerm> KernelStepCost::explain_rank(const engine::Batch& batch,
                                                   double group_max_tokens) const {
  const kernel::StepCost c = pricer_.price_in_group(batch, group_max_tokens);
  const double cpu = c.total > 0 ? std::min(c.host_us, cpu_us(batch)) : 0.0;
  std::vector<CostTerm> terms = {{"gemm", c.gemm_us},
                                 {"prefill_attention", c.prefill_attention_us},
                                 {"decode_attention", c.decode_attention_us},
                                 {"moe", c.moe_us},
                                 {"tp_comm", c.tp_comm_us},
                                 {"other_memory", c.other_memory_us},
                                 {"sampler", c.sampler_us},
                                 {"launch", c.host_us - cpu},
                                 {"engine_core_cpu", cpu}};
  if (c.ep_comm_us > 0) terms.push_back({"ep_dispatch_combine", c.ep_comm_us});
  if (c.pp_handoff_us > 0) terms.push_back({"pp_handoff", c.pp_handoff_us});
  if (drafter_.kind() != kernel::DrafterCost::Kind::kNone)
    terms.push_back({"drafter", drafter_.price_us(batch)});
  return terms;
}

}  // namespace blis::cluster
