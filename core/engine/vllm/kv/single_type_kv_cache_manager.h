#pragma once
// FullAttentionManager (vllm v1/core/single_type_kv_cache_manager.py): the block table of
// each request for one full-attention KV-cache group, on top of the shared BlockPool. A
// decoder-only model with full attention has exactly one group, so the KV-cache coordinator
// of vLLM (kv_cache_coordinator.py UnitaryKVCacheCoordinator) reduces to this one manager.
// Requests are addressed by their scheduler slot index.

#include <cstdint>
#include <span>
#include <vector>

#include "engine/vllm/kv/block_pool.h"
#include "engine/vllm/request.h"

namespace blis::vllm {

class FullAttentionManager {
 public:
  FullAttentionManager(BlockPool* pool, std::int32_t block_size);

  // Blocks to take from the free pool so the request has slots for `num_tokens` tokens,
  // counting prefix-hit blocks that are free (ref count 0) since touching them removes them
  // from the free queue (get_num_blocks_to_allocate).
  std::int32_t get_num_blocks_to_allocate(std::int32_t slot, std::int32_t num_tokens,
                                          std::span<const std::int32_t> new_computed_blocks) const;
  // Touches the prefix-hit blocks and puts them at the start of the request's table; they
  // count as cached already (add_local_computed_blocks).
  void add_local_computed_blocks(std::int32_t slot, std::span<const std::int32_t> blocks);
  // Fresh blocks for tokens a KV connector will supply (allocate_external_computed_blocks).
  void allocate_external_computed_blocks(std::int32_t slot, std::int32_t num_local_computed,
                                         std::int32_t num_external_computed);
  // Grows the table to ceil(num_tokens / block_size) blocks; new ids appended to `out`.
  void allocate_new_blocks(std::int32_t slot, std::int32_t num_tokens,
                           std::vector<std::int32_t>* out);
  // Caches every block that is full within the first num_tokens tokens (cache_blocks).
  void cache_blocks(const Request& r, std::int32_t num_tokens);
  // Frees the request's blocks, last block first (free).
  void free(std::int32_t slot);
  // Pops the request's table like free, but appends its blocks (allocation order) to `out`
  // instead of returning them to the pool (pop_blocks_for_free).
  void pop_blocks_for_free(std::int32_t slot, std::vector<std::int32_t>& out);
  // Longest run of cached blocks from the start, within max_length tokens
  // (FullAttentionManager.find_longest_cache_hit).
  void find_longest_cache_hit(std::span<const BlockHash> hashes, std::int32_t max_length,
                              std::vector<std::int32_t>& out) const;
  // Leading blocks of this request that every request holding blocks shares
  // (FullAttentionManager.get_num_common_prefix_blocks).
  std::int32_t get_num_common_prefix_blocks(std::int32_t slot) const;

  // Grows the slot's table capacity to `num_blocks`, so later steps never allocate.
  void reserve(std::int32_t slot, std::int32_t num_blocks);
  std::span<const std::int32_t> blocks(std::int32_t slot) const;
  bool has_blocks_entry(std::int32_t slot) const;
  std::int32_t num_requests_with_blocks() const { return num_entries_; }
  // Slots that may hold an entry are [0, slot_capacity()) (for invariant checks).
  std::int32_t slot_capacity() const { return static_cast<std::int32_t>(entries_.size()); }
  std::int32_t num_cached_blocks(std::int32_t slot) const;

 private:
  struct Entry {
    std::vector<std::int32_t> blocks;
    std::int32_t num_cached_block = 0;
    bool live = false;  // present in vLLM's req_to_blocks
  };
  // The live entry of `slot`, created on first access. Inline for the common case (called
  // two or three times per request per step); the rest is entry_slow.
  Entry& entry(std::int32_t slot) {
    if (slot >= 0 && static_cast<std::size_t>(slot) < entries_.size()) {
      Entry& e = entries_[static_cast<std::size_t>(slot)];
      if (e.live) return e;
    }
    return entry_slow(slot);
  }
  Entry& entry_slow(std::int32_t slot);
  const Entry* find(std::int32_t slot) const {
    if (slot < 0 || static_cast<std::size_t>(slot) >= entries_.size()) return nullptr;
    const Entry& e = entries_[static_cast<std::size_t>(slot)];
    return e.live ? &e : nullptr;
  }

  BlockPool* pool_;
  std::int32_t block_size_;
  std::vector<Entry> entries_;  // by slot; vectors keep their capacity across requests
  std::int32_t num_entries_ = 0;
};

}  // namespace blis::vllm
