#include "engine/vllm/connector/offloading_connector.h"

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/sched/scheduler.h"

namespace blis::vllm {

// ---- CpuBlockLru (vllm v1/kv_offload/lru_manager.py LRUOffloadingManager) ----

bool CpuBlockLru::ready(const BlockHash& h) const {
  const auto it = entries_.find(h);
  return it != entries_.end() && it->second.ready;
}

void CpuBlockLru::touch(const BlockHash& h) {
  const auto it = entries_.find(h);
  if (it == entries_.end()) return;
  lru_.splice(lru_.end(), lru_, it->second.lru);
}

void CpuBlockLru::pin(const BlockHash& h) {
  const auto it = entries_.find(h);
  if (it != entries_.end()) ++it->second.pins;
}

void CpuBlockLru::unpin(const BlockHash& h) {
  const auto it = entries_.find(h);
  if (it != entries_.end() && it->second.pins > 0) --it->second.pins;
}

bool CpuBlockLru::prepare_store(std::span<const BlockHash> hashes,
                                std::vector<BlockHash>& to_store) {
  to_store.clear();
  for (const BlockHash& h : hashes) {
    if (entries_.count(h) == 0 && std::find(to_store.begin(), to_store.end(), h) == to_store.end())
      to_store.push_back(h);
  }
  if (to_store.empty()) return true;
  // Evict from the LRU end only blocks no load or store is using.
  const std::int64_t needed = size() + static_cast<std::int64_t>(to_store.size()) - capacity_;
  std::int64_t evictable = 0;
  for (auto it = lru_.begin(); it != lru_.end() && evictable < needed; ++it) {
    const Entry& e = entries_.at(*it);
    if (e.ready && e.pins == 0) ++evictable;
  }
  if (evictable < needed) {
    to_store.clear();
    return false;
  }
  std::int64_t excess = needed;
  for (auto it = lru_.begin(); it != lru_.end() && excess > 0;) {
    const auto e = entries_.find(*it);
    if (!e->second.ready || e->second.pins > 0) {
      ++it;
      continue;
    }
    entries_.erase(e);
    it = lru_.erase(it);
    ++evictions_;
    --excess;
  }
  for (const BlockHash& h : to_store) {
    Entry e;
    e.lru = lru_.insert(lru_.end(), h);
    entries_.emplace(h, e);
  }
  return true;
}

void CpuBlockLru::complete_store(const BlockHash& h) {
  const auto it = entries_.find(h);
  if (it != entries_.end()) it->second.ready = true;
}

// ---- OffloadingConnector ----

OffloadingConnector::OffloadingConnector(const OffloadingConfig& cfg)
    : cfg_(cfg), factor_(1), cpu_(cfg.num_cpu_blocks) {
  // offloading_connector.py OffloadingConnectorScheduler.__init__ asserts the offloaded
  // block size is a multiple of the GPU block size.
  if (cfg.gpu_block_size <= 0 || cfg.offload_block_size % cfg.gpu_block_size != 0) {
    throw std::invalid_argument("offload block_size (" + std::to_string(cfg.offload_block_size) +
                                ") must be a multiple of the GPU block_size (" +
                                std::to_string(cfg.gpu_block_size) + ")");
  }
  factor_ = cfg.offload_block_size / cfg.gpu_block_size;
}

BlockHash OffloadingConnector::offload_hash(const Request& r, std::int32_t offload_block) const {
  // _get_block_hashes: an offload block is named by the hash of its last GPU block.
  return r.block_hashes[static_cast<std::size_t>((offload_block + 1) * factor_ - 1)];
}

OffloadingConnector::ReqState& OffloadingConnector::state_of(const Request& r) {
  ReqState& st = reqs_[r.slot];
  if (st.gen != r.gen) st = ReqState{r.gen};
  return st;
}

MatchedTokens OffloadingConnector::get_num_new_matched_tokens(const Request& r,
                                                              std::int32_t num_computed) {
  // offloading_connector.py OffloadingConnectorScheduler.get_num_new_matched_tokens.
  // Backpressure (newer lines): no more loading requests than max_num_seqs.
  if (static_cast<std::int32_t>(loads_.size()) >= cfg_.max_num_seqs) return {false, 0, false};
  const std::int32_t obs = cfg_.offload_block_size;
  const std::int32_t num_blocks = std::min<std::int32_t>(
      r.num_tokens() / obs, static_cast<std::int32_t>(r.block_hashes.size()) / factor_);
  // The request's full offload blocks are touched for recency.
  for (std::int32_t b = 0; b < num_blocks; ++b) cpu_.touch(offload_hash(r, b));
  if (num_blocks * obs - num_computed < obs) return {};  // less than a block to load
  const std::int32_t start = num_computed / obs;
  std::int32_t hits = 0;
  while (start + hits < num_blocks && cpu_.ready(offload_hash(r, start + hits))) ++hits;
  if (hits == 0) return {};
  const std::int32_t hit_tokens = obs * (start + hits) - num_computed;
  if (hit_tokens < obs) return {};
  // A block another request is loading: wait, and hit the GPU cache once it landed.
  for (std::int32_t b = start; b < start + hits; ++b) {
    if (std::find(loading_.begin(), loading_.end(), offload_hash(r, b)) != loading_.end())
      return {false, 0, false};
  }
  // Loads are always asynchronous.
  return {true, hit_tokens, true};
}

void OffloadingConnector::update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                                   std::int32_t num_external_tokens) {
  // offloading_connector.py update_state_after_alloc: a CPU->GPU transfer of the hit range;
  // prepare_load pins its CPU blocks, and their hashes are marked as being loaded.
  ReqState& st = state_of(r);
  if (num_external_tokens <= 0) return;
  const std::int32_t obs = cfg_.offload_block_size;
  Job job;
  job.load = true;
  job.ref = r.ref();
  job.key = r.key;
  // The allocation covers exactly local + external tokens, which end on an offload block
  // boundary: the hit range is [end - external, end).
  std::int32_t end_tokens = static_cast<std::int32_t>(blocks.size()) * cfg_.gpu_block_size;
  end_tokens -= end_tokens % obs;
  const std::int32_t first = (end_tokens - num_external_tokens) / obs;
  for (std::int32_t b = first; b < end_tokens / obs; ++b) {
    const BlockHash h = offload_hash(r, b);
    cpu_.pin(h);
    loading_.push_back(h);
    job.hashes.push_back(h);
  }
  // What is loaded is already stored: the store cursor starts past it.
  st.next_store = std::max(st.next_store, end_tokens / obs);
  emit(std::move(job), num_external_tokens / cfg_.gpu_block_size);
}

