// mul_fold (util/mul_fold.h), the mixing step of the engine's block hash and the router's
// prompt hash.
#include "util/mul_fold.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace blis {
namespace {

// The WebAssembly build's multiply (from 32-bit halves) gives the native 128-bit product's
// bits, folded: checked here against `unsigned __int128` on edge cases and 10^5 pseudo-random
// pairs.
TEST(MulFold, HalvesAreTheWideMultiply) {
  const auto wide = [](std::uint64_t a, std::uint64_t b) {
    const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
    return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
  };
  const std::uint64_t edges[] = {0,     1,         0xffffffffull,         0x100000000ull,
                                 ~0ull, ~0ull - 1, 0x8000000000000000ull, 0xa0761d6478bd642full};
  for (const std::uint64_t a : edges)
    for (const std::uint64_t b : edges) EXPECT_EQ(mul_fold_halves(a, b), wide(a, b));
  std::uint64_t x = 0x9e3779b97f4a7c15ull;
  for (int i = 0; i < 100000; ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const std::uint64_t a = x;
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    ASSERT_EQ(mul_fold_halves(a, x), wide(a, x)) << a << " " << x;
  }
}

TEST(MulFold, IsTheWideMultiplyHere) {
  // Whatever the target: natively the wide multiply, in WASM the halves.
  EXPECT_EQ(mul_fold(0xa0761d6478bd642full, 0xe7037ed1a0b428dbull),
            mul_fold_halves(0xa0761d6478bd642full, 0xe7037ed1a0b428dbull));
  EXPECT_EQ(mul_fold(~0ull, ~0ull), 0xfffffffffffffffeull ^ 1ull);
}

}  // namespace
}  // namespace blis
