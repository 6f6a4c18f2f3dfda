#pragma once
// KV-cache events, as vLLM publishes them with enable_kv_cache_events
// (vllm distributed/kv_events.py BlockStored / BlockRemoved, emitted by
// v1/core/block_pool.py BlockPool.cache_full_blocks and _maybe_evict_cached_block): a block
// got a prefix-cache hash, or lost it. llm-d's precise prefix-cache scorer indexes them. The
// listener only observes: attaching one never changes what the engine does.

#include <cstdint>

namespace blis::engine {

class KvEventListener {
 public:
  virtual ~KvEventListener() = default;
  // The block hash (the engine's 128-bit hash, as two words).
  virtual void block_stored(std::uint64_t hash_hi, std::uint64_t hash_lo) = 0;
  virtual void block_removed(std::uint64_t hash_hi, std::uint64_t hash_lo) = 0;
};

}  // namespace blis::engine
