#pragma once
// DenseDpEngine: one instance of a dense model with data parallelism: dp independent
// engine-core ranks behind vLLM's internal load balancer (docs/parallelism.md).
//
// vLLM starts a dense model's DP ranks as plain EngineCoreProcs (vllm/v1/engine/core.py
// run_engine_core: "Non-MoE DP ranks are completely independent, so treat like DP=1"): no
// waves, no dummy batches, no collective between the ranks, and the DP coordinator runs
// without wave coordination (v1/engine/utils.py: enable_wave_coordination = is_moe), only
// publishing the ranks' stats to the API servers' load balancers. So each rank steps on its
// own GPUs at its own pace: the instance runs one engine-core loop per rank (its lanes,
// instance.h), scheduling and completing each rank's passes through the *_rank calls below.
// The whole-engine schedule/complete are not used.

#include <cstdint>
#include <memory>
#include <vector>

#include "cluster/dp_ranks.h"

namespace blis::cluster {

class DenseDpEngine final : public DpRanks {
 public:
  DenseDpEngine(std::vector<std::unique_ptr<engine::Engine>> ranks, std::int32_t api_servers)
      : DpRanks(std::move(ranks), api_servers) {}

  void add_request(engine::RequestSpec spec, SimTime now) override;
  // Any rank could step (the instance's lanes ask rank by rank).
  bool can_schedule(SimTime now) const override;
  // Not used: the ranks step independently (throws std::logic_error).
  const engine::Batch* schedule(SimTime now) override;
  const engine::StepEvents& complete(std::uint64_t batch_id, const engine::StepOutcome& outcome,
                                     SimTime now) override;
  bool idle() const override;
  std::int32_t in_flight() const override;

  // Rank r's own engine-core loop (EngineCoreProc.step on that rank).
  bool can_schedule_rank(std::int32_t r, SimTime now) const {
    return ranks_[static_cast<std::size_t>(r)]->can_schedule(now);
  }
  const engine::Batch* schedule_rank(std::int32_t r, SimTime now);
  const engine::StepEvents& complete_rank(std::int32_t r, std::uint64_t batch_id,
                                          const engine::StepOutcome& outcome, SimTime now);
  // Passes each rank completed.
  const std::vector<std::int64_t>& steps_per_rank() const { return steps_per_rank_; }

 private:
  engine::Batch batch_;  // the rank's batch with its dp_rank set
  std::vector<std::int64_t> steps_per_rank_ = std::vector<std::int64_t>(ranks_.size(), 0);
};

}  // namespace blis::cluster
