#pragma once
// KV transfer pricing (latency-kernel.md section e): a fixed per-transfer latency plus the
// bytes at the fabric's achieved bandwidth. Used for P/D hand-offs (NIXL) and CPU offload;
// transfers that overlap share links in the cluster's network (cluster/network/,
// docs/networking.md), which prices a transfer alone on its links exactly as this does.

#include <cstdint>

#include "catalog/entries.h"
#include "util/sim_time.h"

namespace blis::kernel {

// Achieved bytes per microsecond of one GPU's link on `fabric`: bandwidth * efficiency.
double link_bytes_per_us(const catalog::Fabric& fabric);

// Latency of a path on `fabric` that crosses `switch_hops` switches: the fabric's fixed
// per-transfer latency plus hop_latency_us per hop.
double path_latency_us(const catalog::Fabric& fabric, std::int32_t switch_hops);

// Microseconds to move `bytes` over one GPU's link on `fabric`: latency_us +
// bytes / (bandwidth * efficiency), rounded to the nearest microsecond. 0 bytes cost nothing;
// negative byte counts are treated as 0.
SimTime transfer_time(std::int64_t bytes, const catalog::Fabric& fabric);

}  // namespace blis::kernel
