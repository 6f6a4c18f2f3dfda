#pragma once
// Helpers for KV-cache tests: requests with given tokens, and the scheduler's admission
// sequence (get_computed_blocks then allocate_slots) without a scheduler.

#include <numeric>
#include <vector>

#include "engine/vllm/kv/kv_cache_manager.h"
#include "engine/vllm/request.h"

namespace blis::vllm::testing {

inline std::vector<std::int32_t> iota_tokens(std::int32_t n, std::int32_t first = 100) {
  std::vector<std::int32_t> t(static_cast<std::size_t>(n));
  std::iota(t.begin(), t.end(), first);
  return t;
}

inline Request make_request(std::int32_t slot, std::vector<std::int32_t> tokens,
                            std::int32_t block_size, bool hashes = true) {
  Request r;
  r.slot = slot;
  r.request_id = "r";
  r.request_id += std::to_string(slot);
  r.key = static_cast<engine::RequestKey>(slot);
  set_token_ids(r, std::move(tokens));
  r.num_prompt_tokens = r.num_tokens();
  r.max_tokens = 1000;
  if (hashes) update_block_hashes(r, block_size);
  return r;
}

struct Admission {
  bool ok = false;
  std::int32_t hit_tokens = 0;
  std::int32_t scheduled = 0;
  std::vector<std::int32_t> hits;
};

// Admits a WAITING request for up to `budget` tokens (all remaining if budget <= 0).
inline Admission admit(KVCacheManager& kv, Request& r, std::int32_t budget = 0,
                       AllocateSlotsArgs args = {}) {
  Admission a;
  a.hit_tokens = kv.get_computed_blocks(r, a.hits);
  std::int32_t n = r.num_tokens() - a.hit_tokens;
  if (budget > 0) n = std::min(n, budget);
  args.num_new_computed_tokens = a.hit_tokens;
  args.new_computed_blocks = a.hits;
  a.ok = kv.allocate_slots(r, n, args, nullptr);
  if (!a.ok) return a;
  kv.record_prefix_cache_stats(r, a.hit_tokens);
  r.status = RequestStatus::kRunning;
  r.num_computed_tokens = a.hit_tokens + n;
  a.scheduled = n;
  return a;
}

inline std::vector<std::int32_t> blocks_of(const KVCacheManager& kv, const Request& r) {
  const auto b = kv.get_blocks(r);
  return {b.begin(), b.end()};
}

}  // namespace blis::vllm::testing
