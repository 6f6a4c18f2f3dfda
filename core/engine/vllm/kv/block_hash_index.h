#pragma once
// BlockHashIndex: the prefix cache's hash -> blocks map (vllm v1/core/block_pool.py
// BlockHashToBlockMap). One hash may be held by several blocks (the same content computed by
// two requests); lookups return the oldest entry, and removing one entry keeps the others.
//
// Open addressing with linear probing and backward-shift deletion over a table sized once
// from the number of blocks (at most one entry per block), so it never rehashes or
// allocates after construction. The blocks with one hash form a chain through
// KVCacheBlock::hash_prev / hash_next.

#include <cstdint>
#include <vector>

#include "engine/vllm/kv/kv_cache_block.h"

namespace blis::vllm {

class BlockHashIndex {
 public:
  BlockHashIndex(std::vector<KVCacheBlock>* blocks, std::int32_t num_blocks);

  // The oldest block holding `hash`, or kNoBlock.
  std::int32_t get_one_block(const BlockHash& hash) const;
  // Adds `block` (whose block_hash is set) as the newest holder of its hash.
  void insert(std::int32_t block);
  // Removes `block` from its hash's entry; true if it was there.
  bool remove(std::int32_t block);
  void clear();
  // Starts loading hash's home slot into the cache (contents unchanged): callers about to
  // insert or remove many blocks issue these first so the cache misses overlap.
  void prefetch(const BlockHash& hash) const { __builtin_prefetch(&slots_[home(hash)]); }
  std::int32_t num_hashes() const { return num_hashes_; }
  std::int32_t num_entries() const { return num_entries_; }

 private:
  struct Slot {
    BlockHash key;
    std::int32_t head = kNoBlock;  // kNoBlock = empty slot
    std::int32_t tail = kNoBlock;
  };
  std::size_t home(const BlockHash& h) const {
    return static_cast<std::size_t>(h.lo ^ (h.hi >> 17)) & mask_;
  }
  std::size_t find_slot(const BlockHash& h) const;  // slot holding h, or an empty slot
  void erase_slot(std::size_t i);
  KVCacheBlock& blk(std::int32_t i) { return (*blocks_)[static_cast<std::size_t>(i)]; }

  std::vector<KVCacheBlock>* blocks_;
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::int32_t num_hashes_ = 0;
  std::int32_t num_entries_ = 0;
};

}  // namespace blis::vllm
