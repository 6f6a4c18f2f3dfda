// Scheduler, finishing requests and freeing their blocks (vllm v1/core/sched/scheduler.py
// _free_request, _free_request_blocks, finish_requests, and the KV connector's
// finished_recving / finished_sending).

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/sched/scheduler.h"

namespace blis::vllm {

void Scheduler::free_request(std::int32_t index, bool delay_free_blocks, UpdateResult* res) {
  // vllm scheduler.py Scheduler._free_request: report the id with the next output and free
  // the blocks (they keep their hashes) unless the connector keeps them for a transfer. The
  // slot itself is released once no queue refers to it (at the end of update_from_output, or
  // right away for aborts).
  Request& r = req(index);
  erase_value(inflight_prefills_, index);
  if (connector_ != nullptr) {
    // _connector_finished: the connector sees the blocks that cover the computed tokens
    // (get_block_ids_for_computed_tokens); its kv_transfer_params go with the output.
    const auto all = kv_.get_blocks(r);
    const std::size_t n = std::min(
        all.size(),
        static_cast<std::size_t>((r.num_computed_tokens + cfg_.block_size - 1) / cfg_.block_size));
    FinishedTransfer f = connector_->request_finished(r, all.first(n));
    if (f.delay_free) delay_free_blocks = true;
    if (f.params && res != nullptr)
      res->kv_transfer_params.emplace_back(r.key, std::move(*f.params));
  }
  finished_req_ids_.push_back(r.key);
  if (delay_free_blocks) {
    delayed_free_.push_back(index);
    return;
  }
  free_request_blocks(index);
  to_release_.push_back(index);
}

void Scheduler::free_request_blocks(std::int32_t index) {
  // vllm scheduler.py _free_request_blocks: free now unless a step that may still write the
  // blocks is in flight; then they wait, in allocation order, for that step's output.
  Request& r = req(index);
  if (!defer_block_free_ ||
      last_sched_seq_[static_cast<std::size_t>(index)] <= processed_step_seq_) {
    kv_.free(r);
    return;
  }
  DeferredFree d;
  d.fence = sched_step_seq_;
  kv_.pop_blocks_for_free(r, d.blocks);
  if (!d.blocks.empty()) deferred_frees_.push_back(std::move(d));
}

void Scheduler::drain_deferred_frees() {
  // vllm scheduler.py _drain_deferred_frees: fences are near-monotonic; stop at the first
  // pending one. Reverse order, so the tail blocks are evicted first.
  while (!deferred_frees_.empty() && deferred_frees_.front().fence <= processed_step_seq_) {
    kv_.block_pool().free_blocks_reversed(deferred_frees_.front().blocks);
    deferred_frees_.pop_front();
  }
}

void Scheduler::finished_recving(ReqRef ref) {
  Request* r = find(ref);
  if (r == nullptr) return;
  // vllm scheduler.py _update_from_kv_xfer_finished only marks the load done: the request
  // keeps its in-flight-prefill reservation (_inflight_prefills) until it is scheduled past
  // its prompt, preempted or freed, so async loads admitted before its promotion still leave
  // room for the blocks it has yet to allocate.
  if (is_finished(r->status)) {
    // Aborted during the load: its blocks were kept until the load ended.
    finished_sending(ref);
    return;
  }
  add_unique(finished_recving_, ref.index);
}

void Scheduler::finished_sending(ReqRef ref) {
  // vllm scheduler.py Scheduler._update_from_kv_xfer_finished: free the held blocks now.
  Request* r = find(ref);
  if (r == nullptr || !is_finished(r->status)) return;
  const auto it = std::find(delayed_free_.begin(), delayed_free_.end(), ref.index);
  if (it == delayed_free_.end()) return;
  delayed_free_.erase(it);
  free_request_blocks(ref.index);
  release_slot(ref.index);
}

void Scheduler::remove_from_running(std::int32_t index) {
  const auto it = std::find(running_.begin(), running_.end(), index);
  if (it != running_.end()) running_.erase(it);
}

bool Scheduler::finish_request(ReqRef ref, RequestStatus status) {
  // vllm scheduler.py Scheduler.finish_requests (the outside-abort path).
  if (!is_finished(status)) throw std::invalid_argument("finish_request: not a finished status");
  Request* r = find(ref);
  if (r == nullptr || is_finished(r->status)) return false;
  if (r->status == RequestStatus::kRunning) {
    remove_from_running(ref.index);
  } else {
    waiting_->remove_request(ref.index);
    skipped_waiting_->remove_request(ref.index);
  }
  // An abort during an async KV load keeps the blocks until the load ends.
  bool delay = false;
  if (r->status == RequestStatus::kWaitingForRemoteKvs) {
    const auto it = std::find(finished_recving_.begin(), finished_recving_.end(), ref.index);
    delay = it == finished_recving_.end();
    if (!delay) finished_recving_.erase(it);
    erase_value(failed_recving_, ref.index);
  }
  r->status = status;
  to_release_.clear();
  free_request(ref.index, delay, nullptr);
  for (const std::int32_t s : to_release_) release_slot(s);
  to_release_.clear();
  return true;
}

}  // namespace blis::vllm
