#include "engine/vllm/kv/block_hash.h"

namespace blis::vllm {
namespace {

// 64x64 -> 128 multiply folded to 64 bits (the "mum" step of wyhash-style mixers): one
// instruction natively; from 32-bit halves in WebAssembly, the same bits (block_hash.h).
inline std::uint64_t mum(std::uint64_t a, std::uint64_t b) {
#if defined(__wasm__)
  return detail::mul_fold_halves(a, b);
#else
  const unsigned __int128 r = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(r) ^ static_cast<std::uint64_t>(r >> 64);
#endif
}

constexpr std::uint64_t kP0 = 0xa0761d6478bd642full;
constexpr std::uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr std::uint64_t kP2 = 0x8ebc6af09c88c6e3ull;
constexpr std::uint64_t kP3 = 0x589965cc75374cc3ull;
constexpr std::uint64_t kP4 = 0x1d8e4e27c47d124full;
constexpr std::uint64_t kQ0 = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t kQ1 = 0xbf58476d1ce4e5b9ull;
constexpr std::uint64_t kQ2 = 0x94d049bb133111ebull;

// Two lanes with different constants; each absorbs the same 64-bit words.
struct Lanes {
  std::uint64_t a = kP0;
  std::uint64_t b = kQ0;
  void absorb(std::uint64_t w) {
    a = mum(a ^ w ^ kP1, kP2) + w;
    b = mum(b + (w ^ kQ1), kQ2) ^ (b >> 29);
  }
};

inline std::uint64_t finish(std::uint64_t x, std::uint64_t k) {
  x ^= x >> 31;
  x = mum(x ^ k, kP3);
  x ^= x >> 29;
  x *= kP4;
  x ^= x >> 32;
  return x;
}

}  // namespace

BlockHash none_hash() {
  return BlockHash{0x6e6f6e655f686173ull, 0x685f626c69735f31ull};  // "none_hash_blis_1"
}

BlockHash hash_block_tokens(const BlockHash* parent, const std::int32_t* tokens, std::int32_t n,
                            const BlockExtraKeys& extra) {
  const BlockHash p = parent != nullptr ? *parent : none_hash();
  Lanes l;
  l.absorb(p.hi);
  l.absorb(p.lo);
  l.absorb(static_cast<std::uint64_t>(static_cast<std::uint32_t>(n)));
  std::int32_t i = 0;
  for (; i + 1 < n; i += 2) {
    const std::uint64_t w =
        static_cast<std::uint64_t>(static_cast<std::uint32_t>(tokens[i])) |
        (static_cast<std::uint64_t>(static_cast<std::uint32_t>(tokens[i + 1])) << 32);
    l.absorb(w);
  }
  if (i < n)
    l.absorb(static_cast<std::uint64_t>(static_cast<std::uint32_t>(tokens[i])) | (1ull << 63));
  // Extra keys: a tag word says which keys are present, so (no keys) differs from any tuple.
  const std::uint64_t tag = (extra.lora_id != 0 ? 1u : 0u) | (extra.has_cache_salt ? 2u : 0u);
  l.absorb(0x65787472616b6579ull ^ tag);
  if (extra.lora_id != 0)
    l.absorb(static_cast<std::uint64_t>(static_cast<std::uint32_t>(extra.lora_id)));
  if (extra.has_cache_salt) l.absorb(extra.cache_salt);
  return BlockHash{finish(l.a, l.b), finish(l.b, l.a ^ kQ1)};
}

}  // namespace blis::vllm
