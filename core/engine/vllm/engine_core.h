#pragma once
// EngineCore's batch queue (vllm v1/engine/core.py step / step_with_batch_queue): up to
// max_concurrent_batches scheduled batches in flight (2 with async scheduling, the default),
// applied oldest first; aborts that arrive while a batch runs are queued and applied just
// before the next output (EngineCore._process_aborts_queue). Time is the caller's: it
// decides when a batch has run and supplies what it sampled.

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/vllm/sched/scheduler.h"

namespace blis::vllm {

struct InFlightBatch {
  std::uint64_t batch_id = 0;
  SchedulerOutput output;
  ModelRunnerOutput sampled;  // filled by the caller before apply_oldest
  // Sync spec decode: the drafter's proposals, one list per scheduled entry (DraftTokenIds);
  // left empty, every request that sampled gets num_speculative_tokens drafts.
  ModelRunnerOutput drafts;
};

class EngineCore {
 public:
  explicit EngineCore(const VllmConfig& cfg);

  Scheduler& scheduler() { return *scheduler_; }
  const Scheduler& scheduler() const { return *scheduler_; }
  std::int32_t batch_queue_size() const { return static_cast<std::int32_t>(ring_.size()); }
  std::int32_t in_flight() const { return count_; }
  // True when schedule_batch may be called: the scheduler has requests and the queue room.
  bool can_schedule() const { return count_ < batch_queue_size() && scheduler_->has_requests(); }
  // Schedules the next batch and queues it; requires room in the queue.
  InFlightBatch& schedule_batch();
  // k-th in-flight batch, oldest first.
  const InFlightBatch& in_flight_batch(std::int32_t k) const;
  InFlightBatch& oldest();
  // Input-path abort: applied now. False if unknown or finished.
  bool abort_now(ReqRef ref);
  // An abort that arrives while a batch runs; applied before the next output.
  void queue_abort(ReqRef ref) { aborts_queue_.push_back(ref); }
  void drop_queued_aborts() { aborts_queue_.clear(); }
  // _process_aborts_queue passes the queued ids to finish_requests, which walks set(ids):
  // true applies them in CPython 3.11's set order with PYTHONHASHSEED=0 (the oracle traces'
  // run, util/python_set_order.h); false (default) in queue order.
  void set_python_set_order(bool on) { python_set_order_ = on; }
  // Applies the queued aborts (keys of those that took effect appended to `aborted`), then
  // the oldest batch's `sampled` output, and pops it. In sync mode with spec decode the
  // next drafts are taken afterwards (EngineCore.post_step).
  void apply_oldest(UpdateResult& res, std::vector<engine::RequestKey>* aborted);
  // Drops the newest batch when it scheduled nothing (it would execute nothing; vLLM only
  // uses it to send finished ids to the workers).
  void discard_newest_empty();
  std::uint64_t num_batches_scheduled() const { return next_batch_id_; }

 private:
  std::unique_ptr<Scheduler> scheduler_;
  std::vector<InFlightBatch> ring_;
  std::int32_t head_ = 0;  // oldest
  std::int32_t count_ = 0;
  std::uint64_t next_batch_id_ = 0;
  std::vector<ReqRef> aborts_queue_;
  bool python_set_order_ = false;
};

}  // namespace blis::vllm
