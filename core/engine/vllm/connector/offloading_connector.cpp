#include "engine/vllm/connector/offloading_connector.h"

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/kv/block_pool.h"
#include "engine/vllm/sched/scheduler.h"
#include "util/contains.h"
#include "util/python_set_order.h"

namespace blis::vllm {
namespace {

template <typename T>
void insert_sorted_unique(std::vector<T>& v, T x) {
  const auto it = std::lower_bound(v.begin(), v.end(), x);
  if (it == v.end() || *it != x) v.insert(it, x);
}

}  // namespace

OffloadingConnector::OffloadingConnector(const OffloadingConfig& cfg)
    : cfg_(cfg),
      tpc_(cfg.gpu_block_size * cfg.blocks_per_chunk),
      cpu_(cfg.num_cpu_blocks, cfg.cpu) {
  if (cfg.gpu_block_size <= 0 || cfg.blocks_per_chunk <= 0) {
    throw std::invalid_argument("offloading: block_size and blocks_per_chunk must be positive");
  }
}

void OffloadingConnector::update_offload_keys(ReqState& st, const Request& r) const {
  // scheduler.py RequestOffloadState.update_offload_keys: a chunk is named by the hash of
  // its last GPU block (hashes_per_chunk = blocks_per_chunk here).
  const std::size_t hpc = static_cast<std::size_t>(cfg_.blocks_per_chunk);
  for (std::size_t i = hpc * st.offload_keys.size() + hpc - 1; i < r.block_hashes.size(); i += hpc)
    st.offload_keys.push_back(r.block_hashes[i]);
  if (cfg_.python_set_order) update_py_keys(st, r);
}

void OffloadingConnector::update_py_keys(ReqState& st, const Request& r) const {
  // kv_cache_utils.py hash_block_tokens over each full block, chained; the key of chunk c is
  // make_offload_key(hash of its last block, group 0).
  if (!st.py_ok) return;
  if (r.lora_id != 0 || r.has_cache_salt) {
    st.py_ok = false;
    st.py_keys.clear();
    return;
  }
  const std::int32_t bs = cfg_.gpu_block_size;
  const std::size_t hpc = static_cast<std::size_t>(cfg_.blocks_per_chunk);
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(bs));
  // The same blocks and chunk ends as update_offload_keys walks, so py_keys[c] is the key of
  // offload_keys[c].
  while (st.py_num_blocks < r.block_hashes.size()) {
    const auto b = static_cast<std::int32_t>(st.py_num_blocks);
    for (std::int32_t i = 0; i < bs; ++i)
      tokens[static_cast<std::size_t>(i)] = r.token_at(b * bs + i);
    st.py_last_block = vllm_hash_block_tokens(b == 0 ? nullptr : &st.py_last_block, tokens);
    if (++st.py_num_blocks % hpc == 0)
      st.py_keys.push_back(offload_key_py_hash(st.py_last_block, 0));
  }
}

void OffloadingConnector::set_py_hashes(const ReqState& st, std::int32_t first_chunk,
                                        Job& job) const {
  // The hash() of each of the job's keys, which are offload_keys[first_chunk..] filtered.
  if (!cfg_.python_set_order || !st.py_ok) return;
  auto c = static_cast<std::size_t>(first_chunk);
  for (const BlockHash& k : job.keys) {
    while (c < st.offload_keys.size() && st.offload_keys[c] != k) ++c;
    if (c >= st.py_keys.size()) {
      job.key_py_hashes.clear();
      return;
    }
    job.key_py_hashes.push_back(st.py_keys[c]);
  }
}

std::int32_t OffloadingConnector::storable_chunks(const ReqState& st,
                                                  std::int32_t num_offloadable_tokens) const {
  // RequestOffloadState.storable_chunks (no EAGLE group): full chunks that are allocated.
  const std::int32_t allocated =
      static_cast<std::int32_t>(st.block_ids.size()) / cfg_.blocks_per_chunk;
  return std::min(num_offloadable_tokens / tpc_, allocated);
}

