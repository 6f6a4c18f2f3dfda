#pragma once
// LoraResidency: which LoRA adapters an instance's worker holds, and what a step pays to
// bring the batch's adapters in, after vLLM's LRUCacheWorkerLoRAManager
// (vllm/lora/worker_manager.py) over LRUCacheLoRAModelManager (vllm/lora/model_manager.py):
// a host-memory cache of max_cpu_loras adapters and max_loras GPU slots, both LRU.
//
// Before each pass the worker applies the batch's adapters (set_active_adapters ->
// _apply_adapters): an adapter not in the CPU cache is loaded (evicting the cache's oldest
// adapter, which also leaves its GPU slot), then activated: copied into a GPU slot, evicting
// the oldest active adapter when the slots are full. The copies run on the GPU's timeline
// before the forward pass, so their time adds to the step.

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "catalog/entries.h"
#include "cluster/backend.h"
#include "engine/engine.h"
#include "kernel/lora_cost.h"

namespace blis::cluster {

struct LoraCounters {
  std::uint64_t cpu_loads = 0;  // adapters read into the CPU cache (cache misses)
  std::uint64_t gpu_loads = 0;  // adapters copied into a GPU slot
  double load_us = 0;           // time those loads added to steps
  double compute_us = 0;        // punica shrink/expand time added to steps
};

class LoraResidency {
 public:
  // `ranks`: adapter id -> rank (an id not listed is taken at max_lora_rank).
  LoraResidency(std::shared_ptr<const kernel::LoraCost> cost, catalog::Fabric host,
                std::int32_t max_loras, std::int32_t max_cpu_loras, std::int32_t max_lora_rank,
                std::map<std::int32_t, std::int32_t> ranks);
  // Applies the batch's adapters and returns the microseconds this adds to its GPU time
  // (loads + per-step LoRA kernels).
  double apply(const engine::Batch& batch);
  const LoraCounters& counters() const { return counters_; }
  // Adapters in the GPU slots / CPU cache, oldest first (for tests).
  const std::vector<std::int32_t>& active() const { return active_; }
  const std::vector<std::int32_t>& cached() const { return cached_; }

 private:
  std::shared_ptr<const kernel::LoraCost> cost_;
  catalog::Fabric host_;
  std::int32_t slots_, capacity_, max_rank_;
  std::map<std::int32_t, std::int32_t> ranks_;
  std::vector<std::int32_t> active_, cached_;  // LRU order: oldest first
  std::vector<std::int32_t> batch_ids_;        // scratch
  LoraCounters counters_;

  double load(std::int32_t id);
  double activate(std::int32_t id);
};

// The adapters an EPP endpoint reports in its GPU slots (the EPP's LoRA probe), given the
// residency of each of the instance's engine-core lanes (one, or a dense model's DP ranks):
// `rank` >= 0 (a rank endpoint, data-parallel-profile-handler) reads that rank's; the whole
// instance reads its one lane, or for DP ranks the union of theirs (in `scratch`, rank by
// rank, first appearance first). nullptr when the lanes hold no residency.
const std::vector<std::int32_t>* reported_adapters(const std::vector<const LoraResidency*>& lanes,
                                                   std::int32_t rank,
                                                   std::vector<std::int32_t>& scratch);

// The residency of an instance of pool `pool` (which has res.lora_cost): its engine args'
// max_loras / max_cpu_loras / max_lora_rank, the adapters' ranks from the scenario's clients
// and the pool's host link (no host link: loads cost nothing).
std::unique_ptr<LoraResidency> make_lora_residency(const scenario::Scenario& s, std::size_t pool,
                                                   const PoolResources& res);

}  // namespace blis::cluster
