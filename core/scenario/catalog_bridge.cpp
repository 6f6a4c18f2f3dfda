#include "scenario/catalog_bridge.h"

namespace blis::scenario::detail {

// Until the catalog lands (branch `kernel`), ids cannot be checked and the hardware- and
// model-dependent rules are skipped (facts unknown).
std::string example_gpu_ids() { return "\"H100-SXM-80GB\""; }
std::string example_model_ids() { return "\"meta-llama/Llama-3.1-8B-Instruct\""; }

rules::DeploymentFacts deployment_facts(const Pool& pool, const std::string& pool_pointer, const Scenario&,
                                        Diagnostics&) {
  rules::DeploymentFacts f;
  f.tp = pool.parallelism.tp;
  f.pp = pool.parallelism.pp;
  f.dp = pool.parallelism.dp;
  f.role = pool.role;
  f.pointer = pool_pointer;
  return f;
}

}  // namespace blis::scenario::detail
