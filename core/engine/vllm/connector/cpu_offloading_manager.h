#pragma once
// The CPU tier of the OffloadingConnector: vllm v1/kv_offload/cpu/manager.py
// CPUOffloadingManager with a cache policy picked by name (cache_policy.h: lru.py
// LRUCachePolicy or arc.py ARCCachePolicy) and the store_threshold lookup counter.
//
// A chunk (one offloaded block, keyed by the hash of its last GPU block) is "not ready"
// (ref_cnt -1) while its store is in flight, then idle (0) and evictable, or pinned by
// loads (> 0). The policy keeps the chunks and picks the idle ones to evict.

#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/vllm/connector/cache_policy.h"
#include "engine/vllm/kv/block_hash.h"

namespace blis::vllm {

enum class LookupResult : std::uint8_t { kMiss, kHitPending, kHit };

// What get_stats reports once per step (manager.py get_stats).
struct CpuOffloadingStats {
  double usage = 0;        // kv_offload cpu cache usage (allocated - free - idle) / blocks
  double write_usage = 0;  // stores in flight / blocks
  double read_usage = 0;   // usage - write_usage, at least 0
  std::vector<std::int32_t> allocation_sizes;  // one per prepare_store that had new chunks
  // vllm:kv_offload_stores_skipped since the last take; set only with store_threshold >= 2.
  bool has_stores_skipped = false;
  std::int64_t stores_skipped = 0;
};

// CPUOffloadingSpec.get_manager's arguments (kv_offload/cpu/spec.py, kv_connector_extra_config).
struct CpuOffloadingOptions {
  CachePolicyKind cache_policy = CachePolicyKind::kLru;  // eviction_policy, default "lru"
  // store_threshold (default 0): with 2 or more, a chunk is stored only once lookup() saw
  // its key that many times; max_tracker_size bounds the lookup counter (default 64000).
  std::int64_t store_threshold = 0;
  std::int64_t max_tracker_size = 64000;
};

class CpuOffloadingManager {
 public:
  explicit CpuOffloadingManager(std::int64_t num_blocks, const CpuOffloadingOptions& opts = {});

  LookupResult lookup(const BlockHash& key);            // counts the key (store_threshold)
  void prepare_load(std::span<const BlockHash> keys);   // pins (ready chunks only)
  void touch(std::span<const BlockHash> keys);          // the policy's touch
  void complete_load(std::span<const BlockHash> keys);  // unpins
  // Of `keys` (those looked up store_threshold times, with the threshold), the chunks not yet
  // stored go to `to_store` and get a CPU block, evicting idle chunks (never one of those
  // keys) as the policy picks them. Returns false (None upstream), changing nothing but the
  // allocation-size record and the skipped count, if there is not room for all of them.
  bool prepare_store(std::span<const BlockHash> keys, std::vector<BlockHash>& to_store);
  void complete_store(std::span<const BlockHash> keys);
  // Takes this step's stats (the allocation sizes and the skipped count restart).
  CpuOffloadingStats take_stats();

  std::int64_t num_blocks() const { return num_blocks_; }
  std::int64_t num_stored() const { return static_cast<std::int64_t>(policy_->size()); }
  std::uint64_t evictions() const { return evictions_; }
  bool contains(const BlockHash& key) const { return policy_->find(key) != nullptr; }
  const CachePolicy& policy() const { return *policy_; }
  std::int64_t store_threshold() const { return store_threshold_; }
  // The lookup count of a key (0 when not tracked).
  std::int64_t lookup_count(const BlockHash& key) const;
  // The tracked keys, least recently looked up first, with their counts (for tests).
  std::vector<std::pair<BlockHash, std::int64_t>> lookup_counts() const;
  // The chunks the last prepare_store evicted, in eviction order (its evicted_keys).
  const EvictedBlocks& last_evicted() const { return evicted_; }

 private:
  std::int64_t num_free_blocks() const {
    return static_cast<std::int64_t>(free_list_.size()) + num_blocks_ - num_allocated_;
  }

  std::int64_t num_blocks_;
  std::int64_t num_allocated_ = 0;
  std::vector<std::int64_t> free_list_;  // a stack (pop from the back)
  std::int64_t num_evictable_ = 0;
  std::int64_t num_write_pending_ = 0;
  std::uint64_t evictions_ = 0;
  std::vector<std::int32_t> allocation_sizes_;
  std::unique_ptr<CachePolicy> policy_;
  // store_threshold >= 2: manager.py `counts`, an OrderedDict of lookup counts (front = the
  // least recently looked up, dropped first once max_tracker_size keys are tracked).
  std::int64_t store_threshold_;
  std::int64_t max_tracker_size_;
  bool counting_;
  std::int64_t stores_skipped_ = 0;
  struct Count {
    std::int64_t n = 0;
    std::list<BlockHash>::iterator pos;
  };
  std::list<BlockHash> count_order_;
  std::unordered_map<BlockHash, Count, BlockHashHasher> counts_;
  std::vector<BlockHash> eligible_;
  EvictedBlocks evicted_;
};

}  // namespace blis::vllm
