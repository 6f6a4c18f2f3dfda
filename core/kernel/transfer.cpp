#include "kernel/transfer.h"

#include <algorithm>
#include <cmath>

namespace blis::kernel {

double link_bytes_per_us(const catalog::Fabric& fabric) {
  return fabric.bandwidth_bytes_per_s * fabric.efficiency / 1e6;
}

double path_latency_us(const catalog::Fabric& fabric, std::int32_t switch_hops) {
  return fabric.latency_us + fabric.hop_latency_us * std::max(0, switch_hops);
}

SimTime transfer_time(std::int64_t bytes, const catalog::Fabric& fabric) {
  if (bytes <= 0) return 0;
  const double us = fabric.latency_us + static_cast<double>(bytes) / link_bytes_per_us(fabric);
  return static_cast<SimTime>(std::floor(us + 0.5));
}

}  // namespace blis::kernel
