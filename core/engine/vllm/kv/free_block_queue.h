#pragma once
// FreeKVCacheBlockQueue (vllm v1/core/kv_cache_utils.py): the free blocks as a doubly linked
// list threaded through the blocks themselves, with fake head and tail sentinels. O(1) pop
// from the head (eviction: least recently freed first), O(1) removal from the middle (a
// prefix-cache hit "touches" a free block), O(1) append to the tail and prepend to the head.

#include <cstdint>
#include <span>
#include <vector>

#include "engine/vllm/kv/kv_cache_block.h"

namespace blis::vllm {

class FreeBlockQueue {
 public:
  // `blocks` holds num_blocks real blocks followed by two sentinel slots (head, tail) that
  // this queue owns. All real blocks start in the queue in id order.
  FreeBlockQueue(std::vector<KVCacheBlock>* blocks, std::int32_t num_blocks);

  std::int32_t num_free_blocks() const { return num_free_; }
  std::int32_t popleft();
  // Pops n blocks from the head into `out` (appended, head first). Requires n <= free.
  void popleft_n(std::int32_t n, std::vector<std::int32_t>& out);
  // Unlinks a block from anywhere in the queue. Requires the block to be linked.
  void remove(std::int32_t block);
  void append(std::int32_t block);
  void append_n(std::span<const std::int32_t> ids);
  // Puts `ids` at the front in the given order (ids[0] becomes the head).
  void prepend_n(std::span<const std::int32_t> ids);
  bool contains(std::int32_t block) const;
  // The block the next popleft would take, or nullptr when none is free (a read only).
  const KVCacheBlock* front_block() const {
    return num_free_ > 0 ? &at(at(head_).next_free) : nullptr;
  }
  // Head to tail, for tests and invariant checks.
  std::vector<std::int32_t> all_free_blocks() const;

 private:
  KVCacheBlock& at(std::int32_t i) { return (*blocks_)[static_cast<std::size_t>(i)]; }
  const KVCacheBlock& at(std::int32_t i) const { return (*blocks_)[static_cast<std::size_t>(i)]; }
  std::vector<KVCacheBlock>* blocks_;
  std::int32_t head_;  // sentinel index
  std::int32_t tail_;  // sentinel index
  std::int32_t num_free_ = 0;
};

}  // namespace blis::vllm
