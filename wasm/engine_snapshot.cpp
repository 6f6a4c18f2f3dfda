#include "engine_snapshot.h"

#include <map>
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

const char* kind_of(vllm::ScheduledKind k) {
  switch (k) {
    case vllm::ScheduledKind::kNew:
      return "new";
    case vllm::ScheduledKind::kResumed:
      return "resumed";
    default:
      return "running";
  }
}

// One in-flight batch with its entries; `index_of` maps a scheduler slot to its row in the
// snapshot's request list (-1: no longer listed, e.g. finished while a later batch ran).
ojson batch_json(const vllm::InFlightBatch& b, const vllm::Scheduler& s,
                 const std::map<std::int32_t, std::int32_t>& index_of) {
  const BatchShape shape = batch_shape(b);
  ojson entries = ojson::array();
  for (const vllm::ScheduledRequest& e : b.output.scheduled) {
    const vllm::Request& r = s.slot(e.ref.index);
    const bool live = r.gen == e.ref.gen;
    const auto it = index_of.find(e.ref.index);
    entries.push_back(ojson{{"id", live ? r.request_id : std::string()},
                            {"k", live && it != index_of.end() ? it->second : -1},
                            {"kind", kind_of(e.kind)},
                            {"tokens", e.num_tokens},
                            {"prefill_tokens", e.num_prefill_tokens},
                            {"spec_tokens", e.num_spec_tokens}});
  }
  return ojson{{"id", shape.id},
               {"tokens", shape.tokens},
               {"prefill_tokens", shape.prefill_tokens},
               {"prefills", shape.prefills},
               {"decodes", shape.decodes},
               {"spec_tokens", shape.spec_tokens},
               {"preempted", shape.preempted},
               {"entries", std::move(entries)}};
}

}  // namespace

BatchShape batch_shape(const vllm::InFlightBatch& b) {
  BatchShape out;
  out.id = b.batch_id;
  out.tokens = b.output.total_num_scheduled_tokens;
  out.preempted = static_cast<std::int32_t>(b.output.preempted.size());
  for (const vllm::ScheduledRequest& e : b.output.scheduled) {
    ++out.requests;
    out.prefill_tokens += e.num_prefill_tokens;
    out.spec_tokens += e.num_spec_tokens;
    if (e.num_prefill_tokens > 0) {
      ++out.prefills;
    } else {
      ++out.decodes;
    }
  }
  return out;
}

std::vector<BatchShape> in_flight_shapes(const engine::Engine& e) {
  std::vector<BatchShape> out;
  const auto* v = dynamic_cast<const vllm::VllmEngine*>(&e);
  if (v == nullptr) return out;
  const vllm::EngineCore& core = v->core();
  for (std::int32_t k = 0; k < core.in_flight(); ++k)
    out.push_back(batch_shape(core.in_flight_batch(k)));
  return out;
}

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
  std::map<std::int32_t, std::int32_t> index_of;  // scheduler slot -> row in `requests`
  auto add = [&](std::int32_t slot, const char* queue) {
    const vllm::Request& r = s.slot(slot);
    const auto k = static_cast<std::int32_t>(reqs.size());
    index_of.emplace(slot, k);
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
  // What the scheduler put into each batch still in flight, oldest first (with async
  // scheduling the newest was scheduled when the last step completed).
  ojson batches = ojson::array();
  const vllm::EngineCore& core = v->core();
  for (std::int32_t k = 0; k < core.in_flight(); ++k) {
    batches.push_back(batch_json(core.in_flight_batch(k), s, index_of));
  }
  out["batches"] = std::move(batches);
  out["steps_scheduled"] = core.num_batches_scheduled();
  return out.dump();
}

}  // namespace blis::wasm
