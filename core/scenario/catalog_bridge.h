#pragma once
// The catalog as the decoder sees it: catalog ids (with the closest ids when one is
// unknown), inline entries, the GPU/model facts the rules packs need, and the fit checks
// (weights in memory, one max_model_len sequence in KV) through the kernel.

#include <string>

#include "rules/rules.h"
#include "scenario/scenario.h"
#include "util/diagnostic.h"

namespace blis::scenario::detail {

std::string example_gpu_ids();
std::string example_model_ids();

// Checks the pool's hardware and model ids and returns what the rules need to know.
rules::DeploymentFacts deployment_facts(const Pool& pool, const std::string& pool_pointer, const Scenario& s,
                                        Diagnostics& diags);

}  // namespace blis::scenario::detail
