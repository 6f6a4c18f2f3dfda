#include "engine/vllm/kv/block_hash_index.h"

#include <stdexcept>

namespace blis::vllm {

BlockHashIndex::BlockHashIndex(std::vector<KVCacheBlock>* blocks, std::int32_t num_blocks)
    : blocks_(blocks), num_blocks_(num_blocks) {
  map_.reserve(static_cast<std::size_t>(num_blocks > 0 ? num_blocks : 0));
}

std::int32_t BlockHashIndex::get_one_block(const BlockHash& hash) const {
  const Chain* c = map_.find(hash);
  return c != nullptr ? c->head : kNoBlock;
}

void BlockHashIndex::insert(std::int32_t block) {
  KVCacheBlock& b = blk(block);
  b.hash_next = kNoBlock;
  if (KeyTraits::is_empty(b.block_hash)) {  // the reserved key: never stored (see header)
    b.hash_prev = kNoBlock;
    return;
  }
  bool inserted = false;
  Chain* c = map_.try_emplace(b.block_hash, Chain{block, block}, &inserted);
  if (inserted) {
    if (num_hashes() > num_blocks_)
      throw std::logic_error("BlockHashIndex: more hashes than blocks");
    b.hash_prev = kNoBlock;
  } else {
    blk(c->tail).hash_next = block;
    b.hash_prev = c->tail;
    c->tail = block;
  }
  ++num_entries_;
}

bool BlockHashIndex::remove(std::int32_t block) {
  KVCacheBlock& b = blk(block);
  const std::size_t i = map_.find_index(b.block_hash);
  if (i == Map::kNpos) return false;
  Chain* c = &map_.value_at(i);
  // The block must be on this chain: it is the head, or it has a predecessor.
  if (c->head != block && b.hash_prev == kNoBlock) return false;
  if (b.hash_prev != kNoBlock) blk(b.hash_prev).hash_next = b.hash_next;
  if (b.hash_next != kNoBlock) blk(b.hash_next).hash_prev = b.hash_prev;
  if (c->head == block) c->head = b.hash_next;
  if (c->tail == block) c->tail = b.hash_prev;
  b.hash_prev = b.hash_next = kNoBlock;
  --num_entries_;
  if (c->head == kNoBlock) map_.erase_at(i);
  return true;
}

void BlockHashIndex::clear() {
  map_.for_each([this](const BlockHash&, Chain& c) {
    for (std::int32_t b = c.head; b != kNoBlock;) {
      const std::int32_t next = blk(b).hash_next;
      blk(b).hash_prev = blk(b).hash_next = kNoBlock;
      b = next;
    }
  });
  map_.clear();
  num_entries_ = 0;
}

}  // namespace blis::vllm
