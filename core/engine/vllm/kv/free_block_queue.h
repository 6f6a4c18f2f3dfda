#pragma once
// FreeKVCacheBlockQueue (vllm v1/core/kv_cache_utils.py): the free blocks in eviction order,
// least recently freed first. vLLM threads a doubly linked list through the blocks; the same
// order is kept here in a ring of block ids, with each block holding its position in the ring.
// Popping n blocks then reads n consecutive ids instead of following n dependent links (one
// cache miss after another), which is what the engine's allocations spent their time on.
// O(1) pop from the head, removal from the middle (a prefix-cache hit "touches" a free block:
// its slot becomes a hole, skipped when the head reaches it), append to the tail and prepend
// to the head. When holes make the ring full, the live ids are copied down (amortized O(1)).

#include <cstdint>
#include <span>
#include <vector>

#include "engine/vllm/kv/kv_cache_block.h"

namespace blis::vllm {

class FreeBlockQueue {
 public:
  // `blocks` holds num_blocks blocks (block i at index i); all start in the queue in id order.
  FreeBlockQueue(std::vector<KVCacheBlock>* blocks, std::int32_t num_blocks);

  std::int32_t num_free_blocks() const { return num_free_; }
  std::int32_t popleft();
  // Pops n blocks from the head into `out` (appended, head first). Requires n <= free.
  void popleft_n(std::int32_t n, std::vector<std::int32_t>& out);
  // Takes a block out from anywhere in the queue. Requires the block to be queued.
  void remove(std::int32_t block);
  // Requires the block not to be queued.
  void append(std::int32_t block);
  void append_n(std::span<const std::int32_t> ids);
  // Puts `ids` at the front in the given order (ids[0] becomes the head).
  void prepend_n(std::span<const std::int32_t> ids);
  bool contains(std::int32_t block) const;
  // The queued blocks a pop would take first and second, or kNoBlock (for look-ahead). The
  // second is looked for only in the few slots after the head: a hint need not be found, and
  // holes piled up behind a head that stays would otherwise be scanned again on every call.
  void front_two(std::int32_t& first, std::int32_t& second) const;
  // Head to tail, for tests and invariant checks.
  std::vector<std::int32_t> all_free_blocks() const;
  // How many times holes filled the ring and the live ids were copied down (tests).
  std::int64_t compactions() const { return compactions_; }

 private:
  static constexpr std::int32_t kHole = -1;
  KVCacheBlock& at(std::int32_t i) { return (*blocks_)[static_cast<std::size_t>(i)]; }
  const KVCacheBlock& at(std::int32_t i) const { return (*blocks_)[static_cast<std::size_t>(i)]; }
  // Ring positions count up without bound (mod 2^32); a queued block's free_pos is its
  // position's slot index (pos & mask_).
  std::int32_t& slot(std::uint32_t pos) { return ring_[pos & mask_]; }
  std::int32_t slot(std::uint32_t pos) const { return ring_[pos & mask_]; }
  std::uint32_t span() const { return end_ - head_; }
  // Moves head_ past holes (the head slot is live whenever a block is free).
  void skip_holes();
  // Rewrites the live ids without holes, leaving `front` free slots before the head.
  void compact(std::uint32_t front);

  std::vector<KVCacheBlock>* blocks_;
  std::vector<std::int32_t> ring_;  // power-of-two size
  std::uint32_t mask_ = 0;
  std::uint32_t head_ = 0;  // position of the first queued block
  std::uint32_t end_ = 0;   // one past the last slot in use
  std::int32_t num_free_ = 0;
  std::int64_t compactions_ = 0;
  std::vector<std::int32_t> scratch_;  // compact()'s copy of the live ids (kept: no allocation)
};

}  // namespace blis::vllm
