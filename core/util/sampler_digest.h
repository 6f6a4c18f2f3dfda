#pragma once
// A digest of a fixed sequence drawn from every sampler of Rng. Native and WASM builds must
// return the same value for the same arguments; tests and the WASM module check it.

#include <cstdint>

namespace blis {

std::uint64_t sampler_digest(std::uint64_t seed, int draws_per_sampler);

}  // namespace blis