std::int32_t OffloadingConnector::offloadable_tokens(const ReqState& st,
                                                     std::int32_t num_tokens_after_batch,
                                                     std::int32_t num_tokens) const {
  // scheduler.py _calc_num_offloadable_tokens: the request's max_offload_tokens caps what
  // is offloaded (RequestOffloadState.max_offload_tokens).
  std::int32_t n = std::min(num_tokens_after_batch, num_tokens);
  if (st.max_offload_tokens && *st.max_offload_tokens < n)
    n = static_cast<std::int32_t>(*st.max_offload_tokens);
  if (cfg_.offload_prompt_only) n = std::min(n, st.num_prompt_tokens);
  return n;
}

void OffloadingConnector::on_new_request(const Request& r) {
  ReqState st;
  st.request_id = r.request_id;
  st.ref = r.ref();
  st.num_prompt_tokens = r.num_prompt_tokens;
  // RequestOffloadState.__post_init__ (the input layer already dropped an invalid value).
  st.max_offload_tokens = r.kv_transfer.max_offload_tokens;
  reqs_[r.key] = std::move(st);
}

void OffloadingConnector::observe_async_delay(ReqState& st) {
  // _maybe_observe_lookup_async_delay: from the first deferred lookup to its resolution.
  if (!st.deferred_lookup) return;
  st.deferred_lookup = false;
  stats_.lookup_async_delays.push_back(to_seconds(now_ - st.deferred_lookup_start));
}

std::int32_t OffloadingConnector::lookup(ReqState& st, std::int32_t num_tokens, bool& deferred) {
  // _lookup_complete_chunks for one full-attention group (no partial tail).
  deferred = false;
  const std::int32_t computed = st.num_locally_computed_tokens;
  const auto num_keys = static_cast<std::int32_t>(st.offload_keys.size());
  std::int32_t max_hit = std::min(num_tokens, num_keys * tpc_);
  if (max_hit - computed < tpc_) return 0;  // less than a chunk to load
  const std::int32_t num_chunks = std::min((max_hit + tpc_ - 1) / tpc_, num_keys);
  const std::int32_t start = computed / tpc_;
  // _maximal_prefix_lookup: consecutive hits; a chunk still being stored counts as a hit
  // but defers the answer.
  std::int32_t hits = 0;
  for (std::int32_t c = start; c < num_chunks; ++c) {
    const LookupResult res = cpu_.lookup(st.offload_keys[static_cast<std::size_t>(c)]);
    if (res == LookupResult::kMiss) break;
    if (res == LookupResult::kHitPending) deferred = true;
    ++hits;
  }
  if (hits == 0) return 0;
  if (!deferred) max_hit = std::min(max_hit, tpc_ * (start + hits));
  const std::int32_t num_hit_tokens = max_hit - computed;
  if (num_hit_tokens < tpc_) {  // less than a chunk, deferred or not
    deferred = false;
    return 0;
  }
  if (deferred) return -1;
  // A hit chunk another request is loading: wait, and hit the GPU cache once it landed.
  if (!chunks_being_loaded_.empty()) {
    const std::int32_t end = (computed + num_hit_tokens + tpc_ - 1) / tpc_;
    for (std::int32_t c = start; c < end; ++c) {
      if (contains(chunks_being_loaded_, st.offload_keys[static_cast<std::size_t>(c)])) {
        deferred = true;
        return -1;
      }
    }
  }
  return num_hit_tokens;
}

