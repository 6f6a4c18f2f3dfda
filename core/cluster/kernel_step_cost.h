#pragma once
// KernelStepCost: the latency kernel's step price split the way an instance's engine-core
// loop needs it (step_cost.h). The kernel's host term holds the engine core's CPU work per
// step (coefficients host.step_us + host.per_request_us per scheduled request: scheduling,
// input preparation, output processing) and the launch overheads on the GPU's timeline (CUDA
// graph replay, piecewise graph pieces, exposed eager launches). The CPU work is `cpu`, which
// async scheduling overlaps with the previous pass; everything else is `gpu`.

#include <vector>

#include "cluster/step_cost.h"
#include "kernel/deployment.h"
#include "kernel/drafter_cost.h"
#include "kernel/step_pricer.h"

namespace blis::cluster {

class KernelStepCost : public StepCostModel {
 public:
  explicit KernelStepCost(const kernel::Deployment& d);
  StepTiming price(const engine::Batch& batch) const override;
  // One data-parallel rank's pass in a lockstep step whose largest rank computes
  // `group_max_tokens` tokens (kernel::StepPricer::price_in_group); empty = a dummy pass.
  StepTiming price_rank(const engine::Batch& batch, double group_max_tokens) const;
  std::vector<CostTerm> explain_rank(const engine::Batch& batch, double group_max_tokens) const;
  std::vector<CostTerm> explain(const engine::Batch& batch) const override;
  const kernel::StepPricer& pricer() const { return pricer_; }
  // Speculative decoding: the drafter's work after each step's sampling, on the pass's
  // timeline (kernel/drafter_cost.h). Default: none.
  void set_drafter(kernel::DrafterCost d) { drafter_ = std::move(d); }

 private:
  kernel::StepPricer pricer_;
  kernel::DrafterCost drafter_;
  double cpu_step_us_, cpu_per_request_us_;
  double cpu_us(const engine::Batch& batch) const;
  StepTiming timing(const kernel::StepCost& c, const engine::Batch& batch) const;
};

}  // namespace blis::cluster
