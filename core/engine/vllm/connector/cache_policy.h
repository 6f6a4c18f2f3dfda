#pragma once
// The CPU offloading manager's cache policies: vllm v1/kv_offload/cpu/policies/base.py
// CachePolicy (block organization and eviction decisions), with lru.py LRUCachePolicy and
// arc.py ARCCachePolicy behind it. The manager (cpu_offloading_manager.h) owns ref-counting
// and the block pool; a policy only keeps the stored chunks and picks the ones to evict.
//
// Keys are looked up in hash maps that are never iterated: every order is a linked list.

#include <cstdint>
#include <list>
#include <memory>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include "engine/vllm/connector/cache_policy_name.h"
#include "engine/vllm/kv/block_hash.h"

namespace blis::vllm {

struct BlockHashHasher {
  std::size_t operator()(const BlockHash& h) const {
    return static_cast<std::size_t>(h.lo ^ (h.hi * 0x9E3779B97F4A7C15ULL));
  }
};

// base.py BlockStatus: ref_cnt -1 while the store is in flight (not ready), 0 idle, > 0 the
// number of loads reading it; block_id is the CPU buffer slot.
struct OffloadBlock {
  std::int32_t ref_cnt = -1;
  std::int64_t block_id = 0;
  bool is_ready() const { return ref_cnt >= 0; }
};

using EvictedBlocks = std::vector<std::pair<BlockHash, OffloadBlock>>;

class CachePolicy {
 public:
  explicit CachePolicy(std::int64_t cache_capacity) : cache_capacity_(cache_capacity) {}
  virtual ~CachePolicy() = default;
  CachePolicy(const CachePolicy&) = delete;
  CachePolicy& operator=(const CachePolicy&) = delete;

  // The stored block, or nullptr (stable until the key is removed or evicted).
  virtual OffloadBlock* get(const BlockHash& key) = 0;
  const OffloadBlock* find(const BlockHash& key) const {
    return const_cast<CachePolicy*>(this)->get(key);
  }
  // A newly allocated block (the key is not stored).
  virtual void insert(const BlockHash& key, const OffloadBlock& block) = 0;
  // A stored block dropped after a failed store.
  virtual void remove(const BlockHash& key) = 0;
  virtual void touch(std::span<const BlockHash> keys) = 0;
  // Exactly n idle blocks, none of them in `protected_keys`, into `out` (cleared), removed
  // from the policy; false, changing nothing, when there are not n of them.
  virtual bool evict(std::int64_t n, std::span<const BlockHash> protected_keys,
                     EvictedBlocks& out) = 0;
  virtual void clear() = 0;
  // The block's ref_cnt went to 0 / left 0.
  virtual void mark_evictable(const BlockHash& key) { (void)key; }
  virtual void mark_non_evictable(const BlockHash& key) { (void)key; }
  virtual std::size_t size() const = 0;

  std::int64_t cache_capacity() const { return cache_capacity_; }

 private:
  std::int64_t cache_capacity_;
};

// lru.py LRUCachePolicy: the idle blocks in an LRU list; eviction takes them from its front.
class LruCachePolicy final : public CachePolicy {
 public:
  using CachePolicy::CachePolicy;
  OffloadBlock* get(const BlockHash& key) override;
  void insert(const BlockHash& key, const OffloadBlock& block) override;
  void remove(const BlockHash& key) override;
  void touch(std::span<const BlockHash> keys) override;
  bool evict(std::int64_t n, std::span<const BlockHash> protected_keys,
             EvictedBlocks& out) override;
  void clear() override;
  void mark_evictable(const BlockHash& key) override;
  void mark_non_evictable(const BlockHash& key) override;
  std::size_t size() const override { return blocks_.size(); }

  // The evictable keys, LRU first (for tests).
  std::vector<BlockHash> evictable_order() const { return {lru_.begin(), lru_.end()}; }

 private:
  struct Entry {
    OffloadBlock block;
    bool evictable = false;  // in lru_
    std::list<BlockHash>::iterator lru;
  };
  std::list<BlockHash> lru_;  // evictable_blocks: front = least recently used
  std::unordered_map<BlockHash, Entry, BlockHashHasher> blocks_;
  std::vector<std::list<BlockHash>::iterator> scratch_;
};

// arc.py ARCCachePolicy: T1 (seen once) and T2 (seen again) hold the blocks, the ghost lists
// B1 / B2 the keys recently evicted from them, and target_t1_size adapts to ghost hits.
class ArcCachePolicy final : public CachePolicy {
 public:
  using CachePolicy::CachePolicy;
  OffloadBlock* get(const BlockHash& key) override;
  void insert(const BlockHash& key, const OffloadBlock& block) override;
  void remove(const BlockHash& key) override;
  void touch(std::span<const BlockHash> keys) override;
  bool evict(std::int64_t n, std::span<const BlockHash> protected_keys,
             EvictedBlocks& out) override;
  void clear() override;
  std::size_t size() const override { return blocks_.size(); }

  // The lists in order, LRU first, and the adaptive target (for tests).
  double target_t1_size() const { return target_t1_size_; }
  std::vector<BlockHash> t1() const { return {t1_.begin(), t1_.end()}; }
  std::vector<BlockHash> t2() const { return {t2_.begin(), t2_.end()}; }
  std::vector<BlockHash> b1() const { return {b1_.begin(), b1_.end()}; }
  std::vector<BlockHash> b2() const { return {b2_.begin(), b2_.end()}; }

 private:
  struct Entry {
    OffloadBlock block;
    bool in_t2 = false;
    std::list<BlockHash>::iterator pos;
  };
  using Positions = std::unordered_map<BlockHash, std::list<BlockHash>::iterator, BlockHashHasher>;
  static void ghost_pop(std::list<BlockHash>& list, Positions& pos, const BlockHash& key);

  double target_t1_size_ = 0.0;
  std::list<BlockHash> t1_, t2_, b1_, b2_;  // OrderedDicts: front = LRU, back = MRU
  std::unordered_map<BlockHash, Entry, BlockHashHasher> blocks_;  // T1 and T2
  Positions b1_pos_, b2_pos_;                                     // B1 and B2
  struct Candidate {
    std::list<BlockHash>::iterator pos;
    bool from_t1;
  };
  std::vector<Candidate> scratch_;
};

// factory.py CachePolicyFactory.get_cache_policy_cls(name)(cache_capacity=num_blocks).
std::unique_ptr<CachePolicy> make_cache_policy(CachePolicyKind kind, std::int64_t cache_capacity);

}  // namespace blis::vllm
