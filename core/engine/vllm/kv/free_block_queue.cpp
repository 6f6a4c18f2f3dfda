#include "engine/vllm/kv/free_block_queue.h"

#include <stdexcept>

namespace blis::vllm {

FreeBlockQueue::FreeBlockQueue(std::vector<KVCacheBlock>* blocks, std::int32_t num_blocks)
    : blocks_(blocks), head_(num_blocks), tail_(num_blocks + 1) {
  if (static_cast<std::int32_t>(blocks_->size()) != num_blocks + 2) {
    throw std::logic_error("FreeBlockQueue: blocks must hold num_blocks + 2 sentinel slots");
  }
  // vllm kv_cache_utils.py FreeKVCacheBlockQueue.__init__: all blocks in id order.
  std::int32_t prev = head_;
  for (std::int32_t i = 0; i < num_blocks; ++i) {
    at(prev).next_free = i;
    at(i).prev_free = prev;
    prev = i;
  }
  at(prev).next_free = tail_;
  at(tail_).prev_free = prev;
  at(head_).prev_free = kNoBlock;
  at(tail_).next_free = kNoBlock;
  num_free_ = num_blocks;
}

std::int32_t FreeBlockQueue::popleft() {
  const std::int32_t first = at(head_).next_free;
  if (first == tail_) throw std::logic_error("FreeBlockQueue::popleft: no free blocks");
  remove(first);
  return first;
}

void FreeBlockQueue::popleft_n(std::int32_t n, std::vector<std::int32_t>& out) {
  if (n > num_free_) throw std::logic_error("FreeBlockQueue::popleft_n: not enough free blocks");
  std::int32_t cur = at(head_).next_free;
  for (std::int32_t k = 0; k < n; ++k) {
    const std::int32_t next = at(cur).next_free;
    at(cur).prev_free = kNoBlock;
    at(cur).next_free = kNoBlock;
    out.push_back(cur);
    cur = next;
  }
  at(head_).next_free = cur;
  at(cur).prev_free = head_;
  num_free_ -= n;
}

void FreeBlockQueue::remove(std::int32_t block) {
  KVCacheBlock& b = at(block);
  if (b.prev_free == kNoBlock || b.next_free == kNoBlock) {
    throw std::logic_error("FreeBlockQueue::remove: block is not in the free queue");
  }
  at(b.prev_free).next_free = b.next_free;
  at(b.next_free).prev_free = b.prev_free;
  b.prev_free = kNoBlock;
  b.next_free = kNoBlock;
  --num_free_;
}

void FreeBlockQueue::append(std::int32_t block) {
  const std::int32_t last = at(tail_).prev_free;
  at(last).next_free = block;
  at(block).prev_free = last;
  at(block).next_free = tail_;
  at(tail_).prev_free = block;
  ++num_free_;
}

void FreeBlockQueue::append_n(std::span<const std::int32_t> ids) {
  for (const std::int32_t id : ids) append(id);
}

void FreeBlockQueue::prepend_n(std::span<const std::int32_t> ids) {
  if (ids.empty()) return;
  // vllm kv_cache_utils.py FreeKVCacheBlockQueue.prepend_n: ids[0] becomes the new head.
  const std::int32_t first = at(head_).next_free;
  std::int32_t prev = head_;
  for (const std::int32_t id : ids) {
    at(id).prev_free = prev;
    at(prev).next_free = id;
    prev = id;
  }
  at(prev).next_free = first;
  at(first).prev_free = prev;
  num_free_ += static_cast<std::int32_t>(ids.size());
}

bool FreeBlockQueue::contains(std::int32_t block) const {
  return at(block).prev_free != kNoBlock;
}

std::vector<std::int32_t> FreeBlockQueue::all_free_blocks() const {
  std::vector<std::int32_t> out;
  for (std::int32_t cur = at(head_).next_free; cur != tail_; cur = at(cur).next_free) {
    out.push_back(cur);
  }
  return out;
}

}  // namespace blis::vllm
