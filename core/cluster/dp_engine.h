#pragma once
// DpEngine: one instance of an MoE model with data parallelism, dp engine-core ranks behind
// vLLM's internal load balancer, stepping in lockstep (docs/parallelism.md).
//
// Each rank is a whole engine of its own (its Scheduler and KV cache: the existing vLLM
// engine). The balancer (dp_balancer.h) picks a rank for every request (dp_ranks.h). The ranks of
// an MoE model run vLLM's DPEngineCoreProc (vllm/v1/engine/core.py run_engine_core: DP with
// model_config.is_moe), whose MoE layers exchange tokens with every other rank in every
// forward pass, so the ranks run the same number of passes: a step here is one pass on every
// rank, a rank with nothing to run doing a dummy pass (DPEngineCoreProc.run_busy_loop:
// execute_dummy_batch "when no ready requests ran") while the wave is running. The step is
// priced as its slowest rank (dp_step_cost.h).
//
// Wave bookkeeping (DPEngineCoreProc, coordinator.py DPCoordinator): a request reaching
// idle ranks starts a wave (engines_running = true, START_DP_WAVE to the others); every
// 32nd step the ranks all-reduce whether any has unfinished requests
// (_has_global_unfinished_reqs), and when none has, the wave ends (current_wave + 1,
// step_counter = 0) and the ranks pause. Between the last request's end and that check the
// ranks keep running dummy passes.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cluster/dp_ranks.h"

namespace blis::cluster {

struct DpWaveCounters {
  std::int64_t current_wave = 0;
  std::int64_t step_counter = 0;  // steps in the current wave
  bool engines_running = false;
  std::int64_t steps = 0;         // lockstep steps launched
  std::int64_t dummy_passes = 0;  // rank passes that were dummy batches
  std::int64_t waves_completed = 0;
  std::int64_t waves_started = 0;  // requests that found the ranks paused (START_DP_WAVE)
};

class DpEngine final : public DpRanks {
 public:
  // vllm core.py DPEngineCoreProc._has_global_unfinished_reqs: "only perform finish-sync
  // all-reduce every 32 steps".
  static constexpr std::int64_t kSyncEverySteps = 32;

  // `ranks`: the dp engines (at least 2); `api_servers`: the balancer's clients.
  DpEngine(std::vector<std::unique_ptr<engine::Engine>> ranks, std::int32_t api_servers);

  void add_request(engine::RequestSpec spec, SimTime now) override;
  bool can_schedule(SimTime now) const override;
  const engine::Batch* schedule(SimTime now) override;
  const engine::StepEvents& complete(std::uint64_t batch_id, const engine::StepOutcome& outcome,
                                     SimTime now) override;
  bool idle() const override;
  std::int32_t in_flight() const override { return static_cast<std::int32_t>(inflight_.size()); }
  const DpWaveCounters& waves() const { return waves_; }

 private:
  struct Slice {
    bool ran = false;  // false: the rank ran a dummy pass
    std::uint64_t batch_id = 0;
    std::size_t offset = 0, count = 0;
  };
  struct Step {
    std::uint64_t id = 0;
    std::vector<Slice> slices;  // per rank
  };
  std::deque<Step> inflight_;
  engine::Batch batch_;
  engine::StepEvents events_;
  engine::StepOutcome scratch_outcome_;
  std::uint64_t next_id_ = 1;
  DpWaveCounters waves_;

  void end_of_step_sync();
};

}  // namespace blis::cluster
