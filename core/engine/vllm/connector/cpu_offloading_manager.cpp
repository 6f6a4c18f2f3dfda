#include "engine/vllm/connector/cpu_offloading_manager.h"

#include <algorithm>
#include <stdexcept>

namespace blis::vllm {

LookupResult CpuOffloadingManager::lookup(const BlockHash& key) const {
  // manager.py lookup (store_threshold < 2: no lookup counting).
  const auto it = blocks_.find(key);
  if (it == blocks_.end()) return LookupResult::kMiss;
  return it->second.ref_cnt < 0 ? LookupResult::kHitPending : LookupResult::kHit;
}

void CpuOffloadingManager::mark_evictable(const BlockHash& key, Block& b) {
  // lru.py mark_evictable: `evictable_blocks[key] = None` appends a key not yet in the list.
  if (b.evictable) return;
  b.lru = lru_.insert(lru_.end(), key);
  b.evictable = true;
}

void CpuOffloadingManager::mark_non_evictable(Block& b) {
  if (!b.evictable) return;
  lru_.erase(b.lru);
  b.evictable = false;
}

void CpuOffloadingManager::prepare_load(std::span<const BlockHash> keys) {
  // manager.py prepare_load: every key is stored and ready; ref_cnt 0 -> 1 leaves the LRU.
  for (const BlockHash& k : keys) {
    const auto it = blocks_.find(k);
    if (it == blocks_.end() || it->second.ref_cnt < 0)
      throw std::logic_error("prepare_load: chunk not stored or not ready");
    Block& b = it->second;
    if (b.ref_cnt == 0) {
      mark_non_evictable(b);
      --num_evictable_;
    }
    ++b.ref_cnt;
  }
}

void CpuOffloadingManager::touch(std::span<const BlockHash> keys) {
  // lru.py touch: walks the keys backwards moving idle ones to the MRU end, so the first
  // key ends up most recently used.
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    const auto b = blocks_.find(*it);
    if (b == blocks_.end() || !b->second.evictable) continue;
    lru_.splice(lru_.end(), lru_, b->second.lru);
  }
}

void CpuOffloadingManager::complete_load(std::span<const BlockHash> keys) {
  // manager.py complete_load: ref_cnt 1 -> 0 makes the chunk evictable (MRU end).
  for (const BlockHash& k : keys) {
    const auto it = blocks_.find(k);
    if (it == blocks_.end() || it->second.ref_cnt <= 0)
      throw std::logic_error("complete_load: chunk not pinned");
    Block& b = it->second;
    if (--b.ref_cnt == 0) {
      ++num_evictable_;
      mark_evictable(k, b);
    }
  }
}

bool CpuOffloadingManager::prepare_store(std::span<const BlockHash> keys,
                                         std::vector<BlockHash>& to_store) {
  // manager.py prepare_store.
  to_store.clear();
  for (const BlockHash& k : keys) {
    if (blocks_.count(k) == 0) to_store.push_back(k);
  }
  if (to_store.empty()) return true;
  allocation_sizes_.push_back(static_cast<std::int32_t>(to_store.size()));
  const std::int64_t num_to_evict = static_cast<std::int64_t>(to_store.size()) - num_free_blocks();
  if (num_to_evict > 0) {
    if (num_to_evict > num_evictable_) {
      to_store.clear();
      return false;
    }
    // lru.py evict: the first n idle chunks from the LRU front, skipping the input keys;
    // atomic (nothing changes unless all n are found).
    scratch_.clear();
    for (auto it = lru_.begin(); it != lru_.end(); ++it) {
      if (std::find(keys.begin(), keys.end(), *it) != keys.end()) continue;
      scratch_.push_back(it);
      if (static_cast<std::int64_t>(scratch_.size()) == num_to_evict) break;
    }
    if (static_cast<std::int64_t>(scratch_.size()) < num_to_evict) {
      to_store.clear();
      return false;
    }
    for (const auto& it : scratch_) {
      const auto b = blocks_.find(*it);
      free_list_.push_back(b->second.block_id);
      blocks_.erase(b);
      lru_.erase(it);
      ++evictions_;
    }
    num_evictable_ -= num_to_evict;
  }
  // _allocate_blocks: fresh CPU blocks first, then reused ones from the free list.
  for (const BlockHash& k : to_store) {
    Block b;
    if (num_allocated_ < num_blocks_) {
      b.block_id = num_allocated_++;
    } else {
      b.block_id = free_list_.back();
      free_list_.pop_back();
    }
    blocks_.emplace(k, b);  // ref_cnt -1: not evictable until the store completes
  }
  num_write_pending_ += static_cast<std::int64_t>(to_store.size());
  return true;
}

void CpuOffloadingManager::complete_store(std::span<const BlockHash> keys) {
  // manager.py complete_store (success): the chunk becomes ready and idle (MRU end).
  for (const BlockHash& k : keys) {
    const auto it = blocks_.find(k);
    if (it == blocks_.end() || it->second.ref_cnt >= 0) continue;
    it->second.ref_cnt = 0;
    --num_write_pending_;
    ++num_evictable_;
    mark_evictable(k, it->second);
  }
}

CpuOffloadingStats CpuOffloadingManager::take_stats() {
  // manager.py get_stats.
  CpuOffloadingStats s;
  const std::int64_t used =
      num_allocated_ - static_cast<std::int64_t>(free_list_.size()) - num_evictable_;
  s.usage = num_blocks_ > 0 ? static_cast<double>(used) / static_cast<double>(num_blocks_) : 0.0;
  s.write_usage = num_blocks_ > 0
                      ? static_cast<double>(num_write_pending_) / static_cast<double>(num_blocks_)
                      : 0.0;
  s.read_usage = std::max(s.usage - s.write_usage, 0.0);
  s.allocation_sizes.swap(allocation_sizes_);
  allocation_sizes_.clear();
  return s;
}

}  // namespace blis::vllm