MatchedTokens OffloadingConnector::get_num_new_matched_tokens(const Request& r,
                                                              std::int32_t num_computed) {
  // scheduler.py OffloadingConnectorScheduler.get_num_new_matched_tokens.
  ReqState& st = reqs_.at(r.key);
  st.block_ids.clear();
  if (!st.transfer_jobs.empty()) return {false, 0, false};  // own transfers in flight
  update_offload_keys(st, r);
  st.num_locally_computed_tokens = num_computed;
  std::int32_t hit = 0;
  if (!r.skip_reading_prefix_cache) {
    bool deferred = false;
    hit = lookup(st, r.num_tokens(), deferred);
    // Time spent inside the connector is zero in the simulation.
    stats_.lookup_sync_delays.push_back(0.0);
    if (deferred) {
      if (!st.deferred_lookup) {
        st.deferred_lookup = true;
        st.deferred_lookup_start = now_;
      }
    } else {
      observe_async_delay(st);
    }
    cpu_.touch(st.offload_keys);  // _touch, before the answer (None or not) is returned
    if (deferred) return {false, 0, false};
    return {true, hit, hit > 0};
  }
  cpu_.touch(st.offload_keys);
  return {};
}

void OffloadingConnector::update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                                   std::int32_t num_external_tokens) {
  // scheduler.py update_state_after_alloc: a CPU->GPU load of the chunks beyond the GPU
  // blocks that already hold KV (the first block without a hash ends the local part).
  if (num_external_tokens == 0) return;
  ReqState& st = reqs_.at(r.key);
  for (const std::int32_t b : blocks) {
    if (b != 0) insert_sorted_unique(batch_allocated_blocks_, b);
  }
  const std::int32_t bs = cfg_.gpu_block_size;
  const std::int32_t num_cached = st.num_locally_computed_tokens + num_external_tokens;
  const std::int32_t num_gpu_blocks = (num_cached + bs - 1) / bs;
  std::int32_t local_blocks = num_gpu_blocks;
  for (std::int32_t i = 0; i < num_gpu_blocks; ++i) {
    const KVCacheBlock& blk = block_pool_->block(blocks[static_cast<std::size_t>(i)]);
    if (!blk.is_null && !blk.has_hash) {
      local_blocks = i;
      break;
    }
  }
  const std::int32_t num_chunks = (num_cached + tpc_ - 1) / tpc_;
  Job job;
  if (num_gpu_blocks > local_blocks) {
    const std::int32_t start = local_blocks / cfg_.blocks_per_chunk;
    job.keys.assign(st.offload_keys.begin() + start, st.offload_keys.begin() + num_chunks);
  }
  // BLOCK_LEVEL policy: the loaded (and hit) chunks are not stored again.
  st.next_stored_chunk_idx = num_chunks;
  cpu_.prepare_load(job.keys);
  set_py_hashes(st, 0, job);
  job.req = r.key;
  for (const BlockHash& k : job.keys) {
    if (cfg_.enable_prefix_caching) chunks_being_loaded_.push_back(k);
  }
  const std::int64_t id =
      new_job(std::move(job), num_gpu_blocks - local_blocks, engine::TransferKind::kOffloadLoad);
  batch_load_jobs_.emplace_back(id, r.request_id);
}

std::int64_t OffloadingConnector::new_job(Job job, std::int32_t num_gpu_blocks,
                                          engine::TransferKind kind) {
  const std::int64_t id = job_counter_++;  // _generate_job_id: loads and stores share it
  ReqState& st = reqs_.at(job.req);
  st.transfer_jobs.push_back(id);
  engine::TransferRequest t;
  t.kind = kind;
  t.id = static_cast<std::uint64_t>(id);
  t.key = job.req;
  t.num_blocks = num_gpu_blocks;
  t.num_tokens = num_gpu_blocks * cfg_.gpu_block_size;
  pending_.push_back(t);
  jobs_.emplace(id, std::move(job));
  return id;
}

void OffloadingConnector::update_req_states(const SchedulerOutput& out, const Scheduler& s) {
  // _update_req_states: the new block ids of every scheduled request (a resumed request
  // starts its list again); every one is a block allocated this step.
  for (const ScheduledRequest& e : out.scheduled) {
    const Request* r = s.find(e.ref);
    const auto it = reqs_.find(e.key);
    if (r == nullptr || it == reqs_.end()) continue;
    ReqState& st = it->second;
    update_offload_keys(st, *r);
    if (e.kind == ScheduledKind::kResumed) st.block_ids.clear();
    for (std::int32_t i = e.blocks_begin; i < e.blocks_end; ++i) {
      const std::int32_t b = out.block_ids[static_cast<std::size_t>(i)];
      st.block_ids.push_back(b);
      if (b != 0) insert_sorted_unique(batch_allocated_blocks_, b);
    }
  }
}

