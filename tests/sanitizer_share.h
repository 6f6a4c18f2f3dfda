#pragma once
// How many repetitions a property or stress test runs. Under AddressSanitizer a repetition
// costs 5-10× its native time, and that tier (scripts/test "sanitizer") is there for memory
// errors and undefined behaviour, which the first repetitions already drive through the same
// code. It runs a quarter of them (at least one); the native and WASM tiers run them all, so
// every CI run still checks each test at its full strength.
#include <cstdint>

namespace blis::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderAddressSanitizer = true;
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif
#else
inline constexpr bool kUnderAddressSanitizer = false;
#endif

// n natively and in WASM; n / 4 (at least 1) under AddressSanitizer.
constexpr std::int64_t sanitizer_share(std::int64_t n) {
  if (!kUnderAddressSanitizer) return n;
  return n / 4 > 0 ? n / 4 : 1;
}

}  // namespace blis::test