void OffloadingConnector::build_connector_meta(const SchedulerOutput& out, const Scheduler& s) {
  // offloading_connector.py _get_reqs_to_store: for every scheduled request, the offload
  // blocks that become full with this step's tokens go to the CPU tier, in order.
  const std::int32_t obs = cfg_.offload_block_size;
  for (const ScheduledRequest& e : out.scheduled) {
    const Request* r = s.find(e.ref);
    if (r == nullptr) continue;
    const std::int32_t total = e.num_computed_before + e.num_tokens;
    const std::int32_t num_blocks = std::min<std::int32_t>(
        total / obs, static_cast<std::int32_t>(r->block_hashes.size()) / factor_);
    ReqState& st = state_of(*r);
    if (num_blocks <= st.next_store) continue;
    scratch_.clear();
    for (std::int32_t b = st.next_store; b < num_blocks; ++b)
      scratch_.push_back(offload_hash(*r, b));
    // prepare_store returns None when nothing fits: store nothing, retry next step.
    if (!cpu_.prepare_store(scratch_, to_store_)) continue;
    st.next_store = num_blocks;
    if (to_store_.empty()) continue;
    Job job;
    job.ref = r->ref();
    job.key = r->key;
    job.hashes = to_store_;
    ++st.stores_in_flight;
    emit(std::move(job), static_cast<std::int32_t>(to_store_.size()) * factor_);
  }
}

void OffloadingConnector::emit(Job job, std::int32_t num_gpu_blocks) {
  engine::TransferRequest t;
  t.kind = job.load ? engine::TransferKind::kOffloadLoad : engine::TransferKind::kOffloadStore;
  t.id = next_id_++;
  t.key = job.key;
  t.num_blocks = num_gpu_blocks;
  t.num_tokens = num_gpu_blocks * cfg_.gpu_block_size;
  job.id = t.id;
  pending_.push_back(t);
  (job.load ? loads_ : stores_).push_back(std::move(job));
}

bool OffloadingConnector::request_finished(Request& r, std::span<const std::int32_t> blocks) {
  // offloading_connector.py request_finished: blocks are held while stores are in flight.
  (void)blocks;
  const auto it = reqs_.find(r.slot);
  if (it == reqs_.end() || it->second.gen != r.gen) return false;
  if (it->second.stores_in_flight > 0) {
    it->second.finished = true;
    return true;
  }
  reqs_.erase(it);
  return false;
}

void OffloadingConnector::take_transfers(std::vector<engine::TransferRequest>& out) {
  out.insert(out.end(), pending_.begin(), pending_.end());
  pending_.clear();
}

TransferEffect OffloadingConnector::on_transfer_finished(const engine::TransferRequest& t) {
  // update_connector_output: finished loads -> complete_load (unpin); finished stores ->
  // complete_store (visible to lookups).
  TransferEffect e;
  std::vector<Job>& jobs = t.kind == engine::TransferKind::kOffloadLoad ? loads_ : stores_;
  const auto it =
      std::find_if(jobs.begin(), jobs.end(), [&](const Job& j) { return j.id == t.id; });
  if (it == jobs.end()) return e;
  const Job job = std::move(*it);
  jobs.erase(it);
  if (job.load) {
    for (const BlockHash& h : job.hashes) {
      cpu_.unpin(h);
      const auto l = std::find(loading_.begin(), loading_.end(), h);
      if (l != loading_.end()) loading_.erase(l);
    }
    e.finished_recving = job.ref;
    return e;
  }
  for (const BlockHash& h : job.hashes) cpu_.complete_store(h);
  const auto st = reqs_.find(job.ref.index);
  if (st == reqs_.end() || st->second.gen != job.ref.gen) return e;
  if (--st->second.stores_in_flight == 0 && st->second.finished) {
    e.finished_sending = job.ref;
    reqs_.erase(st);
  }
  return e;
}

}  // namespace blis::vllm
