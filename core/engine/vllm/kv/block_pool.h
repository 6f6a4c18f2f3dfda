#pragma once
// BlockPool (vllm v1/core/block_pool.py): owns every KV block, the free queue and the prefix
// cache's hash index. Allocates blocks (evicting the hash of a cached block it reuses),
// caches full blocks, looks cached blocks up, touches hits and frees blocks in eviction order.
// Block 0 is the null block: never allocated, freed or counted (FORMAT.md difference 1).

#include <cstdint>
#include <span>
#include <vector>

#include "engine/kv_events.h"
#include "engine/vllm/kv/block_hash_index.h"
#include "engine/vllm/kv/free_block_queue.h"
#include "engine/vllm/kv/kv_cache_block.h"

namespace blis::vllm {

class BlockPool {
 public:
  BlockPool(std::int32_t num_gpu_blocks, bool enable_caching);
  BlockPool(const BlockPool&) = delete;
  BlockPool& operator=(const BlockPool&) = delete;

  std::int32_t num_gpu_blocks() const { return num_gpu_blocks_; }
  bool enable_caching() const { return enable_caching_; }
  const KVCacheBlock& block(std::int32_t id) const { return blocks_[static_cast<std::size_t>(id)]; }
  std::int32_t null_block() const { return 0; }

  // The oldest cached block with this hash, or kNoBlock.
  std::int32_t get_cached_block(const BlockHash& hash) const { return index_.get_one_block(hash); }
  // Gives blocks[num_cached..num_full) the hashes hashes[num_cached..num_full) and indexes
  // them. Null blocks and blocks that already carry a hash are left alone.
  void cache_full_blocks(std::span<const BlockHash> hashes, std::span<const std::int32_t> blocks,
                         std::int32_t num_cached, std::int32_t num_full);
  // Pops n blocks from the head of the free queue into `out` (appended), dropping the hash
  // of any cached block being reused; each gets ref_cnt 1. Requires n <= free blocks.
  void get_new_blocks(std::int32_t n, std::vector<std::int32_t>& out);
  // A prefix-cache hit: takes free blocks out of the queue and increments every ref count.
  void touch(std::span<const std::int32_t> blocks);
  // Decrements ref counts; blocks reaching 0 return to the free queue, `ordered` giving the
  // eviction order (first = evicted first). With caching on, blocks without a hash go to the
  // FRONT and hashed blocks to the tail; with caching off all go to the tail.
  void free_blocks(std::span<const std::int32_t> ordered);
  // Same, walking `blocks` from the last element to the first (a request's free).
  void free_blocks_reversed(std::span<const std::int32_t> blocks);
  // Drops the cached hash of the given blocks (KV-load failure); ref counts are unchanged.
  void evict_blocks(std::span<const std::int32_t> blocks);
  // Clears the whole prefix cache; only possible when no block is in use.
  bool reset_prefix_cache();

  std::int32_t get_num_free_blocks() const { return free_queue_.num_free_blocks(); }
  // 1 - free / (num_gpu_blocks - 1): the null block is not counted (block_pool.py get_usage).
  double get_usage() const;

  // KV events (engine/kv_events.h) go to `l` (nullptr: none); observation only.
  void set_event_listener(engine::KvEventListener* l) { events_ = l; }

  // For tests and invariant checks.
  const FreeBlockQueue& free_queue() const { return free_queue_; }
  const BlockHashIndex& hash_index() const { return index_; }

 private:
  bool maybe_evict_cached_block(std::int32_t id);
  void release(std::int32_t id);  // one ref-count decrement of free_blocks
  void requeue_released();
  KVCacheBlock& blk(std::int32_t id) { return blocks_[static_cast<std::size_t>(id)]; }

  std::int32_t num_gpu_blocks_;
  bool enable_caching_;
  std::vector<KVCacheBlock> blocks_;  // block i at index i
  FreeBlockQueue free_queue_;
  BlockHashIndex index_;
  std::vector<std::int32_t> scratch_hashed_;
  std::vector<std::int32_t> scratch_unhashed_;
  engine::KvEventListener* events_ = nullptr;
};

}  // namespace blis::vllm
