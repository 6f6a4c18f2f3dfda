#pragma once
// Instance: one vLLM server (engine core + API server) on one deployment, timed the way
// vLLM's EngineCore busy loop runs (vllm/v1/engine/core.py step / step_with_batch_queue).
//
// The engine-core thread and the GPU are two resources. Each loop iteration the thread
// either schedules a new pass (its CPU cost from the StepCostModel) and launches it on the
// GPU, which runs passes back to back, or blocks on the oldest in-flight pass and applies its
// output. With async scheduling (max_concurrent_batches = 2) the next pass is scheduled while
// the previous one runs, so the scheduling CPU time overlaps the GPU time; without it
// (depth 1) they are serial. The API server's output handler is a third, single server that
// turns each step's output into streamed tokens (serving_overheads.h).
//
// The instance does not own time: the Simulation calls run_loop() and complete_oldest() at
// the instants they return, through its event queue.
//
// Lanes: an instance of a dense model with data parallelism (dense_dp_engine.h) runs one
// engine-core loop per DP rank, each on its own GPUs, with its own batch queue, output
// handler (the ranks' outputs reach the API servers in parallel) and LoRA slots; every other
// instance has one lane. The calls below take the lane; lane 0 is the only one otherwise.

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cluster/lora_residency.h"
#include "cluster/serving_overheads.h"
#include "cluster/step_cost.h"
#include "engine/engine.h"
#include "scenario/scenario.h"
#include "util/rng.h"
#include "util/sim_time.h"

namespace blis::cluster {

class DenseDpEngine;

struct LoopDecision {
  enum class Kind {
    kLoopAgain,  // a pass was launched and the pipeline is not full: loop again at `at`
    kWaitBatch,  // block on the oldest in-flight pass, which completes at `at`
    kIdle,       // nothing to run and nothing in flight: wait for an arrival or a wake-up
  };
  Kind kind = Kind::kIdle;
  SimTime at = kSimTimeNever;
  const engine::Batch* launched = nullptr;  // the pass launched by this iteration, if any
  // Of `launched`, as launched (a pass priced again later ends later: reprice_collective).
  SimTime gpu_start = 0, gpu_end = 0;
};

struct InstanceCounters {
  std::uint64_t steps = 0;            // passes completed
  std::uint64_t tokens_computed = 0;  // scheduled tokens of completed passes
  SimTime gpu_busy = 0;               // sum of pass GPU times
  SimTime cpu_busy = 0;               // sum of scheduling CPU times
  // Passes whose transfers between nodes were slowed by flows sharing their links, and the
  // time that added (LinkShare).
  std::uint64_t collectives_slowed = 0;
  SimTime collective_extra = 0;
  // Of them, passes priced again while they ran, because a transfer started later slowed
  // their bytes (reprice_collective).
  std::uint64_t collectives_repriced = 0;
};

class Instance {
 public:
  // `spec_acceptance`: per-draft-token acceptance probability for speculative decoding.
  Instance(std::int32_t index, std::string name, std::int32_t pool,
           std::unique_ptr<engine::Engine> engine, const StepCostModel& pricer,
           ServingOverheads overheads, double spec_acceptance, Rng spec_rng);

  std::int32_t index() const { return index_; }
  const std::string& name() const { return name_; }
  std::int32_t pool() const { return pool_; }
  engine::Engine& engine() { return *engine_; }
  const engine::Engine& engine() const { return *engine_; }

  // The engine-core loops: one per DP rank of a dense model, else one.
  std::int32_t lanes() const { return static_cast<std::int32_t>(lanes_.size()); }
  // One iteration of lane `lane`'s engine-core busy loop, with its thread free at `t`
  // (core.py step_with_batch_queue's decision rule).
  LoopDecision run_loop(SimTime t, std::int32_t lane = 0);
  // Applies the lane's oldest in-flight pass's output at `t` (>= its GPU end).
  const engine::StepEvents& complete_oldest(SimTime t, std::int32_t lane = 0);
  // The API server handles a step output carrying new tokens for `requests` requests, handed
  // over at `t`; returns when its tokens reach the clients.
  SimTime stream_outputs(SimTime t, std::int32_t requests, std::int32_t lane = 0);
  // When a request sent at `t` with `prompt_tokens` tokens reaches the engine.
  SimTime engine_arrival(SimTime t, std::int32_t prompt_tokens) const;

