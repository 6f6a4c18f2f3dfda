#include "kernel/drafter_cost.h"

#include <algorithm>

namespace blis::kernel {

DrafterCost DrafterCost::ngram(std::int32_t k, NgramCoefficients c) {
  DrafterCost d;
  d.kind_ = k > 0 ? Kind::kNgram : Kind::kNone;
  d.k_ = k;
  d.ngram_ = c;
  return d;
}

DrafterCost DrafterCost::passes(const Deployment& drafter, std::int32_t k) {
  DrafterCost d;
  if (k <= 0) return d;
  d.kind_ = Kind::kPasses;
  d.k_ = k;
  d.pricer_ = std::make_shared<StepPricer>(drafter);
  d.host_step_us_ = drafter.coefficients.host_step_us;
  d.host_per_request_us_ = drafter.coefficients.host_per_request_us;
  return d;
}

// One draft pass without the engine core's scheduling CPU (the drafter runs inside the
// target's execute step; only its launches and kernels add), like KernelStepCost's gpu part.
double DrafterCost::pass_us(const engine::Batch& b) const {
  const StepCost c = pricer_->price(b);
  const double cpu = host_step_us_ + host_per_request_us_ * static_cast<double>(b.requests.size());
  return std::max(0.0, c.sum_us() - std::min(c.host_us, cpu));
}

double DrafterCost::price_us(const engine::Batch& target) const {
  if (kind_ == Kind::kNone || target.num_sampling <= 0) return 0;
  if (kind_ == Kind::kNgram) {
    double us = ngram_.step_us;
    for (const auto& r : target.requests) {
      if (!r.samples) continue;
      us += ngram_.per_request_us +
            ngram_.per_token_us * static_cast<double>(r.context_before + r.num_tokens);
    }
    return us;
  }
  // The first pass runs the drafter over the step's own tokens (keeping its KV cache in step
  // with the target's); the next k - 1 passes draft one token per sampling request.
  double us = pass_us(target);
  if (k_ <= 1) return us;
  scratch_.requests.clear();
  for (const auto& r : target.requests) {
    if (!r.samples) continue;
    engine::ScheduledRequest q;
    q.key = r.key;
    q.num_tokens = 1;
    q.context_before = r.context_before + r.num_tokens;
    q.samples = true;
    scratch_.requests.push_back(q);
  }
  const auto n = static_cast<std::int32_t>(scratch_.requests.size());
  scratch_.total_tokens = scratch_.decode_tokens = scratch_.num_sampling = n;
  scratch_.prefill_tokens = 0;
  for (std::int32_t j = 1; j < k_; ++j) {
    us += pass_us(scratch_);
    for (auto& q : scratch_.requests) ++q.context_before;
  }
  return us;
}

Deployment eagle_head_deployment(const Deployment& target) {
  Deployment head = target;
  head.model.num_hidden_layers = 1;
  head.model.extra_params = 0;
  return head;
}

}  // namespace blis::kernel
