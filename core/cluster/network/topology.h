#pragma once
// ClusterNetwork: the links of a scenario's deployment and the routes KV transfers and the
// inter-node part of a pass's collectives take over them (docs/networking.md). Per instance:
// its NIC ports on the scenario's `fabric` (its GPUs' own NICs, or its node's one NIC shared
// with the node's other instances), its scale-up ports (NVLink or PCIe, to instances on its
// node) and its host link (CPU offload), each direction a link of its own. Between nodes a
// transfer crosses `switch_hops` non-blocking switches, which add latency, not contention.

#include <cstdint>
#include <optional>
#include <vector>

#include "catalog/entries.h"
#include "cluster/network/fair_share.h"
#include "scenario/network_placement.h"
#include "scenario/scenario.h"

namespace blis::cluster::network {

// What the topology needs of one pool (cluster::PoolResources, the scenario's pool).
struct PoolLinks {
  std::optional<catalog::Fabric> scale_out;  // the scenario's `fabric` (P/D pulls)
  std::optional<catalog::Fabric> local;      // the GPU's scale-up link
  std::optional<catalog::Fabric> host;       // the GPU's host link
  std::int32_t lanes = 1;                    // GPUs holding one request's KV: tp * pp
};

struct Route {
  std::vector<LinkId> links;
  double latency_us = 0;
};

class ClusterNetwork {
 public:
  // `places[p][i]`: where instance i of pool p sits (scenario::place_instances); instances
  // are numbered pool by pool in order.
  ClusterNetwork(const scenario::Network& net, const std::vector<PoolLinks>& pools,
                 const std::vector<std::vector<scenario::InstancePlace>>& places);

  // A P/D pull from `from` to `to` (global instance indices); nullopt when no fabric joins
  // them (the transfer is free, as it was before fabrics were required).
  std::optional<Route> pull_route(std::int32_t from, std::int32_t to) const;
  // CPU offload of `instance`: GPU -> host (store) or host -> GPU (load). The instance's GPUs
  // move their shares in lockstep, each over its own link: one GPU's share over one link.
  std::optional<Route> offload_route(std::int32_t instance, bool store) const;
  // The inter-node traffic of the instance's own collectives (pipeline hand-offs between
  // stages on different nodes, an expert-parallel all-to-all across nodes): its NIC port out
  // and in, when it spans nodes on a scale-out fabric. A collective's flow stands for every
  // NIC of the port moving in lockstep (as a KV pull's does): it carries what the kernel's
  // lone price moves at the port's whole capacity (collective_bytes_per_us).
  std::optional<Route> collective_route(std::int32_t instance) const;
  double collective_bytes_per_us(std::int32_t instance) const;
  std::int64_t node_of(std::int32_t instance) const { return inst_[instance].node; }

  FairShareNetwork& flows() { return flows_; }
  const FairShareNetwork& flows() const { return flows_; }

 private:
  struct InstanceLinks {
    std::int32_t pool = 0;
    std::int64_t node = 0, nodes = 1;
    LinkId nic_out = 0, nic_in = 0, local_out = 0, local_in = 0, host_out = 0, host_in = 0;
    bool has_nic = false, has_local = false, has_host = false;
  };
  std::int32_t switch_hops_ = 1;
  std::vector<PoolLinks> pools_;
  std::vector<InstanceLinks> inst_;
  FairShareNetwork flows_;
};

}  // namespace blis::cluster::network
