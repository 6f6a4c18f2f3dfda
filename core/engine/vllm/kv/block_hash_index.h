#pragma once
// BlockHashIndex: the prefix cache's hash -> blocks map (vllm v1/core/block_pool.py
// BlockHashToBlockMap). One hash may be held by several blocks (the same content computed by
// two requests); lookups return the oldest entry, and removing one entry keeps the others.
//
// The table is util/flat_hash_map.h (the project's one open-addressing map), keyed by the
// 128-bit hash and sized once from the number of blocks (at most one hash per block), so it
// never rehashes or allocates after construction. The hash {0, 0} marks free slots: a block
// hash equal to it (probability 2^-128, the same as two distinct blocks colliding, which the
// design already accepts: block_hash.h) would be stored nowhere and simply never hit. The
// blocks with one hash form a chain through KVCacheBlock::hash_prev / hash_next.

#include <cstdint>
#include <vector>

#include "engine/vllm/kv/kv_cache_block.h"
#include "util/flat_hash_map.h"

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
  void prefetch(const BlockHash& hash) const { map_.prefetch(hash); }
  std::int32_t num_hashes() const { return static_cast<std::int32_t>(map_.size()); }
  std::int32_t num_entries() const { return num_entries_; }

 private:
  struct Chain {
    std::int32_t head = kNoBlock;  // oldest holder
    std::int32_t tail = kNoBlock;  // newest holder
  };
  struct KeyTraits {
    static constexpr BlockHash empty() { return BlockHash{0, 0}; }
    static bool is_empty(const BlockHash& h) { return h.hi == 0 && h.lo == 0; }
    static std::size_t hash(const BlockHash& h) {
      return static_cast<std::size_t>(h.lo ^ (h.hi >> 17));  // already well mixed
    }
  };
  KVCacheBlock& blk(std::int32_t i) { return (*blocks_)[static_cast<std::size_t>(i)]; }

  std::vector<KVCacheBlock>* blocks_;
  using Map = BasicFlatHashMap<BlockHash, Chain, KeyTraits>;
  Map map_;
  std::int32_t num_blocks_ = 0;
  std::int32_t num_entries_ = 0;
};

}  // namespace blis::vllm
