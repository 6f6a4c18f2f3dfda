// KV transfers between the engines: P/D pulls from the prefill instance over the KV fabric
// and CPU-offload moves within an instance over the host link. Each is a flow on the
// cluster's network (cluster/network/), sharing its links with the transfers it overlaps,
// and an event when it lands (docs/networking.md).

#include <algorithm>
#include <limits>

#include "cluster/network/topology.h"
#include "cluster/simulation_state.h"
#include "scenario/network_placement.h"

namespace blis::cluster {

namespace {

// The payload of a kTransferDone event that wakes the network (a flow drained or landed)
// rather than finishing one transfer slot.
constexpr std::uint64_t kNetworkWake = ~std::uint64_t{0};

}  // namespace

network::ClusterNetwork& Simulation::State::network() {
  if (!net) {
    std::vector<network::PoolLinks> links;
    for (std::size_t p = 0; p < pools.size(); ++p) {
      const PoolResources& res = pools[p].res;
      const scenario::Pool& sp = scenario->pools[p];
      links.push_back({res.kv_fabric, res.local_fabric, res.host_fabric,
                       std::max(1, sp.parallelism.tp * sp.parallelism.pp)});
    }
    net = std::make_unique<network::ClusterNetwork>(scenario->network, links,
                                                    scenario::place_instances(*scenario, nullptr));
  }
  return *net;
}

void Simulation::State::start_transfers(Instance& inst) {
  transfer_scratch.clear();
  inst.engine().take_transfers(transfer_scratch);
  if (transfer_scratch.empty()) return;
  // start() lets the flows that finish sending by now do so first; what they deliver now is
  // finished by the wake arm_network() sets at this instant.
  network::ClusterNetwork& netw = network();
  for (engine::TransferRequest& t : transfer_scratch) {
    // CPU offload moves KV within the instance (GPU <-> host memory).
    if (t.kind != engine::TransferKind::kRemotePull) t.to_instance = inst.index();
    const auto to = static_cast<std::size_t>(t.to_instance);
    const PoolRuntime& dst_pool = pools[static_cast<std::size_t>(instances[to]->pool())];
    std::int64_t block_bytes = dst_pool.res.kv_bytes_per_block;
    std::int64_t lanes = std::max(1, scenario->pools[instances[to]->pool()].parallelism.tp *
                                         scenario->pools[instances[to]->pool()].parallelism.pp);
    std::optional<network::Route> route;
    if (t.kind == engine::TransferKind::kRemotePull) {
      // Each GPU reads its own share of every block over its own link; with different TP on
      // the two sides the side with fewer GPUs moves more bytes per GPU and sets the pace:
      // the flow carries that share times the smaller side's GPUs.
      if (t.from_instance >= 0) {
        const auto from = static_cast<std::size_t>(t.from_instance);
        const std::int32_t fp = instances[from]->pool();
        block_bytes =
            std::max(block_bytes, pools[static_cast<std::size_t>(fp)].res.kv_bytes_per_block);
        lanes = std::min<std::int64_t>(lanes, std::max(1, scenario->pools[fp].parallelism.tp *
                                                              scenario->pools[fp].parallelism.pp));
        route = netw.pull_route(t.from_instance, t.to_instance);
      }
      t.bytes = static_cast<std::int64_t>(t.num_blocks) * block_bytes;
    } else {
      route = netw.offload_route(t.to_instance, t.kind == engine::TransferKind::kOffloadStore);
      t.bytes = static_cast<std::int64_t>(t.num_blocks) * block_bytes;
      lanes = 1;  // the host link is priced per GPU (topology.h)
    }
    std::uint32_t slot;
    if (!free_transfers.empty()) {
      slot = free_transfers.back();
      free_transfers.pop_back();
      transfers[slot] = t;
    } else {
      slot = static_cast<std::uint32_t>(transfers.size());
      transfers.push_back(t);
    }
    transfer_blocks_total += static_cast<std::uint64_t>(std::max<std::int64_t>(0, t.num_blocks));
    if (!route || t.bytes <= 0) {
      // Nothing moves, or no fabric joins the two sides: done at once.
      queue.push(now, EventClass::kTransferDone, static_cast<std::uint32_t>(to), slot);
      continue;
    }
    netw.flows().start(now, t.bytes * lanes, route->links, route->latency_us, slot);
    if (t.kind == engine::TransferKind::kRemotePull) {
      if (transfer_started.size() < transfers.size()) {
        transfer_started.resize(transfers.size(), kUnset);
        transfer_alone_us.resize(transfers.size(), 0);
      }
      double rate = std::numeric_limits<double>::infinity();
      for (network::LinkId l : route->links) rate = std::min(rate, netw.flows().link_capacity(l));
      transfer_started[slot] = now;
      transfer_alone_us[slot] = static_cast<double>(t.bytes * lanes) / rate + route->latency_us;
    }
  }
  reprice_collectives();
  arm_network();
}

// The passes whose inter-node bytes a transfer just started has slowed take longer: each is
// priced again from its flow's new projected end (docs/networking.md "Collectives").
void Simulation::State::reprice_collectives() {
  network::FairShareNetwork& flows = network().flows();
  perturbed_scratch.clear();
  flows.take_perturbed(perturbed_scratch);
  for (const auto& [owner, flow] : perturbed_scratch) {
    if (owner >= instances.size()) continue;
    const double shared = flows.projected_send_us(now, flow);
    if (shared >= 0) instances[owner]->reprice_collective(flow, shared);
  }
}

// The inter-node part of a pass's hand-offs and all-to-alls, launched now by `inst`: priced
// against the flows in flight on its NIC port (the instance's own earlier collectives left
// out: its passes take their turns on the stages and layers), then put on the port as a
// silent flow so the transfers it overlaps slow down too (docs/networking.md "Collectives").
Instance::SharedCollective Simulation::State::share_links(Instance& inst, double cross_node_us) {
  // The pulls this very schedule started are in flight before the pass is priced.
  start_transfers(inst);
  network::ClusterNetwork& netw = network();
  const auto route = netw.collective_route(inst.index());
  if (!route) return {};
  const double bytes = cross_node_us * netw.collective_bytes_per_us(inst.index());
  const auto owner = static_cast<std::uint64_t>(inst.index());
  network::FairShareNetwork& flows = netw.flows();
  double shared = cross_node_us;
  if (flows.shares_any(route->links, owner))
    shared = flows.alone_or_shared_us(now, bytes, route->links, owner);
  Instance::SharedCollective out;
  out.flow = flows.start_silent(now, bytes, route->links, owner);
  reprice_collectives();
  arm_network();
  const double extra = shared - cross_node_us;
  out.extra = extra > 0 ? static_cast<SimTime>(extra + 0.5) : 0;
  return out;
}

void Simulation::State::arm_network() {
  if (!net) return;
  const SimTime w = net->flows().next_wake();
  if (w == kSimTimeNever || w >= network_armed) return;
  network_armed = w;
  queue.push(w, EventClass::kTransferDone, 0, kNetworkWake);
}

// Finishes every transfer the network has delivered by now.
void Simulation::State::network_deliver() {
  if (!net) return;
  delivered_scratch.clear();
  net->flows().advance(now, delivered_scratch);
  const std::vector<std::uint64_t> delivered = delivered_scratch;
  for (std::uint64_t slot : delivered) finish_transfer(slot);
}

void Simulation::State::on_transfer_done(std::uint64_t slot) {
  if (slot != kNetworkWake) {
    finish_transfer(slot);
    return;
  }
  // A stale wake (an earlier one was armed after it) does nothing.
  if (now != network_armed) return;
  network_armed = kSimTimeNever;
  network_deliver();
  arm_network();
}

void Simulation::State::finish_transfer(std::uint64_t slot) {
  engine::TransferRequest t = transfers[static_cast<std::size_t>(slot)];
  free_transfers.push_back(static_cast<std::uint32_t>(slot));
  if (slot < transfer_started.size() && transfer_started[slot] != kUnset) {
    ++pulls_timed;
    pull_us_sum += static_cast<double>(now - transfer_started[slot]);
    pull_alone_us_sum += transfer_alone_us[slot];
    transfer_started[slot] = kUnset;
  }
  Instance& to = *instances[static_cast<std::size_t>(t.to_instance)];
  // The decode pool's kv_pull_failure_rate: a pull that moved blocks fails with that
  // probability (one draw per such pull, in completion order; none at rate 0).
  const double fail_rate =
      scenario->pools[static_cast<std::size_t>(to.pool())].kv_pull_failure_rate;
  if (t.kind == engine::TransferKind::kRemotePull && t.num_blocks > 0 && fail_rate > 0 &&
      pull_failure_rng.uniform01() < fail_rate) {
    t.failed = true;
    ++pulls_failed;
  }
  to.engine().transfer_finished(t, now);
  if (t.failed) {
    // Under kv_load_failure_policy "fail" the request finished with an error just now.
    between_steps.progress.clear();
    to.engine().take_finished_between_steps(between_steps.progress);
    if (!between_steps.progress.empty()) apply_step_events(to, between_steps, 0);
  }
  publish(to);
  kick(to);
  // NIXL: the decoder's read-complete notice reaches the prefiller, which frees the blocks it
  // held for the request (finished_sending). A failed read too: in vLLM its notification
  // (the READ's notif_msg) never arrives and P frees at lease expiry, kv_lease_duration after
  // D's last heartbeat, but the cluster's heartbeat model keeps the lease alive for good.
  if (t.kind == engine::TransferKind::kRemotePull && t.from_instance >= 0) {
    Instance& from = *instances[static_cast<std::size_t>(t.from_instance)];
    from.engine().remote_read_done(t.key, now);
    publish(from);
    kick(from);
  }
}

}  // namespace blis::cluster
