#pragma once
// Where each instance of a scenario's pools sits (docs/networking.md): the scenario's
// `network.placement` for the pools it names, the others packed onto nodes in pool order,
// each pool from a node of its own. One rule for the decoder's check and the cluster's
// topology.

#include <cstdint>
#include <vector>

#include "scenario/scenario.h"
#include "util/diagnostic.h"

namespace blis::scenario {

struct InstancePlace {
  std::int64_t node = 0;   // the first node the instance's GPUs are on
  std::int64_t nodes = 1;  // how many nodes it spans (> 1 when it has more GPUs than a node)
};

// GPUs one instance of `p` occupies: tp * pp * dp.
std::int64_t instance_gpus(const Pool& p);

// Places every pool's instances, per pool in order. Appends an error (at
// /network/placement/<pool>/<i>) for each node an explicit placement overfills; a placement
// whose length differs from the pool's instances is placed as packed.
std::vector<std::vector<InstancePlace>> place_instances(const Scenario& s, Diagnostics* diags);

}  // namespace blis::scenario
