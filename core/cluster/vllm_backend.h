#pragma once
// VllmBackend: the product Backend. Pools run vLLM's v1 engine core (engine/vllm) on
// deployments resolved from the catalog (the built-in one plus the scenario's inline
// entries); the latency kernel sizes each instance's KV cache (kernel::kv_capacity) and
// prices its steps (KernelStepCost); the serving overheads come from the GPU's coefficients.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "catalog/catalog.h"
#include "cluster/backend.h"
#include "kernel/deployment.h"

namespace blis::cluster {

class VllmBackend : public Backend {
 public:
  VllmBackend() = default;
  // Coefficients entries (JSON text, catalog/coefficients schema) that replace the built-in
  // ones of the same id for this backend's runs: `blis calibrate` prices trial values this way.
  explicit VllmBackend(std::vector<std::string> coefficient_overrides)
      : coefficient_overrides_(std::move(coefficient_overrides)) {}
  Diagnostics prepare_pool(const scenario::Scenario& s, std::size_t p, PoolResources& out) override;
  std::unique_ptr<engine::Engine> make_engine(const scenario::Scenario& s, std::size_t p,
                                              std::int32_t instance,
                                              const PoolResources& res) override;

 private:
  std::unique_ptr<catalog::Catalog> catalog_;  // built-in + the scenario's inline entries
  std::vector<std::string> coefficient_overrides_;
  Diagnostics load_catalog(const scenario::Scenario& s);
};

// Builds the deployment of pool `p`; diagnostics carry the scenario's pointers.
Diagnostics pool_deployment(const catalog::Catalog& catalog, const scenario::Scenario& s,
                            std::size_t p, kernel::Deployment* out);

}  // namespace blis::cluster
