#include "engine/vllm/connector/cpu_offloading_manager.h"

#include <algorithm>
#include <stdexcept>

namespace blis::vllm {

CpuOffloadingManager::CpuOffloadingManager(std::int64_t num_blocks,
                                           const CpuOffloadingOptions& opts)
    : num_blocks_(num_blocks),
      // manager.py __init__: policy_cls(cache_capacity=num_blocks).
      policy_(make_cache_policy(opts.cache_policy, num_blocks)),
      store_threshold_(opts.store_threshold),
      max_tracker_size_(opts.max_tracker_size),
      // `counts` exists only with store_threshold >= 2.
      counting_(opts.store_threshold >= 2) {
  if (counting_ && max_tracker_size_ < 1)
    throw std::invalid_argument("offloading: max_tracker_size must be at least 1");
}

LookupResult CpuOffloadingManager::lookup(const BlockHash& key) {
  // manager.py lookup: with store_threshold >= 2 every lookup counts the key (most recently
  // looked up at the end; a new key beyond max_tracker_size drops the oldest one).
  if (counting_) {
    const auto c = counts_.find(key);
    if (c != counts_.end()) {
      count_order_.splice(count_order_.end(), count_order_, c->second.pos);
      ++c->second.n;
    } else {
      if (static_cast<std::int64_t>(counts_.size()) >= max_tracker_size_) {
        counts_.erase(count_order_.front());
        count_order_.pop_front();
      }
      counts_.emplace(key, Count{1, count_order_.insert(count_order_.end(), key)});
    }
  }
  const OffloadBlock* b = policy_->get(key);
  if (b == nullptr) return LookupResult::kMiss;
  return b->is_ready() ? LookupResult::kHit : LookupResult::kHitPending;
}

std::int64_t CpuOffloadingManager::lookup_count(const BlockHash& key) const {
  const auto c = counts_.find(key);
  return c == counts_.end() ? 0 : c->second.n;
}

std::vector<std::pair<BlockHash, std::int64_t>> CpuOffloadingManager::lookup_counts() const {
  std::vector<std::pair<BlockHash, std::int64_t>> out;
  for (const BlockHash& k : count_order_) out.emplace_back(k, counts_.at(k).n);
  return out;
}

void CpuOffloadingManager::prepare_load(std::span<const BlockHash> keys) {
  // manager.py prepare_load: every key is stored and ready; ref_cnt 0 -> 1 leaves the
  // evictable set.
  for (const BlockHash& k : keys) {
    OffloadBlock* b = policy_->get(k);
    if (b == nullptr || !b->is_ready())
      throw std::logic_error("prepare_load: chunk not stored or not ready");
    if (b->ref_cnt == 0) {
      policy_->mark_non_evictable(k);
      --num_evictable_;
    }
    ++b->ref_cnt;
  }
}

void CpuOffloadingManager::touch(std::span<const BlockHash> keys) {
  policy_->touch(keys);  // manager.py touch
}

void CpuOffloadingManager::complete_load(std::span<const BlockHash> keys) {
  // manager.py complete_load: ref_cnt 1 -> 0 makes the chunk evictable.
  for (const BlockHash& k : keys) {
    OffloadBlock* b = policy_->get(k);
    if (b == nullptr || b->ref_cnt <= 0) throw std::logic_error("complete_load: chunk not pinned");
    if (--b->ref_cnt == 0) {
      ++num_evictable_;
      policy_->mark_evictable(k);
    }
  }
}

bool CpuOffloadingManager::prepare_store(std::span<const BlockHash> keys,
                                         std::vector<BlockHash>& to_store) {
  // manager.py prepare_store.
  to_store.clear();
  evicted_.clear();
  if (counting_) {
    // Only the keys looked up at least store_threshold times; the rest count as skipped.
    // The filtered list is also what eviction protects below (`keys` is rebound).
    eligible_.clear();
    for (const BlockHash& k : keys) {
      if (lookup_count(k) >= store_threshold_) eligible_.push_back(k);
    }
    stores_skipped_ += static_cast<std::int64_t>(keys.size() - eligible_.size());
    keys = eligible_;
  }
  for (const BlockHash& k : keys) {
    if (policy_->get(k) == nullptr) to_store.push_back(k);  // not stored yet
  }
  if (to_store.empty()) return true;
  allocation_sizes_.push_back(static_cast<std::int32_t>(to_store.size()));
  const std::int64_t num_to_evict = static_cast<std::int64_t>(to_store.size()) - num_free_blocks();
  if (num_to_evict > 0) {
    // Fails at once when there are too few idle chunks, else when the policy cannot find
    // enough of them outside the input keys (atomic: nothing changes).
    if (num_to_evict > num_evictable_ || !policy_->evict(num_to_evict, keys, evicted_)) {
      to_store.clear();
      return false;
    }
    num_evictable_ -= static_cast<std::int64_t>(evicted_.size());
    for (const auto& e : evicted_) {
      free_list_.push_back(e.second.block_id);  // _free_block
      ++evictions_;
    }
  }
  // _allocate_blocks: fresh CPU blocks first, then reused ones from the free list; each is
  // inserted not ready (ref_cnt -1), so not evictable until its store completes.
  for (const BlockHash& k : to_store) {
    OffloadBlock b;
    if (num_allocated_ < num_blocks_) {
      b.block_id = num_allocated_++;
    } else {
      b.block_id = free_list_.back();
      free_list_.pop_back();
    }
    policy_->insert(k, b);
  }
  num_write_pending_ += static_cast<std::int64_t>(to_store.size());
  return true;
}

void CpuOffloadingManager::complete_store(std::span<const BlockHash> keys) {
  // manager.py complete_store (success): the chunk becomes ready and idle.
  for (const BlockHash& k : keys) {
    OffloadBlock* b = policy_->get(k);
    if (b == nullptr || b->is_ready()) continue;
    b->ref_cnt = 0;
    --num_write_pending_;
    ++num_evictable_;
    policy_->mark_evictable(k);
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
  if (store_threshold_ >= 2) {
    // increase_counter(STORES_SKIPPED, ...) every call, then the batch count restarts.
    s.has_stores_skipped = true;
    s.stores_skipped = stores_skipped_;
    stores_skipped_ = 0;
  }
  return s;
}

}  // namespace blis::vllm
