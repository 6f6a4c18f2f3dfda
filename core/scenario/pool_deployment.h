#pragma once
// One mapping from a pool whose engine.args are resolved to the latency kernel's Deployment,
// used by the decoder's fit checks (catalog_bridge.cpp) and by the cluster's engines
// (cluster/vllm_backend.cpp), so `blis validate` and `blis run` price the same deployment.

#include <string>

#include "kernel/deployment.h"
#include "scenario/scenario.h"
#include "util/diagnostic.h"

namespace blis::scenario {

// Copies the pool's parallelism and the engine arguments the kernel prices into `d` (made by
// kernel::make_deployment: catalog entries and vLLM's platform defaults), in the kernel's
// spelling: dtype "half" / "float" as "float16" / "float32"; quantization "" when it is the
// checkpoint's own (or its _marlin kernel), "fp8" for vLLM's online FP8 methods on an
// unquantized checkpoint. False when the kernel does not model the pool's quantization.
bool apply_engine_args(const Pool& pool, kernel::Deployment* d);

// The warnings about where each pool's instances sit (network.gpus_per_node): an instance over
// several nodes with no scale-out /fabric (its hand-offs are priced on ib-ndr), and tp larger
// than a node (its all-reduces stay on the intra-node link). Run by the decoder on a document
// without errors; the cluster places the same way without repeating them.
Diagnostics placement_warnings(const catalog::Catalog& catalog, const Scenario& s);

}  // namespace blis::scenario
