#include "cluster/workload/token_ids.h"

#include "util/rng.h"

namespace blis::cluster {

namespace {
constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ULL;
constexpr std::uint64_t kVocabSpan = static_cast<std::uint64_t>(kVocabEnd - kFirstTokenId);

// SplitMix64's finalizer: a bijective mix, so distinct inputs give distinct keys.
std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Maps 32 random bits onto the vocabulary by multiply-shift (integer-exact on every platform).
std::int32_t to_token(std::uint64_t bits32) {
  return kFirstTokenId + static_cast<std::int32_t>((bits32 * kVocabSpan) >> 32);
}
}  // namespace

std::uint64_t derive_key(std::uint64_t base, std::uint64_t index) {
  return mix64(base + (index + 1) * kGolden);
}

void append_token_ids(std::uint64_t key, std::int32_t n, std::vector<std::int32_t>& out) {
  if (n <= 0) return;
  Rng rng(key);
  const std::size_t start = out.size();
  out.resize(start + static_cast<std::size_t>(n));
  std::int32_t* p = out.data() + start;
  std::int32_t i = 0;
  // Two ids per 64-bit draw, low half first; an odd last id takes the low half too, so a
  // shorter sequence of a key is always a prefix of a longer one.
  for (; i + 1 < n; i += 2) {
    const std::uint64_t r = rng.next_u64();
    p[i] = to_token(r & 0xFFFFFFFFULL);
    p[i + 1] = to_token(r >> 32);
  }
  if (i < n) p[i] = to_token(rng.next_u64() & 0xFFFFFFFFULL);
}

std::int32_t output_token_base(std::uint64_t key) {
  Rng rng(mix64(key ^ 0x6F75747075742D62ULL));  // "output-b": apart from the prompt's ids
  return to_token(rng.next_u64() >> 32);
}

}  // namespace blis::cluster
