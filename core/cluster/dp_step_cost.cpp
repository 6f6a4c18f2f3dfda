#include "cluster/dp_step_cost.h"

#include <algorithm>
#include <utility>

namespace blis::cluster {

DpStepCost::DpStepCost(std::shared_ptr<const KernelStepCost> rank_cost, std::int32_t dp)
    : rank_cost_(std::move(rank_cost)), ranks_(static_cast<std::size_t>(std::max(1, dp))) {}

void DpStepCost::split(const engine::Batch& batch) const {
  for (engine::Batch& b : ranks_) {
    b.requests.clear();
    b.total_tokens = b.prefill_tokens = b.decode_tokens = b.num_sampling = 0;
  }
  for (const engine::ScheduledRequest& q : batch.requests) {
    const auto r = static_cast<std::size_t>(
        std::clamp<std::int32_t>(q.dp_rank, 0, static_cast<std::int32_t>(ranks_.size()) - 1));
    engine::Batch& b = ranks_[r];
    b.requests.push_back(q);
    b.total_tokens += q.num_tokens;
    b.prefill_tokens += q.num_prefill_tokens;
    b.decode_tokens += q.num_tokens - q.num_prefill_tokens;
    if (q.samples) ++b.num_sampling;
  }
  max_tokens_ = 0;
  for (const engine::Batch& b : ranks_) max_tokens_ = std::max<double>(max_tokens_, b.total_tokens);
}

// Lockstep: the slowest rank's pass (vllm: every MoE layer's all-gather and reduce-scatter
// wait for all DP ranks).
StepTiming DpStepCost::price(const engine::Batch& batch) const {
  split(batch);
  StepTiming t;
  for (const engine::Batch& b : ranks_) {
    const StepTiming r = rank_cost_->price_rank(b, max_tokens_);
    t.gpu = std::max(t.gpu, r.gpu);
    t.cpu = std::max(t.cpu, r.cpu);
    t.stage = std::max(t.stage, r.stage);
    t.cross_node_us = std::max(t.cross_node_us, r.cross_node_us);
  }
  return t;
}

std::vector<CostTerm> DpStepCost::explain(const engine::Batch& batch) const {
  split(batch);
  // The slowest rank's terms.
  std::size_t slowest = 0;
  SimTime worst = -1;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    const SimTime g = rank_cost_->price_rank(ranks_[r], max_tokens_).gpu;
    if (g > worst) {
      worst = g;
      slowest = r;
    }
  }
  std::vector<CostTerm> terms = rank_cost_->explain_rank(ranks_[slowest], max_tokens_);
  terms.push_back({"dp_slowest_rank", static_cast<double>(slowest)});
  return terms;
}

}  // namespace blis::cluster
