#include "engine/invariants.h"

#include <algorithm>
#include <vector>

namespace blis::vllm::testing {
namespace {

std::string str(std::int64_t v) {
  return std::to_string(v);
}

}  // namespace

std::string check_kv_invariants(const KVCacheManager& kv) {
  const BlockPool& pool = kv.block_pool();
  const FullAttentionManager& mgr = kv.single_type_manager();
  const std::int32_t n = pool.num_gpu_blocks();
  std::vector<std::int32_t> holders(static_cast<std::size_t>(n), 0);
  std::int32_t entries = 0;
  for (std::int32_t s = 0; s < mgr.slot_capacity(); ++s) {
    if (!mgr.has_blocks_entry(s)) continue;
    ++entries;
    for (const std::int32_t b : mgr.blocks(s)) {
      if (b <= 0 || b >= n) return "request slot " + str(s) + " holds invalid block " + str(b);
      ++holders[static_cast<std::size_t>(b)];
    }
  }
  if (entries != mgr.num_requests_with_blocks()) return "block-table entry count mismatch";
  if (!pool.block(0).is_null || pool.free_queue().contains(0))
    return "block 0 must be the null block";
  std::int32_t free_count = 0;
  std::int32_t used = 0;
  std::int32_t hashed = 0;
  for (std::int32_t b = 1; b < n; ++b) {
    const KVCacheBlock& blk = pool.block(b);
    if (blk.ref_cnt != holders[static_cast<std::size_t>(b)]) {
      return "block " + str(b) + " ref_cnt " + str(blk.ref_cnt) + " but " +
             str(holders[static_cast<std::size_t>(b)]) + " holders";
    }
    const bool in_queue = pool.free_queue().contains(b);
    if (in_queue != (blk.ref_cnt == 0))
      return "block " + str(b) + " is both free and referenced (or neither)";
    free_count += in_queue ? 1 : 0;
    used += blk.ref_cnt > 0 ? 1 : 0;
    if (blk.has_hash) {
      ++hashed;
      if (!kv.enable_caching()) return "block " + str(b) + " has a hash with caching off";
      // The block is on the chain of its hash.
      bool found = false;
      for (std::int32_t c = pool.get_cached_block(blk.block_hash); c != kNoBlock;
           c = pool.block(c).hash_next) {
        if (pool.block(c).block_hash != blk.block_hash)
          return "hash chain of block " + str(b) + " mixes hashes";
        if (c == b) found = true;
      }
      if (!found) return "block " + str(b) + " has a hash the index does not map to it";
    }
  }
  if (free_count + used != n - 1) return "free + in use != total";
  if (free_count != pool.get_num_free_blocks()) {
    return "free count " + str(pool.get_num_free_blocks()) + " but " + str(free_count) +
           " blocks free";
  }
  if (static_cast<std::int32_t>(pool.free_queue().all_free_blocks().size()) != free_count) {
    return "free queue length disagrees with the free count";
  }
  if (hashed != pool.hash_index().num_entries()) return "hash index holds blocks that have no hash";
  return "";
}

std::string check_scheduler_invariants(const Scheduler& s) {
  std::string kv = check_kv_invariants(s.kv_cache_manager());
  if (!kv.empty()) return kv;
  const VllmConfig& cfg = s.config();
  const FullAttentionManager& mgr = s.kv_cache_manager().single_type_manager();
  if (s.num_running() > cfg.max_num_seqs) return "more running requests than max_num_seqs";
  std::vector<std::int32_t> seen;
  for (const std::int32_t i : s.running()) {
    const Request& r = s.slot(i);
    if (r.status != RequestStatus::kRunning)
      return "running list holds " + r.request_id + " not RUNNING";
    const std::int32_t held = static_cast<std::int32_t>(mgr.blocks(i).size());
    const std::int32_t real = r.num_computed_tokens - r.num_output_placeholders;
    if (static_cast<std::int64_t>(held) * cfg.block_size <
        std::min(r.num_computed_tokens, cfg.max_model_len)) {
      return r.request_id + " holds " + str(held) + " blocks for " + str(r.num_computed_tokens) +
             " computed tokens";
    }
    // Scheduled draft tokens count as computed until their output arrives.
    if (real > r.num_tokens() + cfg.num_speculative_tokens) {
      return r.request_id + " computed more real tokens than it has";
    }
    seen.push_back(i);
  }
  for (const RequestQueue* q : {&s.waiting_queue(), &s.skipped_waiting_queue()}) {
    for (const std::int32_t i : q->in_order()) {
      const Request& r = s.slot(i);
      const bool loading = r.status == RequestStatus::kWaitingForRemoteKvs;
      if (r.status != RequestStatus::kWaiting && r.status != RequestStatus::kPreempted &&
          !loading) {
        return "waiting queue holds " + r.request_id + " in a non-waiting status";
      }
      // A request waiting for an async KV load already holds the blocks it loads into.
      if (mgr.has_blocks_entry(i) && !loading)
        return "waiting request " + r.request_id + " holds blocks";
      if (r.num_output_placeholders != 0)
        return "waiting request " + r.request_id + " has placeholders";
      seen.push_back(i);
    }
  }
  std::sort(seen.begin(), seen.end());
  if (std::adjacent_find(seen.begin(), seen.end()) != seen.end())
    return "a request is in two queues";
  for (const std::int32_t i : seen) {
    const Request& r = s.slot(i);
    if (r.num_output_placeholders < 0 || r.num_stale_output_tokens < 0 ||
        r.num_in_flight_tokens < 0) {
      return r.request_id + " has a negative counter";
    }
    if (r.num_output_tokens() > r.max_tokens)
      return r.request_id + " has more outputs than max_tokens";
    if (r.num_tokens() > cfg.max_model_len) return r.request_id + " is longer than max_model_len";
  }
  return "";
}

}  // namespace blis::vllm::testing
