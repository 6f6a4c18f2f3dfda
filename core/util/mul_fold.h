#pragma once
// The 64 x 64 -> 128-bit product folded to 64 bits (low half ^ high half): the mixing step of
// wyhash-style hashes, used by the engine's block hash and the router's prompt hash. One
// instruction natively; WebAssembly has no wide multiply (`unsigned __int128` there is a call
// into compiler-rt), so it forms the same bits from 32-bit halves inline.

#include <cstdint>

namespace blis {

// From 32-bit halves: bit for bit what `unsigned __int128` gives (util tests compare them).
inline std::uint64_t mul_fold_halves(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t a_lo = a & 0xffffffffull, a_hi = a >> 32;
  const std::uint64_t b_lo = b & 0xffffffffull, b_hi = b >> 32;
  const std::uint64_t ll = a_lo * b_lo, lh = a_lo * b_hi, hl = a_hi * b_lo, hh = a_hi * b_hi;
  const std::uint64_t mid = (ll >> 32) + (lh & 0xffffffffull) + (hl & 0xffffffffull);
  const std::uint64_t lo = (ll & 0xffffffffull) | (mid << 32);
  const std::uint64_t hi = hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
  return lo ^ hi;
}

inline std::uint64_t mul_fold(std::uint64_t a, std::uint64_t b) {
#if defined(__wasm__)
  return mul_fold_halves(a, b);
#else
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
#endif
}

}  // namespace blis