void OffloadingConnector::flush(std::int64_t job_id) {
  insert_sorted_unique(batch_jobs_to_flush_, job_id);
}

void OffloadingConnector::build_connector_meta(const SchedulerOutput& out, const Scheduler& s) {
  // scheduler.py OffloadingConnectorScheduler.build_connector_meta.
  meta_.clear();
  update_req_states(out, s);
  // A preempted request's stores are flushed (its blocks were freed).
  for (const engine::RequestKey key : out.preempted) {
    const auto it = reqs_.find(key);
    if (it == reqs_.end()) continue;
    for (const std::int64_t j : it->second.transfer_jobs) flush(j);
  }
  // A GPU block reallocated while a store reads it: the worker must finish that store first.
  for (const std::int32_t b : batch_allocated_blocks_) {
    const auto it = block_to_pending_jobs_.find(b);
    if (it == block_to_pending_jobs_.end()) continue;
    for (const std::int64_t j : it->second) flush(j);
  }
  build_store_jobs(out, s);
  meta_.load_jobs.swap(batch_load_jobs_);
  meta_.jobs_to_flush = batch_jobs_to_flush_;
  // All stores of the finished requests are issued: forget those with nothing in flight.
  for (const engine::RequestKey key : out.finished_req_ids) {
    const auto it = reqs_.find(key);
    if (it == reqs_.end()) continue;
    it->second.finished_signaled = true;
    if (it->second.transfer_jobs.empty()) reqs_.erase(it);
  }
  flushed_.insert(flushed_.end(), batch_jobs_to_flush_.begin(), batch_jobs_to_flush_.end());
  batch_load_jobs_.clear();
  batch_jobs_to_flush_.clear();
  batch_allocated_blocks_.clear();
}

void OffloadingConnector::build_store_jobs(const SchedulerOutput& out, const Scheduler& s) {
  // _build_store_jobs over the scheduled requests (num_scheduled_tokens, a dict: in order).
  for (const ScheduledRequest& e : out.scheduled) {
    const Request* r = s.find(e.ref);
    const auto it = reqs_.find(e.key);
    if (r == nullptr || it == reqs_.end()) continue;
    store_request(e.key, it->second, e.num_computed_before + e.num_tokens, r->num_tokens());
  }
  // Then the finished ones, in the set's order (every finished id is still tracked here).
  finished_order_.clear();
  for (const engine::RequestKey key : out.finished_req_ids) {
    if (reqs_.count(key) != 0) finished_order_.push_back(key);
  }
  if (cfg_.python_set_order && finished_order_.size() > 1) {
    std::vector<std::string> names;
    for (const engine::RequestKey key : finished_order_) names.push_back(reqs_.at(key).request_id);
    std::vector<engine::RequestKey> ordered;
    for (const std::size_t i : pyset::set_order_indices(names))
      ordered.push_back(finished_order_[i]);
    finished_order_.swap(ordered);
  }
  for (const engine::RequestKey key : finished_order_) {
    ReqState& st = reqs_.at(key);
    if (!st.finished) continue;
    // An aborted request stores what it computed; a finished one its whole sequence.
    store_request(key, st, st.aborted ? st.num_computed_tokens : st.num_tokens, st.num_tokens);
  }
}

