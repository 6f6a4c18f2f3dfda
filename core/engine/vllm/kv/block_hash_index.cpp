#include "engine/vllm/kv/block_hash_index.h"

#include <stdexcept>

namespace blis::vllm {

BlockHashIndex::BlockHashIndex(std::vector<KVCacheBlock>* blocks, std::int32_t num_blocks)
    : blocks_(blocks) {
  // Load factor <= 1/2 with at most one hash per block.
  std::size_t cap = 16;
  while (cap < static_cast<std::size_t>(num_blocks) * 2) cap *= 2;
  slots_.assign(cap, Slot{});
  mask_ = cap - 1;
}

std::size_t BlockHashIndex::find_slot(const BlockHash& h) const {
  std::size_t i = home(h);
  while (slots_[i].head != kNoBlock && slots_[i].key != h) i = (i + 1) & mask_;
  return i;
}

std::int32_t BlockHashIndex::get_one_block(const BlockHash& hash) const {
  return slots_[find_slot(hash)].head;
}

void BlockHashIndex::insert(std::int32_t block) {
  KVCacheBlock& b = blk(block);
  const std::size_t i = find_slot(b.block_hash);
  Slot& s = slots_[i];
  b.hash_next = kNoBlock;
  if (s.head == kNoBlock) {
    if (num_hashes_ * 2 >= static_cast<std::int32_t>(slots_.size())) {
      throw std::logic_error("BlockHashIndex: more hashes than blocks");
    }
    s.key = b.block_hash;
    s.head = s.tail = block;
    b.hash_prev = kNoBlock;
    ++num_hashes_;
  } else {
    blk(s.tail).hash_next = block;
    b.hash_prev = s.tail;
    s.tail = block;
  }
  ++num_entries_;
}

bool BlockHashIndex::remove(std::int32_t block) {
  KVCacheBlock& b = blk(block);
  const std::size_t i = find_slot(b.block_hash);
  Slot& s = slots_[i];
  if (s.head == kNoBlock) return false;
  // The block must be on this chain: it is the head, or it has a predecessor.
  if (s.head != block && b.hash_prev == kNoBlock) return false;
  if (b.hash_prev != kNoBlock) blk(b.hash_prev).hash_next = b.hash_next;
  if (b.hash_next != kNoBlock) blk(b.hash_next).hash_prev = b.hash_prev;
  if (s.head == block) s.head = b.hash_next;
  if (s.tail == block) s.tail = b.hash_prev;
  b.hash_prev = b.hash_next = kNoBlock;
  --num_entries_;
  if (s.head == kNoBlock) erase_slot(i);
  return true;
}

void BlockHashIndex::erase_slot(std::size_t i) {
  // Backward-shift deletion: pull later members of the probe run into the hole so lookups
  // never need tombstones.
  slots_[i] = Slot{};
  --num_hashes_;
  std::size_t hole = i;
  std::size_t j = (i + 1) & mask_;
  while (slots_[j].head != kNoBlock) {
    const std::size_t h = home(slots_[j].key);
    // Move j into the hole iff its home is not in (hole, j] cyclically.
    const bool home_after_hole = ((j - h) & mask_) < ((j - hole) & mask_);
    if (!home_after_hole) {
      slots_[hole] = slots_[j];
      slots_[j] = Slot{};
      hole = j;
    }
    j = (j + 1) & mask_;
  }
}

void BlockHashIndex::clear() {
  for (Slot& s : slots_) {
    for (std::int32_t b = s.head; b != kNoBlock;) {
      const std::int32_t next = blk(b).hash_next;
      blk(b).hash_prev = blk(b).hash_next = kNoBlock;
      b = next;
    }
    s = Slot{};
  }
  num_hashes_ = 0;
  num_entries_ = 0;
}

}  // namespace blis::vllm
