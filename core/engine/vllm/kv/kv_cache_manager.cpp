#include "engine/vllm/kv/kv_cache_manager.h"

#include <algorithm>
#include <stdexcept>

namespace blis::vllm {

void PrefixCacheStats::record(std::int64_t num_tokens, std::int64_t num_hits, bool preempted) {
  // vllm v1/metrics/stats.py PrefixCacheStats.record.
  if (preempted) {
    ++preempted_requests;
    preempted_queries += num_tokens;
    preempted_hits += num_hits;
  } else {
    ++requests;
    queries += num_tokens;
    hits += num_hits;
  }
}

KVCacheManager::KVCacheManager(const KVCacheManagerConfig& cfg)
    : block_size_(cfg.block_size),
      max_model_len_(cfg.max_model_len),
      enable_caching_(cfg.enable_caching),
      use_eagle_(cfg.use_eagle),
      // vllm kv_cache_manager.py KVCacheManager.__init__: int(watermark * num_blocks).
      watermark_blocks_(static_cast<std::int32_t>(cfg.watermark * cfg.num_gpu_blocks)),
      pool_(cfg.num_gpu_blocks, cfg.enable_caching),
      manager_(&pool_, cfg.block_size) {
  if (cfg.block_size < 1) throw std::invalid_argument("KVCacheManager: block_size must be >= 1");
  if (cfg.max_model_len < 1)
    throw std::invalid_argument("KVCacheManager: max_model_len must be >= 1");
}

std::int32_t KVCacheManager::get_computed_blocks(const Request& r,
                                                 std::vector<std::int32_t>& hits) const {
  // vllm kv_cache_manager.py KVCacheManager.get_computed_blocks.
  if (!prefix_cache_lookup_enabled(r)) return 0;
  // At least one token must be computed to get logits, so a fully cached prompt recomputes
  // its last token; hits come in whole blocks, so the whole last block is recomputed
  // (FORMAT.md difference 3).
  const std::int32_t max_cache_hit_length = r.num_tokens() - 1;
  const std::size_t before = hits.size();
  manager_.find_longest_cache_hit(r.block_hashes, max_cache_hit_length, hits);
  // vllm single_type_kv_cache_manager.py FullAttentionManager.find_longest_cache_hit: with
  // EAGLE the last matched block is dropped, so its hidden states are recomputed for the
  // drafting head.
  if (use_eagle_ && hits.size() > before) hits.pop_back();
  return static_cast<std::int32_t>(hits.size() - before) * block_size_;
}

void KVCacheManager::record_prefix_cache_stats(const Request& r, std::int32_t num_hits) {
  // vllm kv_cache_manager.py KVCacheManager.record_prefix_cache_stats: a request that
  // skipped the lookup is not counted; num_tokens is the whole current sequence.
  if (!prefix_cache_lookup_enabled(r)) return;
  const bool preempted = r.num_preemptions > 0;
  stats_.record(r.num_tokens(), num_hits, preempted);
  cumulative_.record(r.num_tokens(), num_hits, preempted);
}

PrefixCacheStats KVCacheManager::take_prefix_cache_stats() {
  PrefixCacheStats s = stats_;
  stats_ = PrefixCacheStats{};
  return s;
}

bool KVCacheManager::allocate_slots(const Request& r, std::int32_t num_new_tokens,
                                    const AllocateSlotsArgs& args,
                                    std::vector<std::int32_t>* new_blocks) {
  // vllm kv_cache_manager.py KVCacheManager.allocate_slots (target commit, with the
  // watermark / full-sequence admission gate of spec §6.11, FORMAT.md difference 5).
  if (num_new_tokens == 0 && args.num_external_computed_tokens == 0) {
    throw std::logic_error("allocate_slots: num_new_tokens must be > 0 without external tokens");
  }
  const std::int32_t num_local_computed = r.num_computed_tokens + args.num_new_computed_tokens;
  const std::int32_t total_computed =
      std::min(num_local_computed + args.num_external_computed_tokens, max_model_len_);

  // The watermark applies to waiting/preempted requests only, and only when some request
  // is already running this step.
  std::int32_t watermark = 0;
  if (args.has_scheduled_reqs &&
      (r.status == RequestStatus::kWaiting || r.status == RequestStatus::kPreempted)) {
    watermark = watermark_blocks_;
  }
  const std::int32_t free_blocks = pool_.get_num_free_blocks();

  if (args.full_sequence_must_fit) {
    // First fail if the whole current sequence (not just this chunk) would not fit.
    const std::int32_t full_num_tokens = std::min(r.num_tokens(), max_model_len_);
    const std::int32_t need =
        manager_.get_num_blocks_to_allocate(r.slot, full_num_tokens, args.new_computed_blocks);
    if (need + watermark > free_blocks) return false;
  }

  const std::int32_t num_tokens_main_model = total_computed + num_new_tokens;
  const std::int32_t num_tokens_need_slot =
      std::min(num_tokens_main_model + args.num_lookahead_tokens, max_model_len_);
  const std::int32_t need =
      manager_.get_num_blocks_to_allocate(r.slot, num_tokens_need_slot, args.new_computed_blocks);
  if (need + watermark > free_blocks - args.reserved_blocks) return false;

  if (!args.new_computed_blocks.empty() || args.num_external_computed_tokens > 0) {
    // Append the hits first so a failure to get new blocks cannot evict them
    // (coordinator.allocate_new_computed_blocks).
    manager_.add_local_computed_blocks(r.slot, args.new_computed_blocks);
    manager_.allocate_external_computed_blocks(r.slot, num_local_computed,
                                               args.num_external_computed_tokens);
  }
  manager_.allocate_new_blocks(r.slot, num_tokens_need_slot, new_blocks);

  // Cache every block that is full of real tokens once this step runs, capped at
  // num_tokens so draft tokens are never cached (FORMAT.md difference 4: hits are possible
  // within the same step). P/D async loads cache later.
  if (!enable_caching_ || args.delay_cache_blocks) return true;
  const std::int32_t num_tokens_to_cache =
      std::min(total_computed + num_new_tokens, r.num_tokens());
  manager_.cache_blocks(r, num_tokens_to_cache);
  return true;
}

void KVCacheManager::free(const Request& r) {
  // vllm kv_cache_manager.py KVCacheManager.free: reverse order, tail blocks evicted first.
  manager_.free(r.slot);
}

void KVCacheManager::cache_blocks(const Request& r, std::int32_t num_tokens) {
  if (!enable_caching_) return;
  manager_.cache_blocks(r, num_tokens);
}

bool KVCacheManager::reset_prefix_cache() {
  // vllm kv_cache_manager.py KVCacheManager.reset_prefix_cache.
  if (!pool_.reset_prefix_cache()) return false;
  stats_.reset = true;
  return true;
}

std::int32_t KVCacheManager::remaining_blocks(const Request& r) const {
  // vllm scheduler.py Scheduler._request_remaining_blocks.
  const std::int32_t full = std::min(r.num_tokens(), max_model_len_);
  return manager_.get_num_blocks_to_allocate(r.slot, full, {});
}

}  // namespace blis::vllm