void OffloadingConnector::store_request(engine::RequestKey key, ReqState& st,
                                        std::int32_t num_tokens_after_batch,
                                        std::int32_t num_tokens) {
  const std::int32_t offloadable = offloadable_tokens(st, num_tokens_after_batch, num_tokens);
  const std::int32_t num_chunks = storable_chunks(st, offloadable);
  const std::int32_t start = st.next_stored_chunk_idx;
  const std::int32_t bpc = cfg_.blocks_per_chunk;
  scratch_.clear();
  for (std::int32_t c = start; c < num_chunks; ++c) {
    // The chunk's last GPU block; 0 (the null block) is skipped.
    if (st.block_ids[static_cast<std::size_t>(c * bpc + bpc - 1)] == 0) continue;
    scratch_.push_back(st.offload_keys[static_cast<std::size_t>(c)]);
  }
  if (scratch_.empty()) {
    st.next_stored_chunk_idx = std::max(st.next_stored_chunk_idx, num_chunks);
    return;
  }
  if (!cpu_.prepare_store(scratch_, to_store_)) {
    ++stats_.allocation_failures;  // retried at the next step (the index does not move)
    return;
  }
  if (to_store_.empty()) {
    st.next_stored_chunk_idx = std::max(st.next_stored_chunk_idx, num_chunks);
    return;
  }
  cpu_.touch(st.offload_keys);
  Job job;
  job.req = key;
  job.is_store = true;
  job.keys = to_store_;
  set_py_hashes(st, start, job);
  std::int32_t num_src = 0;
  for (std::int32_t c = start; c < num_chunks; ++c) {
    if (!contains(to_store_, st.offload_keys[static_cast<std::size_t>(c)])) continue;
    for (std::int32_t i = 0; i < bpc; ++i) {
      const std::int32_t b = st.block_ids[static_cast<std::size_t>(c * bpc + i)];
      if (b == 0) continue;
      job.deferred_fence_block_ids.push_back(b);
      ++num_src;
    }
  }
  st.next_stored_chunk_idx = std::max(st.next_stored_chunk_idx, num_chunks);
  const std::vector<std::int32_t> fence = job.deferred_fence_block_ids;
  const std::int64_t id = new_job(std::move(job), num_src, engine::TransferKind::kOffloadStore);
  meta_.store_jobs.emplace_back(id, st.request_id);
  if (st.finished) {
    // A finished request's blocks are free: a reallocation must wait for this store.
    for (const std::int32_t b : fence) {
      insert_sorted_unique(block_to_pending_jobs_[b], id);
      if (std::binary_search(batch_allocated_blocks_.begin(), batch_allocated_blocks_.end(), b))
        flush(id);
    }
  }
}

FinishedTransfer OffloadingConnector::request_finished(Request& r,
                                                       std::span<const std::int32_t> blocks) {
  // scheduler.py request_finished: never delays the free. The final chunks are stored at
  // the next build; the in-flight stores' blocks are watched for reallocation.
  (void)blocks;
  const auto it = reqs_.find(r.key);
  if (it == reqs_.end()) return {};
  ReqState& st = it->second;
  observe_async_delay(st);
  update_offload_keys(st, r);
  st.finished = true;
  st.aborted = r.status == RequestStatus::kFinishedAborted;
  st.num_tokens = r.num_tokens();
  st.num_computed_tokens = r.num_computed_tokens;
  for (const std::int64_t j : st.transfer_jobs) {
    for (const std::int32_t b : jobs_.at(j).deferred_fence_block_ids)
      insert_sorted_unique(block_to_pending_jobs_[b], j);
  }
  return {};
}

void OffloadingConnector::take_transfers(std::vector<engine::TransferRequest>& out) {
  out.insert(out.end(), pending_.begin(), pending_.end());
  pending_.clear();
}

