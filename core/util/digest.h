#pragma once
// Digest: a 64-bit FNV-1a hash over a stream of typed values. Used for determinism checks
// (same scenario and seed -> same digest, natively and in WASM). Not cryptographic.

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace blis {

class Digest {
 public:
  void add_bytes(const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) {
      state_ ^= p[i];
      state_ *= 1099511628211ULL;
    }
  }
  // Values are hashed in little-endian byte order explicitly, so the digest does not depend
  // on the host's endianness.
  void add_u64(std::uint64_t v) {
    unsigned char b[8];
    for (int i = 0; i < 8; ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
    add_bytes(b, 8);
  }
  void add_i64(std::int64_t v) { add_u64(static_cast<std::uint64_t>(v)); }
  void add_double(double v) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    add_u64(bits);
  }
  void add_string(std::string_view s) {
    add_u64(s.size());
    add_bytes(s.data(), s.size());
  }
  std::uint64_t value() const { return state_; }
  // 16 lowercase hex digits.
  std::string hex() const;

 private:
  std::uint64_t state_ = 14695981039346656037ULL;
};

}  // namespace blis
