#pragma once
// KVCacheManager (vllm v1/core/kv_cache_manager.py): the scheduler-facing KV-cache API.
// Prefix lookup (get_computed_blocks), slot allocation with admission checks
// (allocate_slots), freeing, caching of full blocks, usage and prefix-cache statistics.

#include <algorithm>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/vllm/kv/block_pool.h"
#include "engine/vllm/kv/single_type_kv_cache_manager.h"
#include "engine/vllm/request.h"

namespace blis::vllm {

// vllm v1/metrics/stats.py PrefixCacheStats: counts for fresh and for resumed (preempted)
// requests, in tokens.
struct PrefixCacheStats {
  std::int64_t requests = 0;
  std::int64_t queries = 0;
  std::int64_t hits = 0;
  std::int64_t preempted_requests = 0;
  std::int64_t preempted_queries = 0;
  std::int64_t preempted_hits = 0;
  bool reset = false;
  void record(std::int64_t num_tokens, std::int64_t num_hits, bool preempted);
};

// The optional arguments of KVCacheManager.allocate_slots (spec §6.5 and §6.11).
struct AllocateSlotsArgs {
  std::int32_t num_new_computed_tokens = 0;           // local prefix-hit tokens
  std::span<const std::int32_t> new_computed_blocks;  // their blocks
  std::int32_t num_lookahead_tokens = 0;              // spec-decode slots (EAGLE, draft model)
  std::int32_t num_external_computed_tokens = 0;      // tokens a KV connector supplies
  bool delay_cache_blocks = false;                    // async KV load: cache when it lands
  bool full_sequence_must_fit = false;                // scheduler_reserve_full_isl
  std::int32_t reserved_blocks = 0;                   // kept free for in-flight async loads
  bool has_scheduled_reqs = true;                     // watermark applies only then
};

struct KVCacheManagerConfig {
  std::int32_t num_gpu_blocks = 0;  // including the null block
  std::int32_t block_size = 16;
  std::int32_t max_model_len = 0;
  bool enable_caching = true;
  double watermark = 0.0;
  bool use_eagle = false;  // KVCacheManager(use_eagle=...): EAGLE/MTP drafting heads
};

class KVCacheManager {
 public:
  explicit KVCacheManager(const KVCacheManagerConfig& cfg);

  // Local prefix hit of a waiting request: hit blocks appended to `hits`, hit tokens
  // returned (whole blocks, at most num_tokens - 1). Does not touch the blocks.
  std::int32_t get_computed_blocks(const Request& r, std::vector<std::int32_t>& hits) const;
  bool prefix_cache_lookup_enabled(const Request& r) const {
    return enable_caching_ && !r.skip_reading_prefix_cache;
  }
  // Counts one admission's lookup (only lookups that led to an admission are counted).
  void record_prefix_cache_stats(const Request& r, std::int32_t num_hits);
  // Allocates slots for num_new_tokens more tokens (plus hits, external tokens and
  // lookahead). Returns false, changing nothing, if the blocks do not fit. On success the
  // newly allocated block ids are appended to `new_blocks` (if given).
  bool allocate_slots(const Request& r, std::int32_t num_new_tokens, const AllocateSlotsArgs& args,
                      std::vector<std::int32_t>* new_blocks);
  void free(const Request& r);
  // vllm kv_cache_manager.py pop_blocks_for_free: the request's blocks (allocation order)
  // appended to `out`, its table dropped, the blocks not yet returned to the pool.
  void pop_blocks_for_free(const Request& r, std::vector<std::int32_t>& out) {
    manager_.pop_blocks_for_free(r.slot, out);
  }
  // Sizes the request's block table for up to max_tokens tokens (no allocation later).
  void reserve(const Request& r, std::int32_t max_tokens) {
    manager_.reserve(r.slot,
                     (std::min(max_tokens, max_model_len_) + block_size_ - 1) / block_size_);
  }
  void cache_blocks(const Request& r, std::int32_t num_tokens);
  bool reset_prefix_cache();

  std::span<const std::int32_t> get_blocks(const Request& r) const {
    return manager_.blocks(r.slot);
  }
  // Without prefix caching vLLM uses KVCacheCoordinatorNoPrefixCache, which reports no
  // common prefix (kv_cache_coordinator.py). The spec did not say so; traces 15 and 16 do.
  std::int32_t get_num_common_prefix_blocks(const Request& r) const {
    return enable_caching_ ? manager_.get_num_common_prefix_blocks(r.slot) : 0;
  }
  // Blocks the request would still need for its full sequence (the reservation used to
  // gate async KV loads: scheduler.py _request_remaining_blocks).
  std::int32_t remaining_blocks(const Request& r) const;

  double usage() const { return pool_.get_usage(); }
  std::int32_t num_free_blocks() const { return pool_.get_num_free_blocks(); }
  std::int32_t block_size() const { return block_size_; }
  bool enable_caching() const { return enable_caching_; }
  std::int32_t watermark_blocks() const { return watermark_blocks_; }

  // Takes this interval's stats and starts a new interval (make_prefix_cache_stats).
  PrefixCacheStats take_prefix_cache_stats();
  const PrefixCacheStats& cumulative_prefix_cache_stats() const { return cumulative_; }

  const BlockPool& block_pool() const { return pool_; }
  BlockPool& block_pool() { return pool_; }
  const FullAttentionManager& single_type_manager() const { return manager_; }

 private:
  std::int32_t block_size_;
  std::int32_t max_model_len_;
  bool enable_caching_;
  bool use_eagle_;
  std::int32_t watermark_blocks_;
  BlockPool pool_;
  FullAttentionManager manager_;
  PrefixCacheStats stats_;
  PrefixCacheStats cumulative_;
};

}  // namespace blis::vllm
