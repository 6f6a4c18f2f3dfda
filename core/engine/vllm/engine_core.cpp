#include "engine/vllm/engine_core.h"

#include <stdexcept>
#include <string>

#include "util/python_set_order.h"

namespace blis::vllm {

EngineCore::EngineCore(const VllmConfig& cfg)
    : scheduler_(make_scheduler(cfg)),
      // vllm engine/core.py: batch_queue_size = executor.max_concurrent_batches.
      ring_(static_cast<std::size_t>(cfg.max_concurrent_batches())) {}

InFlightBatch& EngineCore::schedule_batch() {
  // vllm engine/core.py step_with_batch_queue: "assert len(batch_queue) < batch_queue_size".
  if (count_ >= batch_queue_size()) throw std::logic_error("EngineCore: batch queue is full");
  const std::size_t slot = static_cast<std::size_t>((head_ + count_) % batch_queue_size());
  InFlightBatch& b = ring_[slot];
  b.batch_id = next_batch_id_++;
  scheduler_->schedule(b.output);
  b.sampled.clear();
  b.drafts.clear();
  ++count_;
  return b;
}

const InFlightBatch& EngineCore::in_flight_batch(std::int32_t k) const {
  if (k < 0 || k >= count_) throw std::out_of_range("EngineCore: no such in-flight batch");
  return ring_[static_cast<std::size_t>((head_ + k) % batch_queue_size())];
}

InFlightBatch& EngineCore::oldest() {
  if (count_ == 0) throw std::logic_error("EngineCore: no batch in flight");
  return ring_[static_cast<std::size_t>(head_)];
}

void EngineCore::discard_newest_empty() {
  if (count_ == 0) throw std::logic_error("EngineCore: no batch in flight");
  const std::size_t slot = static_cast<std::size_t>((head_ + count_ - 1) % batch_queue_size());
  if (!ring_[slot].output.scheduled.empty())
    throw std::logic_error("EngineCore: newest batch is not empty");
  --count_;
}

bool EngineCore::abort_now(ReqRef ref) {
  return scheduler_->finish_request(ref, RequestStatus::kFinishedAborted);
}

void EngineCore::apply_oldest(UpdateResult& res, std::vector<engine::RequestKey>* aborted) {
  InFlightBatch& b = oldest();
  // vllm engine/core.py EngineCore._process_aborts_queue, right before update_from_output:
  // one finish_requests call for all the queued ids (scheduler.py: over set(request_ids)).
  if (python_set_order_ && aborts_queue_.size() > 1) {
    std::vector<std::string> names;
    std::vector<ReqRef> live;
    for (const ReqRef ref : aborts_queue_) {
      const Request* r = scheduler_->find(ref);
      if (r == nullptr) continue;  // not in Scheduler.requests: skipped either way
      names.push_back(r->request_id);
      live.push_back(ref);
    }
    aborts_queue_.clear();
    for (const std::size_t i : pyset::set_order_indices(names)) aborts_queue_.push_back(live[i]);
  }
  for (const ReqRef ref : aborts_queue_) {
    const Request* r = scheduler_->find(ref);
    const engine::RequestKey key = r != nullptr ? r->key : 0;
    if (abort_now(ref) && aborted != nullptr) aborted->push_back(key);
  }
  aborts_queue_.clear();
  scheduler_->update_from_output(b.output, b.sampled, res);
  // vllm engine/core.py EngineCore.post_step: sync spec decode takes the drafts now.
  if (batch_queue_size() == 1 && b.output.total_num_scheduled_tokens > 0) {
    scheduler_->update_draft_token_ids(b.output, b.drafts.offsets.size() > 1 ? &b.drafts : nullptr);
  }
  head_ = (head_ + 1) % batch_queue_size();
  --count_;
}

}  // namespace blis::vllm
