#pragma once
// KV transfer pricing (latency-kernel.md section e): a fixed per-transfer latency plus the
// bytes at the fabric's achieved bandwidth. Used for P/D hand-offs (NIXL) and CPU offload.

#include <cstdint>

#include "catalog/entries.h"
#include "util/sim_time.h"

namespace blis::kernel {

// Microseconds to move `bytes` over one GPU's link on `fabric`: latency_us +
// bytes / (bandwidth * efficiency), rounded to the nearest microsecond. 0 bytes cost nothing;
// negative byte counts are treated as 0.
SimTime transfer_time(std::int64_t bytes, const catalog::Fabric& fabric);

}  // namespace blis::kernel
