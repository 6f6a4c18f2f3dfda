#pragma once
// Block hashes for prefix caching: one chained hash per full block of a request's tokens.
//
// vLLM (v1/core/kv_cache_utils.py hash_block_tokens) hashes the tuple
// (parent hash or NONE_HASH, block token ids, extra keys or None) with SHA-256. Two blocks
// are the same cache entry iff parent, tokens and extra keys are all equal. We keep exactly
// that equality with our own 128-bit hash (two independent 64-bit multiply-mix lanes): the
// behaviour does not need byte-compatible hashes (spec §6.2), only the same equalities and no
// collisions in practice (tests/engine checks 10^6 distinct blocks).

#include <cstdint>

namespace blis::vllm {

struct BlockHash {
  std::uint64_t hi = 0;
  std::uint64_t lo = 0;
  friend bool operator==(const BlockHash& a, const BlockHash& b) {
    return a.hi == b.hi && a.lo == b.lo;
  }
  friend bool operator!=(const BlockHash& a, const BlockHash& b) { return !(a == b); }
};

// The extra keys vLLM mixes into a block hash
// (kv_cache_utils.py generate_block_hash_extra_keys): the LoRA adapter and, for the block
// starting at token 0 only, the cache salt. Multimodal and prompt-embeds keys do not apply
// to a token-level simulator.
struct BlockExtraKeys {
  std::int32_t lora_id = 0;  // 0 = no adapter (no key)
  bool has_cache_salt = false;
  std::uint64_t cache_salt = 0;
  bool empty() const { return lora_id == 0 && !has_cache_salt; }
};

// The hash that stands in for a missing parent (vLLM's NONE_HASH; fixed here, so runs are
// reproducible, like vLLM with PYTHONHASHSEED set).
BlockHash none_hash();

// hash(parent, tokens[0..n), extra keys). `parent` is null for the first block.
BlockHash hash_block_tokens(const BlockHash* parent, const std::int32_t* tokens, std::int32_t n,
                            const BlockExtraKeys& extra);

}  // namespace blis::vllm
