#pragma once
// DpStepCost: the price of one lockstep step of a data-parallel MoE instance (dp_engine.h):
// every rank's pass priced by the kernel on its own requests (an empty pass is the dummy
// batch), with the MoE layers on the whole group's tokens and the dispatch/combine
// (kernel::StepPricer::price_in_group); the step lasts as long as its slowest rank, since the
// MoE layers' collectives wait for every rank. The engine-core threads are one per rank and
// run in parallel: the step's CPU time is the slowest rank's too.

#include <memory>
#include <vector>

#include "cluster/kernel_step_cost.h"

namespace blis::cluster {

class DpStepCost : public StepCostModel {
 public:
  DpStepCost(std::shared_ptr<const KernelStepCost> rank_cost, std::int32_t dp);
  StepTiming price(const engine::Batch& batch) const override;
  std::vector<CostTerm> explain(const engine::Batch& batch) const override;

  // The rank passes of one step (rank r's requests are those with dp_rank == r), and the
  // largest token count among them.
  void split(const engine::Batch& batch) const;
  const engine::Batch& rank_batch(std::int32_t r) const {
    return ranks_[static_cast<std::size_t>(r)];
  }
  double group_max_tokens() const { return max_tokens_; }

 private:
  std::shared_ptr<const KernelStepCost> rank_cost_;
  mutable std::vector<engine::Batch> ranks_;  // scratch, reused between steps
  mutable double max_tokens_ = 0;
};

}  // namespace blis::cluster
