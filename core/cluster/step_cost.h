#pragma once
// StepCostModel: what one forward pass costs on an instance, split the way the engine-core
// loop needs it. The cluster asks the engine what the next pass runs, asks this model what it
// costs, and tells the engine when it finished (ARCHITECTURE §4).
//
// `cpu` is the engine-core thread's work for the step (vLLM Scheduler.schedule, input
// preparation, update_from_output): with async scheduling it overlaps the previous pass's GPU
// time; without it, it is serial with the GPU. `gpu` is the pass itself, launch overheads
// included. The product implementation wraps the latency kernel (kernel_step_cost.h); tests
// use fixed-cost doubles.

#include <string>
#include <vector>

#include "engine/engine.h"
#include "util/sim_time.h"

namespace blis::cluster {

struct StepTiming {
  SimTime gpu = 0;
  SimTime cpu = 0;
  // Pipeline parallelism: how long the pass holds the GPUs before the next pass may start
  // (its busiest stage); 0 = the whole `gpu` time (no pipeline).
  SimTime stage = 0;
  // Of `gpu`, the bandwidth time of the pass's transfers between nodes (pipeline hand-offs,
  // expert-parallel dispatch/combine) as priced alone; the instance shares it with the
  // network's flows (instance.h LinkShare).
  double cross_node_us = 0;
};

// One named term of a step's price, for explaining a step ("why did it take that long").
struct CostTerm {
  std::string name;
  double us = 0;
};

class StepCostModel {
 public:
  virtual ~StepCostModel() = default;
  virtual StepTiming price(const engine::Batch& batch) const = 0;
  // The per-term breakdown of a batch's price (not on the hot path).
  virtual std::vector<CostTerm> explain(const engine::Batch& batch) const { return {}; }
};

}  // namespace blis::cluster
