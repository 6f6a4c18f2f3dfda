#include "engine/vllm/kv/block_hash.h"

#include "util/mul_fold.h"

namespace blis::vllm {
namespace {

constexpr std::uint64_t kP0 = 0xa0761d6478bd642full;
constexpr std::uint64_t kP1 = 0xe7037ed1a0b428dbull;
constexpr std::uint64_t kP2 = 0x8ebc6af09c88c6e3ull;
constexpr std::uint64_t kP3 = 0x589965cc75374cc3ull;
constexpr std::uint64_t kP4 = 0x1d8e4e27c47d124full;
constexpr std::uint64_t kQ0 = 0x9e3779b97f4a7c15ull;
constexpr std::uint64_t kQ1 = 0xbf58476d1ce4e5b9ull;
constexpr std::uint64_t kQ2 = 0x94d049bb133111ebull;

// Two lanes with different constants. Each absorbs 16 bytes (two words) per multiply, as
// wyhash's main loop does, with the state in one operand and the words crossed between the
// lanes. A lane's product is zero, and its state lost, when an operand is: for one fixed word
// (x == kP1 for lane a, y == kQ1 for lane b) or where a word cancels the state (a 2^-64
// chance); the two lanes' constants differ, so both lose it at once only for one fixed
// 128-bit input. The 128-bit result keeps every equality the input has and no other in
// practice (block_hash_test.cpp: 10^6 distinct blocks, and each 64-bit half on its own).
struct Lanes {
  std::uint64_t a = kP0;
  std::uint64_t b = kQ0;
  void absorb(std::uint64_t x, std::uint64_t y) {
    const std::uint64_t na = mul_fold(x ^ kP1, y ^ a ^ kP2);
    b = mul_fold(y ^ kQ1, x ^ b ^ kQ2);
    a = na;
  }
};

inline std::uint64_t finish(std::uint64_t x, std::uint64_t k) {
  x ^= x >> 31;
  x = mul_fold(x ^ k, kP3);
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
  // The words, in order: the parent, a header (n and which extra keys are present), the
  // tokens two per word (an odd last one alone, marked), then the extra keys present. The
  // header fixes how many words follow, so the stream is injective; a zero word pads it to
  // whole pairs.
  Lanes l;
  l.absorb(p.hi, p.lo);
  const std::uint64_t tag = (extra.lora_id != 0 ? 1u : 0u) | (extra.has_cache_salt ? 2u : 0u);
  const auto token_pair = [tokens](std::int32_t i) {
    return static_cast<std::uint64_t>(static_cast<std::uint32_t>(tokens[i])) |
           (static_cast<std::uint64_t>(static_cast<std::uint32_t>(tokens[i + 1])) << 32);
  };
  const std::uint64_t header =
      static_cast<std::uint64_t>(static_cast<std::uint32_t>(n)) | (tag << 32) | (0x6578ull << 48);
  std::int32_t i = 0;
  bool has_pending = true;  // a word waiting for its pair partner
  std::uint64_t pending = header;
  const auto push = [&](std::uint64_t w) {
    if (has_pending)
      l.absorb(pending, w);
    else
      pending = w;
    has_pending = !has_pending;
  };
  if (i + 1 < n) {
    push(token_pair(i));  // pairs with the header
    i += 2;
  }
  for (; i + 3 < n; i += 4) l.absorb(token_pair(i), token_pair(i + 2));  // nothing pending
  for (; i + 1 < n; i += 2) push(token_pair(i));
  if (i < n) push(static_cast<std::uint64_t>(static_cast<std::uint32_t>(tokens[i])) | (1ull << 63));
  if (extra.lora_id != 0)
    push(static_cast<std::uint64_t>(static_cast<std::uint32_t>(extra.lora_id)));
  if (extra.has_cache_salt) push(extra.cache_salt);
  if (has_pending) l.absorb(pending, 0);
  return BlockHash{finish(l.a, l.b), finish(l.b, l.a ^ kQ1)};
}

}  // namespace blis::vllm
