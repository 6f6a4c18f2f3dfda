// Module-level functions: the version, the sampler digest (the native/WASM determinism
// check) and the heap in use (for the leak tests).

#include <emscripten/bind.h>
#include <malloc.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "blis_version.h"
#include "embind_guard.h"
#include "util/sampler_digest.h"

namespace blis::wasm {
namespace {

std::string version() {
  return BLIS_VERSION;
}

// The determinism check's size: 10^6 draws take about a second.
constexpr int kMaxSamplerDraws = 1000000;

// The digest as 16 hex digits: JS gets it as a string, so no BigInt sign issue (gotcha 7).
std::string sampler_digest_hex(double seed, int draws) {
  return guard([&] {
    if (!(seed >= 0) || seed > 9007199254740991.0 ||
        seed != static_cast<double>(static_cast<std::uint64_t>(seed))) {
      throw std::invalid_argument("seed must be an integer in [0, 2^53)");
    }
    if (draws < 0) throw std::invalid_argument("draws must be >= 0, got " + std::to_string(draws));
    // Bounded work per call: eight samplers per draw, so 2^31 draws would run for hours in a
    // page that asked for a determinism check (found by the wasm_api fuzzer).
    if (draws > kMaxSamplerDraws) {
      throw std::invalid_argument("draws must be at most " + std::to_string(kMaxSamplerDraws) +
                                  ", got " + std::to_string(draws));
    }
    const std::uint64_t v = sampler_digest(static_cast<std::uint64_t>(seed), draws);
    static const char kHex[] = "0123456789abcdef";
    std::string out(16, '0');
    for (int i = 0; i < 16; ++i) out[15 - i] = kHex[(v >> (4 * i)) & 0xF];
    return out;
  });
}

// Bytes the module's allocator has handed out and not taken back (dlmalloc's uordblks): how the
// WASM tests check that a call, or an error thrown from one, leaks nothing. A diagnostic only:
// no page depends on it.
double heap_bytes_in_use() {
  return static_cast<double>(mallinfo().uordblks);
}

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_util) {
  emscripten::function("heapBytesInUse", &blis::wasm::heap_bytes_in_use);
  emscripten::function("version", &blis::wasm::version);
  emscripten::function("samplerDigestHex", &blis::wasm::sampler_digest_hex);
}
