#include "engine/vllm/kv/single_type_kv_cache_manager.h"

#include <algorithm>
#include <stdexcept>

namespace blis::vllm {
namespace {

std::int32_t cdiv(std::int32_t a, std::int32_t b) {
  return (a + b - 1) / b;
}

}  // namespace

FullAttentionManager::FullAttentionManager(BlockPool* pool, std::int32_t block_size)
    : pool_(pool), block_size_(block_size) {}

FullAttentionManager::Entry& FullAttentionManager::entry_slow(std::int32_t slot) {
  if (slot < 0) throw std::logic_error("FullAttentionManager: invalid request slot");
  if (static_cast<std::size_t>(slot) >= entries_.size())
    entries_.resize(static_cast<std::size_t>(slot) + 1);
  Entry& e = entries_[static_cast<std::size_t>(slot)];
  if (!e.live) {
    // vLLM's req_to_blocks is a defaultdict: first access creates the (empty) entry.
    e.live = true;
    e.blocks.clear();
    e.num_cached_block = 0;
    ++num_entries_;
  }
  return e;
}

std::int32_t FullAttentionManager::get_num_blocks_to_allocate(
    std::int32_t slot, std::int32_t num_tokens,
    std::span<const std::int32_t> new_computed_blocks) const {
  // vllm single_type_kv_cache_manager.py SingleTypeKVCacheManager.get_num_blocks_to_allocate
  // for full attention (nothing skipped, no admission cap, no partial hits):
  //   max(required - (hits + held), 0) + hits that are free (ref 0).
  const std::int32_t required = cdiv(num_tokens, block_size_);
  const Entry* e = find(slot);
  const std::int32_t held = e != nullptr ? static_cast<std::int32_t>(e->blocks.size()) : 0;
  const std::int32_t local = static_cast<std::int32_t>(new_computed_blocks.size()) + held;
  std::int32_t evictable = 0;
  for (const std::int32_t id : new_computed_blocks) {
    const KVCacheBlock& b = pool_->block(id);
    if (b.ref_cnt == 0 && !b.is_null) ++evictable;
  }
  return std::max(required - local, 0) + evictable;
}

void FullAttentionManager::add_local_computed_blocks(std::int32_t slot,
                                                     std::span<const std::int32_t> blocks) {
  // vllm single_type_kv_cache_manager.py add_local_computed_blocks: only for a request's
  // first allocation; touch the hits, append them, mark them cached.
  Entry& e = entry(slot);
  if (!e.blocks.empty()) throw std::logic_error("add_local_computed_blocks: request has blocks");
  if (pool_->enable_caching()) {
    pool_->touch(blocks);
  } else if (!blocks.empty()) {
    throw std::logic_error("add_local_computed_blocks: hits with prefix caching disabled");
  }
  e.blocks.insert(e.blocks.end(), blocks.begin(), blocks.end());
  e.num_cached_block = static_cast<std::int32_t>(e.blocks.size());
}

void FullAttentionManager::allocate_external_computed_blocks(std::int32_t slot,
                                                             std::int32_t num_local_computed,
                                                             std::int32_t num_external_computed) {
  // vllm single_type_kv_cache_manager.py allocate_external_computed_blocks.
  if (num_external_computed <= 0) return;
  Entry& e = entry(slot);
  const std::int32_t n = cdiv(num_local_computed + num_external_computed, block_size_) -
                         static_cast<std::int32_t>(e.blocks.size());
  if (n > 0) pool_->get_new_blocks(n, e.blocks);
}

void FullAttentionManager::allocate_new_blocks(std::int32_t slot, std::int32_t num_tokens,
                                               std::vector<std::int32_t>* out) {
  // vllm single_type_kv_cache_manager.py allocate_new_blocks.
  Entry& e = entry(slot);
  const std::int32_t n = cdiv(num_tokens, block_size_) - static_cast<std::int32_t>(e.blocks.size());
  if (n <= 0) return;
  const std::size_t first = e.blocks.size();
  pool_->get_new_blocks(n, e.blocks);
  if (out != nullptr)
    out->insert(out->end(), e.blocks.begin() + static_cast<std::ptrdiff_t>(first), e.blocks.end());
}

void FullAttentionManager::cache_blocks(const Request& r, std::int32_t num_tokens) {
  // vllm single_type_kv_cache_manager.py SingleTypeKVCacheManager.cache_blocks.
  Entry& e = entry(r.slot);
  const std::int32_t num_full = num_tokens / block_size_;
  if (e.num_cached_block >= num_full) return;
  pool_->cache_full_blocks(r.block_hashes, e.blocks, e.num_cached_block, num_full);
  e.num_cached_block = num_full;
}

void FullAttentionManager::pop_blocks_for_free(std::int32_t slot, std::vector<std::int32_t>& out) {
  if (slot < 0 || static_cast<std::size_t>(slot) >= entries_.size()) return;
  Entry& e = entries_[static_cast<std::size_t>(slot)];
  if (!e.live) return;
  out.insert(out.end(), e.blocks.begin(), e.blocks.end());
  e.blocks.clear();
  e.num_cached_block = 0;
  e.live = false;
  --num_entries_;
}

void FullAttentionManager::free(std::int32_t slot) {
  // vllm single_type_kv_cache_manager.py SingleTypeKVCacheManager.free: pop the table and
  // free it in reverse order so the tail blocks are evicted first.
  if (slot < 0 || static_cast<std::size_t>(slot) >= entries_.size()) return;
  Entry& e = entries_[static_cast<std::size_t>(slot)];
  if (!e.live) return;
  pool_->free_blocks_reversed(e.blocks);
  e.blocks.clear();
  e.num_cached_block = 0;
  e.live = false;
  --num_entries_;
}

void FullAttentionManager::find_longest_cache_hit(std::span<const BlockHash> hashes,
                                                  std::int32_t max_length,
                                                  std::vector<std::int32_t>& out) const {
  // vllm single_type_kv_cache_manager.py FullAttentionManager.find_longest_cache_hit: walk
  // the first max_length // block_size hashes, stop at the first miss.
  const std::int32_t max_blocks =
      std::min(max_length / block_size_, static_cast<std::int32_t>(hashes.size()));
  for (std::int32_t i = 0; i < max_blocks; ++i) {
    const std::int32_t id = pool_->get_cached_block(hashes[static_cast<std::size_t>(i)]);
    if (id == kNoBlock) break;
    out.push_back(id);
  }
}

std::int32_t FullAttentionManager::get_num_common_prefix_blocks(std::int32_t slot) const {
  // vllm single_type_kv_cache_manager.py FullAttentionManager.get_num_common_prefix_blocks:
  // a block is common if every request holding blocks references it.
  const Entry* e = find(slot);
  if (e == nullptr) return 0;
  std::int32_t n = 0;
  for (const std::int32_t id : e->blocks) {
    if (pool_->block(id).ref_cnt != num_entries_) break;
    ++n;
  }
  return n;
}

void FullAttentionManager::reserve(std::int32_t slot, std::int32_t num_blocks) {
  if (slot < 0) return;
  if (static_cast<std::size_t>(slot) >= entries_.size())
    entries_.resize(static_cast<std::size_t>(slot) + 1);
  entries_[static_cast<std::size_t>(slot)].blocks.reserve(static_cast<std::size_t>(num_blocks));
}

std::span<const std::int32_t> FullAttentionManager::blocks(std::int32_t slot) const {
  const Entry* e = find(slot);
  if (e == nullptr) return {};
  return e->blocks;
}

bool FullAttentionManager::has_blocks_entry(std::int32_t slot) const {
  return find(slot) != nullptr;
}

std::int32_t FullAttentionManager::num_cached_blocks(std::int32_t slot) const {
  const Entry* e = find(slot);
  return e != nullptr ? e->num_cached_block : 0;
}

}  // namespace blis::vllm
