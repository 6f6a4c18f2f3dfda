// The product Simulation: vLLM engines priced by the latency kernel, the scenario's workload.

#include "cluster/simulation.h"
#include "cluster/vllm_backend.h"

namespace blis::cluster {

Simulation::Simulation()
    : Simulation([] { return std::make_unique<VllmBackend>(); },
                 [](const scenario::Scenario& s) { return make_workload(s); }) {}

}  // namespace blis::cluster
