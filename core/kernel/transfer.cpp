#include "kernel/transfer.h"

#include <cmath>

namespace blis::kernel {

SimTime transfer_time(std::int64_t bytes, const catalog::Fabric& fabric) {
  if (bytes <= 0) return 0;
  const double rate_bytes_per_us = fabric.bandwidth_bytes_per_s * fabric.efficiency / 1e6;
  const double us = fabric.latency_us + static_cast<double>(bytes) / rate_bytes_per_us;
  return static_cast<SimTime>(std::floor(us + 0.5));
}

}  // namespace blis::kernel
