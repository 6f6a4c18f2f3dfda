#pragma once
// Byte units as vLLM and the catalogs use them: GiB is 2^30 bytes (vLLM's GiB_bytes, and the
// "GiB" of its memory-profiling log lines), never 10^9.
#include <cstdint>

namespace blis::util {

inline constexpr std::int64_t kBytesPerGiB = std::int64_t{1} << 30;

inline double to_gib(std::int64_t bytes) {
  return static_cast<double>(bytes) / static_cast<double>(kBytesPerGiB);
}

}  // namespace blis::util
