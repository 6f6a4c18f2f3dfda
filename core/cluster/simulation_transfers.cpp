// KV transfers between the engines: P/D pulls from the prefill instance over the KV fabric
// and CPU-offload moves within an instance over the host link, each an event when it lands.

#include <algorithm>

#include "cluster/simulation_state.h"
#include "kernel/transfer.h"

namespace blis::cluster {

void Simulation::State::start_transfers(Instance& inst) {
  transfer_scratch.clear();
  inst.engine().take_transfers(transfer_scratch);
  for (engine::TransferRequest& t : transfer_scratch) {
    // CPU offload moves KV within the instance (GPU <-> host memory).
    if (t.kind != engine::TransferKind::kRemotePull) t.to_instance = inst.index();
    const auto to = static_cast<std::size_t>(t.to_instance);
    const PoolResources& dst = pools[static_cast<std::size_t>(instances[to]->pool())].res;
    std::int64_t block_bytes = dst.kv_bytes_per_block;
    const catalog::Fabric* fabric = nullptr;
    if (t.kind == engine::TransferKind::kRemotePull) {
      // Each GPU reads its own share of every block over its own link; with different TP on
      // the two sides the side with fewer GPUs moves more bytes per GPU and sets the pace.
      if (t.from_instance >= 0) {
        const auto from = static_cast<std::size_t>(t.from_instance);
        block_bytes = std::max(
            block_bytes,
            pools[static_cast<std::size_t>(instances[from]->pool())].res.kv_bytes_per_block);
      }
      if (dst.kv_fabric) fabric = &*dst.kv_fabric;
    } else if (dst.host_fabric) {
      fabric = &*dst.host_fabric;
    }
    t.bytes = static_cast<std::int64_t>(t.num_blocks) * block_bytes;
    const SimTime duration = fabric != nullptr ? kernel::transfer_time(t.bytes, *fabric) : 0;
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
    queue.push(now + duration, EventClass::kTransferDone, static_cast<std::uint32_t>(to), slot);
  }
}

void Simulation::State::on_transfer_done(std::uint64_t slot) {
  const engine::TransferRequest t = transfers[static_cast<std::size_t>(slot)];
  free_transfers.push_back(static_cast<std::uint32_t>(slot));
  Instance& to = *instances[static_cast<std::size_t>(t.to_instance)];
  to.engine().transfer_finished(t, now);
  publish(to);
  kick(to);
  // NIXL: the decoder's read-complete notice reaches the prefiller, which frees the blocks it
  // held for the request (finished_sending).
  if (t.kind == engine::TransferKind::kRemotePull && t.from_instance >= 0) {
    Instance& from = *instances[static_cast<std::size_t>(t.from_instance)];
    from.engine().remote_read_done(t.key, now);
    publish(from);
    kick(from);
  }
}

}  // namespace blis::cluster
