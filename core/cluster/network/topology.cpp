#include "cluster/network/topology.h"

#include <algorithm>
#include <map>

#include "kernel/transfer.h"

namespace blis::cluster::network {

ClusterNetwork::ClusterNetwork(const scenario::Network& net, const std::vector<PoolLinks>& pools,
                               const std::vector<std::vector<scenario::InstancePlace>>& places)
    : switch_hops_(net.switch_hops), pools_(pools) {
  const bool per_node = net.nic == "per_node";
  // Per-node NICs: one pair of links per node, shared by the instances on it; per pool since
  // pools may differ in fabric (the scenario has one `fabric`, so in practice they agree).
  std::map<std::int64_t, std::pair<LinkId, LinkId>> node_nic;
  for (std::size_t p = 0; p < pools.size() && p < places.size(); ++p) {
    const PoolLinks& pl = pools[p];
    for (const scenario::InstancePlace& at : places[p]) {
      InstanceLinks il;
      il.pool = static_cast<std::int32_t>(p);
      il.node = at.node;
      il.nodes = at.nodes;
      if (pl.scale_out) {
        const double r = kernel::link_bytes_per_us(*pl.scale_out);
        il.has_nic = true;
        if (!per_node) {
          il.nic_out = flows_.add_link(pl.lanes * r);
          il.nic_in = flows_.add_link(pl.lanes * r);
        } else if (at.nodes > 1) {
          // An instance larger than a node has its nodes to itself: one NIC per node.
          il.nic_out = flows_.add_link(at.nodes * r);
          il.nic_in = flows_.add_link(at.nodes * r);
        } else {
          auto it = node_nic.find(at.node);
          if (it == node_nic.end())
            it = node_nic.emplace(at.node, std::make_pair(flows_.add_link(r), flows_.add_link(r)))
                     .first;
          il.nic_out = it->second.first;
          il.nic_in = it->second.second;
        }
      }
      if (pl.local) {
        const double r = kernel::link_bytes_per_us(*pl.local);
        il.has_local = true;
        il.local_out = flows_.add_link(pl.lanes * r);
        il.local_in = flows_.add_link(pl.lanes * r);
      }
      if (pl.host) {
        const double r = kernel::link_bytes_per_us(*pl.host);
        il.has_host = true;
        il.host_out = flows_.add_link(r);
        il.host_in = flows_.add_link(r);
      }
      inst_.push_back(il);
    }
  }
}

std::optional<Route> ClusterNetwork::pull_route(std::int32_t from, std::int32_t to) const {
  if (from < 0 || to < 0 || static_cast<std::size_t>(from) >= inst_.size() ||
      static_cast<std::size_t>(to) >= inst_.size())
    return std::nullopt;
  const InstanceLinks &a = inst_[from], &b = inst_[to];
  // One node (neither spans nodes): the GPUs' scale-up link, NVLink through NVSwitch or PCIe.
  if (a.node == b.node && a.nodes == 1 && b.nodes == 1 && a.has_local && b.has_local) {
    Route r;
    r.links = {a.local_out, b.local_in};
    r.latency_us = pools_[a.pool].local->latency_us;
    return r;
  }
  if (!a.has_nic || !b.has_nic) return std::nullopt;
  Route r;
  r.links = {a.nic_out, b.nic_in};
  r.latency_us = kernel::path_latency_us(*pools_[b.pool].scale_out, switch_hops_);
  return r;
}

std::optional<Route> ClusterNetwork::collective_route(std::int32_t instance) const {
  if (instance < 0 || static_cast<std::size_t>(instance) >= inst_.size()) return std::nullopt;
  const InstanceLinks& a = inst_[instance];
  if (!a.has_nic || a.nodes <= 1) return std::nullopt;
  Route r;
  r.links = {a.nic_out, a.nic_in};
  return r;  // the latency is the kernel's, outside the flow
}

double ClusterNetwork::collective_bytes_per_us(std::int32_t instance) const {
  const auto r = collective_route(instance);
  if (!r) return 0;
  return std::min(flows_.link_capacity(r->links[0]), flows_.link_capacity(r->links[1]));
}

std::optional<Route> ClusterNetwork::offload_route(std::int32_t instance, bool store) const {
  if (instance < 0 || static_cast<std::size_t>(instance) >= inst_.size()) return std::nullopt;
  const InstanceLinks& a = inst_[instance];
  if (!a.has_host) return std::nullopt;
  Route r;
  r.links = {store ? a.host_out : a.host_in};
  r.latency_us = pools_[a.pool].host->latency_us;
  return r;
}

}  // namespace blis::cluster::network