  // The acceptance model of a request's client (its spec_acceptance), or null for the pool's
  // per-draft-token rate. Unset = every request uses the pool's rate.
  using AcceptanceOf = std::function<const scenario::SpecAcceptance*(engine::RequestKey)>;
  void set_acceptance_of(AcceptanceOf f) { acceptance_of_ = std::move(f); }
  // Shares a launched pass's transfers between nodes (StepTiming::cross_node_us, as priced
  // alone) with the network's flows at the launch instant: the microseconds that adds to the
  // pass, and the id of the network flow that carries its bytes (0 = none), by which a later
  // start that slows that flow re-prices the pass (reprice_collective). Unset = the kernel's
  // price stands.
  struct SharedCollective {
    SimTime extra = 0;
    std::uint64_t flow = 0;
  };
  using LinkShare = std::function<SharedCollective(Instance&, SimTime now, double cross_node_us)>;
  void set_link_share(LinkShare f) { link_share_ = std::move(f); }
  // The in-flight pass whose inter-node bytes are network flow `flow` now takes `shared_us`
  // (from the flow's start, unrounded) to send them: the pass, and the passes queued behind
  // it on the GPU, end later by what that adds over the price already applied (a price only
  // grows: a flow that a start speeds up leaves its pass as priced). False when no pass in
  // flight carries `flow`.
  bool reprice_collective(std::uint64_t flow, double shared_us);

  SimTime oldest_gpu_end(std::int32_t lane = 0) const;
  // Passes in flight over all lanes.
  std::int32_t in_flight() const;
  // Over all lanes (gpu_busy sums the lanes' GPU sets).
  const InstanceCounters& counters() const { return counters_; }
  const ServingOverheads& overheads() const { return overheads_; }
  // LoRA pools: the worker's adapter residency, whose loads and kernels add to each pass
  // (one per lane: each DP rank's workers hold their own adapters).
  void set_lora(std::unique_ptr<LoraResidency> lora, std::int32_t lane = 0) {
    lane_at(lane).lora = std::move(lora);
  }
  // Lane 0's by default (the EPP's LoRA probe reads every lane: reported_adapters).
  const LoraResidency* lora(std::int32_t lane = 0) const { return lane_at(lane).lora.get(); }

  // Loop bookkeeping owned by the Simulation: is a lane's engine-loop or batch-done event
  // pending?
  bool loop_pending(std::int32_t lane = 0) const { return lane_at(lane).loop_pending; }
  void set_loop_pending(std::int32_t lane, bool pending) { lane_at(lane).loop_pending = pending; }
  SimTime wake_at = kSimTimeNever;  // pending kEngineWake event, if any

 private:
  struct InFlight {
    std::uint64_t batch_id = 0;
    SimTime launch = 0;     // when the engine-core thread handed it to the GPU
    SimTime gpu_start = 0;  // when the GPU began it (after the pass before it)
    SimTime gpu = 0;        // its GPU time, contention included
    SimTime stage = 0;      // its busiest pipeline stage (0 = no pipeline)
    SimTime gpu_end = 0;
    std::int32_t tokens = 0;
    // Its inter-node bytes as a network flow (0 = none), their time alone, and the time
    // sharing has added to the pass so far.
    std::uint64_t flow = 0;
    double cross_node_us = 0;
    SimTime collective_extra = 0;
    engine::StepOutcome outcome;  // spec-decode acceptance drawn at launch
  };
  std::int32_t index_;
  std::string name_;
  std::int32_t pool_;
  std::unique_ptr<engine::Engine> engine_;
  const StepCostModel* pricer_;
  ServingOverheads overheads_;
  double spec_acceptance_;
  Rng spec_rng_;
  AcceptanceOf acceptance_of_;
  LinkShare link_share_;
  DenseDpEngine* dense_ = nullptr;  // the engine, when its lanes are DP ranks

  struct Lane {
    std::vector<InFlight> ring;  // in-flight passes, oldest at head
    std::int32_t head = 0, count = 0;
    SimTime gpu_free = 0;
    SimTime output_free = 0;
    bool loop_pending = false;
    std::unique_ptr<LoraResidency> lora;
  };
  std::vector<Lane> lanes_;
  InstanceCounters counters_;

  Lane& lane_at(std::int32_t l) { return lanes_[static_cast<std::size_t>(l)]; }
  const Lane& lane_at(std::int32_t l) const { return lanes_[static_cast<std::size_t>(l)]; }
  bool lane_can_schedule(std::int32_t l, SimTime t) const;
  const engine::Batch* lane_schedule(std::int32_t l, SimTime t);

  void draw_acceptance(const engine::Batch& batch, engine::StepOutcome& out);
  // When the GPU can take the next pass after `f` (the end, or with a pipeline, once `f`
  // has left its busiest stage).
  static SimTime frees_gpu_at(const InFlight& f);
};

}  // namespace blis::cluster
