#include "engine_snapshot.h"

#include <nlohmann/json.hpp>
#include <vector>

#include "engine/vllm/vllm_engine.h"

namespace blis::wasm {
namespace {

using ojson = nlohmann::ordered_json;

const char* phase_of(const vllm::Request& r) {
  switch (r.status) {
    case vllm::RequestStatus::kWaiting:
      return "waiting";
    case vllm::RequestStatus::kWaitingForRemoteKvs:
      return "waiting-for-kv";
    case vllm::RequestStatus::kPreempted:
      return "preempted";
    case vllm::RequestStatus::kRunning:
      return r.num_computed_tokens < r.num_prompt_tokens ? "prefill" : "decode";
    default:
      return "other";
  }
}

}  // namespace

std::string engine_snapshot_json(const engine::Engine& e) {
  const auto* v = dynamic_cast<const vllm::VllmEngine*>(&e);
  if (v == nullptr) return "";
  const vllm::Scheduler& s = v->core().scheduler();
  const vllm::KVCacheManager& kv = s.kv_cache_manager();
  const vllm::BlockPool& pool = kv.block_pool();
  const vllm::VllmConfig& cfg = s.config();
  const std::int32_t n = pool.num_gpu_blocks();
  // Block owner: -1 null block, -2 free, -3 free but cached (a prefix hit can revive it),
  // k >= 0 the k-th request listed (the first holder of a shared block).
  std::vector<std::int32_t> owner(static_cast<std::size_t>(n), -2);
  std::vector<std::int32_t> refs(static_cast<std::size_t>(n), 0);
  for (std::int32_t b = 0; b < n; ++b) {
    const vllm::KVCacheBlock& blk = pool.block(b);
    refs[static_cast<std::size_t>(b)] = blk.ref_cnt;
    if (blk.is_null) {
      owner[static_cast<std::size_t>(b)] = -1;
    } else if (blk.ref_cnt == 0 && blk.has_hash) {
      owner[static_cast<std::size_t>(b)] = -3;
    }
  }
  ojson reqs = ojson::array();
  auto add = [&](std::int32_t slot, const char* queue) {
    const vllm::Request& r = s.slot(slot);
    const auto k = static_cast<std::int32_t>(reqs.size());
    const auto blocks = kv.get_blocks(r);
    for (const std::int32_t b : blocks) {
      if (b > 0 && b < n && owner[static_cast<std::size_t>(b)] < 0) {
        owner[static_cast<std::size_t>(b)] = k;
      }
    }
    reqs.push_back(ojson{{"id", r.request_id},
                         {"queue", queue},
                         {"phase", phase_of(r)},
                         {"prompt_tokens", r.num_prompt_tokens},
                         {"computed_tokens", r.num_computed_tokens},
                         {"output_tokens", r.num_output_tokens()},
                         {"cached_tokens", r.num_cached_tokens},
                         {"preemptions", r.num_preemptions},
                         {"blocks", blocks.size()}});
  };
  for (const std::int32_t slot : s.running()) add(slot, "running");
  for (const std::int32_t slot : s.waiting_queue().in_order()) add(slot, "waiting");
  for (const std::int32_t slot : s.skipped_waiting_queue().in_order()) add(slot, "waiting");
  ojson out;
  out["num_blocks"] = n;
  out["free_blocks"] = pool.get_num_free_blocks();
  out["block_size"] = cfg.block_size;
  out["token_budget"] = cfg.token_budget();
  out["max_num_seqs"] = cfg.max_num_seqs;
  out["blocks"] = owner;
  out["refs"] = refs;
  out["requests"] = std::move(reqs);
  return out.dump();
}

}  // namespace blis::wasm