TransferEffect OffloadingConnector::complete_job(std::int64_t job_id) {
  // update_connector_output for one completed job: complete_store / complete_load, drop
  // the block watches, and forget a finished request with nothing left in flight.
  TransferEffect e;
  const auto f = std::find(flushed_.begin(), flushed_.end(), job_id);
  if (f != flushed_.end()) flushed_.erase(f);
  const auto it = jobs_.find(job_id);
  if (it == jobs_.end()) return e;  // completed earlier (flushed)
  Job job = std::move(it->second);
  jobs_.erase(it);
  if (job.keys.size() > 1 && job.key_py_hashes.size() == job.keys.size()) {
    // scheduler.py update_connector_output: complete_store / complete_load walk the job's key
    // set, each key becoming evictable in that order (with LRU: at its most recent end).
    std::vector<BlockHash> ordered;
    for (const std::size_t i : pyset::set_order_of_hashes(job.key_py_hashes))
      ordered.push_back(job.keys[i]);
    job.keys.swap(ordered);
  }
  const auto rs = reqs_.find(job.req);
  if (job.is_store) {
    cpu_.complete_store(job.keys);
  } else {
    cpu_.complete_load(job.keys);
    for (const BlockHash& k : job.keys) {
      const auto l = std::find(chunks_being_loaded_.begin(), chunks_being_loaded_.end(), k);
      if (l != chunks_being_loaded_.end()) chunks_being_loaded_.erase(l);
    }
    // The worker reports the loaded request in finished_recving.
    if (rs != reqs_.end()) e.finished_recving = rs->second.ref;
  }
  if (rs == reqs_.end()) return e;
  ReqState& st = rs->second;
  if (st.finished) {
    for (const std::int32_t b : job.deferred_fence_block_ids) {
      const auto p = block_to_pending_jobs_.find(b);
      if (p == block_to_pending_jobs_.end()) continue;
      const auto j = std::find(p->second.begin(), p->second.end(), job_id);
      if (j != p->second.end()) p->second.erase(j);
      if (p->second.empty()) block_to_pending_jobs_.erase(p);
    }
  }
  const auto j = std::find(st.transfer_jobs.begin(), st.transfer_jobs.end(), job_id);
  if (j != st.transfer_jobs.end()) st.transfer_jobs.erase(j);
  if (st.finished_signaled && st.transfer_jobs.empty()) reqs_.erase(rs);
  return e;
}

TransferEffect OffloadingConnector::on_transfer_finished(const engine::TransferRequest& t) {
  return complete_job(static_cast<std::int64_t>(t.id));
}

void OffloadingConnector::on_step_output(std::vector<TransferEffect>& out) {
  // The worker waited for the flushed jobs within the step: they are done with its output.
  while (!flushed_.empty()) {
    const TransferEffect e = complete_job(flushed_.front());  // erases it from flushed_
    if (e.finished_recving.index >= 0 || e.finished_sending.index >= 0) out.push_back(e);
  }
}

void OffloadingConnector::take_stats(metrics::KVConnectorStats& out) {
  // OffloadingConnectorScheduler.get_stats: the scheduler's stats, then the manager's
  // (manager.py get_stats; it always sets the three gauges).
  const OffloadConnectorStats st = take_offload_stats();
  for (const double d : st.lookup_sync_delays)
    out.observe("vllm:kv_offload_lookup_sync_delay_seconds", d);
  for (const double d : st.lookup_async_delays)
    out.observe("vllm:kv_offload_lookup_async_delay_seconds", d);
  if (st.allocation_failures > 0)
    out.increase("vllm:kv_offload_allocation_failure", static_cast<double>(st.allocation_failures));
  out.set("vllm:kv_offload_cpu_cache_usage_perc", st.cpu.usage);
  for (const std::int32_t a : st.cpu.allocation_sizes)
    out.observe("vllm:kv_offload_cpu_allocation_size", a);
  out.set("vllm:kv_offload_cpu_cache_write_usage_perc", st.cpu.write_usage);
  out.set("vllm:kv_offload_cpu_cache_read_usage_perc", st.cpu.read_usage);
  // With store_threshold >= 2 the counter is increased every call, by 0 too.
  if (st.cpu.has_stores_skipped)
    out.increase("vllm:kv_offload_stores_skipped", static_cast<double>(st.cpu.stores_skipped));
}

OffloadConnectorStats OffloadingConnector::take_offload_stats() {
  OffloadConnectorStats s = std::move(stats_);
  stats_ = OffloadConnectorStats{};
  s.cpu = cpu_.take_stats();
  return s;
}

}  // namespace blis::vllm
