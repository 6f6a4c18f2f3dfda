#include "engine/vllm/kv/free_block_queue.h"

#include <stdexcept>

namespace blis::vllm {

FreeBlockQueue::FreeBlockQueue(std::vector<KVCacheBlock>* blocks, std::int32_t num_blocks)
    : blocks_(blocks) {
  if (num_blocks < 0 || static_cast<std::int32_t>(blocks_->size()) != num_blocks) {
    throw std::logic_error("FreeBlockQueue: blocks must hold num_blocks blocks");
  }
  // Room for every block twice over, so holes force a compaction only after about
  // num_blocks appends without a pop.
  std::size_t size = 64;
  while (size < 2 * static_cast<std::size_t>(num_blocks) + 64) size *= 2;
  if (size > (std::size_t{1} << 31)) throw std::length_error("FreeBlockQueue: too many blocks");
  ring_.assign(size, kHole);
  mask_ = static_cast<std::uint32_t>(size - 1);
  // vllm kv_cache_utils.py FreeKVCacheBlockQueue.__init__: all blocks in id order. The head
  // starts a quarter in, so prepends find room too.
  head_ = end_ = static_cast<std::uint32_t>(size / 4);
  for (std::int32_t i = 0; i < num_blocks; ++i) {
    at(i).free_pos = end_ & mask_;
    slot(end_++) = i;
  }
  num_free_ = num_blocks;
}

void FreeBlockQueue::skip_holes() {
  while (head_ != end_ && slot(head_) == kHole) ++head_;
}

std::int32_t FreeBlockQueue::popleft() {
  if (num_free_ == 0) throw std::logic_error("FreeBlockQueue::popleft: no free blocks");
  const std::int32_t first = slot(head_);
  slot(head_++) = kHole;
  at(first).free_pos = KVCacheBlock::kNotFree;
  --num_free_;
  skip_holes();
  return first;
}

void FreeBlockQueue::popleft_n(std::int32_t n, std::vector<std::int32_t>& out) {
  if (n > num_free_) throw std::logic_error("FreeBlockQueue::popleft_n: not enough free blocks");
  std::uint32_t pos = head_;
  for (std::int32_t k = 0; k < n; ++pos) {
    const std::int32_t id = slot(pos);
    if (id == kHole) continue;
    slot(pos) = kHole;
    at(id).free_pos = KVCacheBlock::kNotFree;
    out.push_back(id);
    ++k;
  }
  head_ = pos;
  num_free_ -= n;
  skip_holes();
}

void FreeBlockQueue::remove(std::int32_t block) {
  KVCacheBlock& b = at(block);
  if (b.free_pos == KVCacheBlock::kNotFree) {
    throw std::logic_error("FreeBlockQueue::remove: block is not in the free queue");
  }
  slot(b.free_pos) = kHole;
  b.free_pos = KVCacheBlock::kNotFree;
  --num_free_;
  skip_holes();
  while (end_ != head_ && slot(end_ - 1) == kHole) --end_;  // a hole at the tail is free room
}

void FreeBlockQueue::append(std::int32_t block) {
  KVCacheBlock& b = at(block);
  if (b.free_pos != KVCacheBlock::kNotFree) {
    throw std::logic_error("FreeBlockQueue::append: block is already in the free queue");
  }
  if (span() == ring_.size()) compact(static_cast<std::uint32_t>(ring_.size() / 4));
  b.free_pos = end_ & mask_;
  slot(end_++) = block;
  ++num_free_;
}

void FreeBlockQueue::append_n(std::span<const std::int32_t> ids) {
  for (const std::int32_t id : ids) append(id);
}

void FreeBlockQueue::prepend_n(std::span<const std::int32_t> ids) {
  if (ids.empty()) return;
  // vllm kv_cache_utils.py FreeKVCacheBlockQueue.prepend_n: ids[0] becomes the new head.
  const auto n = static_cast<std::uint32_t>(ids.size());
  for (const std::int32_t id : ids) {
    if (at(id).free_pos != KVCacheBlock::kNotFree) {
      throw std::logic_error("FreeBlockQueue::prepend_n: block is already in the free queue");
    }
  }
  if (span() + n > ring_.size()) compact(n + static_cast<std::uint32_t>(ring_.size() / 8));
  head_ -= n;
  for (std::uint32_t k = 0; k < n; ++k) {
    at(ids[k]).free_pos = (head_ + k) & mask_;
    slot(head_ + k) = ids[k];
  }
  num_free_ += static_cast<std::int32_t>(n);
}

void FreeBlockQueue::compact(std::uint32_t front) {
  // The live blocks keep their order; only their positions change (a pass over them, after
  // at least about num_blocks appends since the last one).
  ++compactions_;
  std::vector<std::int32_t>& live = scratch_;
  live.clear();
  for (std::uint32_t pos = head_; pos != end_; ++pos)
    if (slot(pos) != kHole) live.push_back(slot(pos));
  // No slot outside [head_, end_) is ever read before it is written, so only the live ids
  // are written back.
  if (live.size() + front >= ring_.size()) throw std::logic_error("FreeBlockQueue: ring too small");
  head_ = end_ = front;
  for (const std::int32_t id : live) {
    at(id).free_pos = end_ & mask_;
    slot(end_++) = id;
  }
}

bool FreeBlockQueue::contains(std::int32_t block) const {
  return at(block).free_pos != KVCacheBlock::kNotFree;
}

void FreeBlockQueue::front_two(std::int32_t& first, std::int32_t& second) const {
  first = second = kNoBlock;
  if (num_free_ == 0) return;
  first = slot(head_);  // the head slot is live whenever a block is free
  constexpr std::uint32_t kLookAhead = 8;
  for (std::uint32_t pos = head_ + 1; pos != end_ && pos - head_ <= kLookAhead; ++pos) {
    if (slot(pos) != kHole) {
      second = slot(pos);
      return;
    }
  }
}

std::vector<std::int32_t> FreeBlockQueue::all_free_blocks() const {
  std::vector<std::int32_t> out;
  for (std::uint32_t pos = head_; pos != end_; ++pos)
    if (slot(pos) != kHole) out.push_back(slot(pos));
  return out;
}

}  // namespace blis::vllm
