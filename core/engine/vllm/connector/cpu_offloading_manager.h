#pragma once
// The CPU tier of the OffloadingConnector: vllm v1/kv_offload/cpu/manager.py
// CPUOffloadingManager with the LRU policy of cpu/policies/lru.py LRUCachePolicy.
//
// A chunk (one offloaded block, keyed by the hash of its last GPU block) is "not ready"
// (ref_cnt -1) while its store is in flight, then idle (0) and evictable, or pinned by
// loads (> 0). Only idle chunks are in the LRU list; eviction takes them from its front.

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/vllm/kv/block_hash.h"

namespace blis::vllm {

enum class LookupResult : std::uint8_t { kMiss, kHitPending, kHit };

// What get_stats reports once per step (manager.py get_stats).
struct CpuOffloadingStats {
  double usage = 0;        // kv_offload cpu cache usage (allocated - free - idle) / blocks
  double write_usage = 0;  // stores in flight / blocks
  double read_usage = 0;   // usage - write_usage, at least 0
  std::vector<std::int32_t> allocation_sizes;  // one per prepare_store that had new chunks
};

class CpuOffloadingManager {
 public:
  explicit CpuOffloadingManager(std::int64_t num_blocks) : num_blocks_(num_blocks) {}

  LookupResult lookup(const BlockHash& key) const;
  void prepare_load(std::span<const BlockHash> keys);   // pins (ready chunks only)
  void touch(std::span<const BlockHash> keys);          // most recently used
  void complete_load(std::span<const BlockHash> keys);  // unpins
  // Of `keys`, the chunks not yet stored go to `to_store` and get a CPU block, evicting
  // idle chunks (never one of `keys`) from the LRU front. Returns false (None upstream),
  // changing nothing but the allocation-size record, if there is not room for all of them.
  bool prepare_store(std::span<const BlockHash> keys, std::vector<BlockHash>& to_store);
  void complete_store(std::span<const BlockHash> keys);
  // Takes this step's stats (the allocation sizes restart empty).
  CpuOffloadingStats take_stats();

  std::int64_t num_blocks() const { return num_blocks_; }
  std::int64_t num_stored() const { return static_cast<std::int64_t>(blocks_.size()); }
  std::uint64_t evictions() const { return evictions_; }
  bool contains(const BlockHash& key) const { return blocks_.count(key) != 0; }

 private:
  struct Hasher {
    std::size_t operator()(const BlockHash& h) const {
      return static_cast<std::size_t>(h.lo ^ (h.hi * 0x9E3779B97F4A7C15ULL));
    }
  };
  struct Block {
    std::int32_t ref_cnt = -1;  // -1: store in flight (not ready)
    std::int64_t block_id = 0;  // CPU buffer slot
    bool evictable = false;     // in lru_
    std::list<BlockHash>::iterator lru;
  };
  void mark_evictable(const BlockHash& key, Block& b);
  void mark_non_evictable(Block& b);
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
  std::list<BlockHash> lru_;                             // idle chunks, front = LRU
  std::unordered_map<BlockHash, Block, Hasher> blocks_;  // looked up, never iterated
  std::vector<std::list<BlockHash>::iterator> scratch_;
};

}  // namespace blis::vllm
