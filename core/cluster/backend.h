#pragma once
// Backend: what builds the instances of a scenario's pools. The cluster does not know which
// engine model or pricing it runs: the product backend (vllm_backend.h) resolves catalog
// entries, sizes the KV cache with the latency kernel and builds vLLM engines; tests supply
// doubles.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/entries.h"
#include "cluster/serving_overheads.h"
#include "cluster/step_cost.h"
#include "engine/engine.h"
#include "kernel/lora_cost.h"
#include "scenario/scenario.h"
#include "util/diagnostic.h"

namespace blis::cluster {

// What every instance of one pool is built from.
struct PoolResources {
  std::int64_t gpu_blocks = 0;  // KV-cache blocks per instance (vLLM num_gpu_blocks)
  std::shared_ptr<const StepCostModel> pricer;
  // The model is a mixture of experts: its DP ranks step in lockstep (dp_engine.h), a dense
  // model's independently (dense_dp_engine.h).
  bool moe = false;
  ServingOverheads overheads;
  double spec_acceptance = 0;  // per-draft-token acceptance for speculative decoding
  // KV transfers (connectors): bytes one GPU holds per KV block (each GPU of a TP group moves
  // its own share over its own link, in parallel), the fabric between P/D instances (the
  // scenario's `fabric`) and the GPU-to-host link (CPU offload).
  std::int64_t kv_bytes_per_block = 0;
  std::optional<catalog::Fabric> kv_fabric;
  std::optional<catalog::Fabric> host_fabric;
  // The GPU's scale-up link (NVLink, or PCIe): P/D pulls between instances on one node.
  std::optional<catalog::Fabric> local_fabric;
  // LoRA (enable_lora): adapter sizes and the punica kernels' price (kernel/lora_cost.h).
  std::shared_ptr<const kernel::LoraCost> lora_cost;
  // Cost: USD per GPU-hour (the pool's cost_per_gpu_hour, else the catalog GPU's indicative
  // price; 0 = unknown) and where it came from.
  double usd_per_gpu_hour = 0;
  std::string price_source;
  // Provenance: catalog entries and coefficient sources this pool used.
  std::vector<std::string> catalog_entries;
  std::vector<std::string> coefficient_sources;
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Resolves pool `p` of `s` (catalog lookups, KV capacity, pricing). Errors name the
  // scenario's JSON pointer (/pools/<p>/...).
  virtual Diagnostics prepare_pool(const scenario::Scenario& s, std::size_t p,
                                   PoolResources& out) = 0;
  // A fresh engine for instance `instance` (global index) of pool `p`.
  virtual std::unique_ptr<engine::Engine> make_engine(const scenario::Scenario& s, std::size_t p,
                                                      std::int32_t instance,
                                                      const PoolResources& res) = 0;
};

}  // namespace blis::cluster
