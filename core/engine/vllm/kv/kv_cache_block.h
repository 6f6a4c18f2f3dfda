#pragma once
// KVCacheBlock: one physical block of the paged KV cache (vllm v1/core/kv_cache_utils.py
// KVCacheBlock). Blocks are addressed by index; the hash chains' links are intrusive, and the
// free queue's position is held here, so neither allocates.

#include <cstdint>

#include "engine/vllm/kv/block_hash.h"

namespace blis::vllm {

inline constexpr std::int32_t kNoBlock = -1;

struct KVCacheBlock {
  std::int32_t block_id = 0;
  std::int32_t ref_cnt = 0;
  bool is_null = false;
  // The hash of the block's tokens once it is full and cached; kept while the block sits in
  // the free queue (so it can still be hit) and dropped when the block is reused.
  bool has_hash = false;
  BlockHash block_hash;
  // Where the block sits in the free queue (free_block_queue.h: vLLM's prev_free_block /
  // next_free_block links, kept as a slot of the queue's ring); kNotFree = not queued.
  static constexpr std::uint32_t kNotFree = 0xffffffffu;
  std::uint32_t free_pos = kNotFree;
  // Links of the chain of blocks that hold the same hash, oldest first (BlockPool keeps
  // duplicates: block tables are append-only and never deduplicated).
  std::int32_t hash_prev = kNoBlock;
  std::int32_t hash_next = kNoBlock;
};

}  // namespace blis::vllm
