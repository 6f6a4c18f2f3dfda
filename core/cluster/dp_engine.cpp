#include "cluster/dp_engine.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace blis::cluster {

DpEngine::DpEngine(std::vector<std::unique_ptr<engine::Engine>> ranks, std::int32_t api_servers)
    : DpRanks(std::move(ranks), api_servers) {}

void DpEngine::add_request(engine::RequestSpec spec, SimTime now) {
  const std::int32_t r = place(spec, now);
  // core.py DPEngineCoreProc.add_request / coordinator START_DP_WAVE: a request reaching
  // paused ranks starts the next wave on all of them.
  if (!waves_.engines_running) ++waves_.waves_started;
  waves_.engines_running = true;
  ranks_[static_cast<std::size_t>(r)]->add_request(std::move(spec), now);
}

bool DpEngine::can_schedule(SimTime now) const {
  if (in_flight() >= max_concurrent_batches()) return false;
  for (const auto& r : ranks_) {
    if (r->can_schedule(now)) return true;
  }
  // A running wave with nothing to run anywhere still steps: every rank a dummy pass.
  return waves_.engines_running && inflight_.empty();
}

const engine::Batch* DpEngine::schedule(SimTime now) {
  if (in_flight() >= max_concurrent_batches()) return nullptr;
  batch_.requests.clear();
  batch_.total_tokens = batch_.prefill_tokens = batch_.decode_tokens = 0;
  batch_.num_sampling = batch_.num_preempted = 0;
  Step step;
  step.slices.resize(ranks_.size());
  bool any = false;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    Slice& sl = step.slices[r];
    sl.offset = batch_.requests.size();
    if (!ranks_[r]->can_schedule(now)) continue;
    const engine::Batch* b = ranks_[r]->schedule(now);
    if (b == nullptr) continue;
    any = true;
    sl.ran = true;
    sl.batch_id = b->id;
    sl.count = b->requests.size();
    for (engine::ScheduledRequest q : b->requests) {
      q.dp_rank = static_cast<std::int32_t>(r);
      batch_.requests.push_back(q);
    }
    batch_.total_tokens += b->total_tokens;
    batch_.prefill_tokens += b->prefill_tokens;
    batch_.decode_tokens += b->decode_tokens;
    batch_.num_sampling += b->num_sampling;
    batch_.num_preempted += b->num_preempted;
  }
  if (!any && !(waves_.engines_running && inflight_.empty())) return nullptr;
  // Every rank without a batch of its own this step runs a dummy pass (run_busy_loop).
  for (const Slice& sl : step.slices) {
    if (!sl.ran) ++waves_.dummy_passes;
  }
  ++waves_.steps;
  step.id = next_id_++;
  batch_.id = step.id;
  inflight_.push_back(std::move(step));
  end_of_step_sync();
  return &batch_;
}

// DPEngineCoreProc._has_global_unfinished_reqs: step_counter += 1, and every 32nd step the
// all-reduce of "has unfinished requests"; none anywhere ends the wave (run_busy_loop:
// current_wave += 1, step_counter = 0, rank 0 tells the coordinator wave_complete).
void DpEngine::end_of_step_sync() {
  ++waves_.step_counter;
  if (waves_.step_counter % kSyncEverySteps != 0) return;
  bool unfinished = false;
  for (const auto& r : ranks_) unfinished = unfinished || !r->idle();
  if (unfinished) return;
  waves_.engines_running = false;
  ++waves_.current_wave;
  ++waves_.waves_completed;
  waves_.step_counter = 0;
}

const engine::StepEvents& DpEngine::complete(std::uint64_t batch_id,
                                             const engine::StepOutcome& outcome, SimTime now) {
  if (inflight_.empty() || inflight_.front().id != batch_id)
    throw std::logic_error("DpEngine: completing a step that is not the oldest in flight");
  const Step step = std::move(inflight_.front());
  inflight_.pop_front();
  events_.progress.clear();
  events_.transfers.clear();
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    const Slice& sl = step.slices[r];
    if (!sl.ran) continue;
    scratch_outcome_.accepted_drafts.clear();
    if (!outcome.accepted_drafts.empty()) {
      const auto first = outcome.accepted_drafts.begin() + static_cast<std::ptrdiff_t>(sl.offset);
      scratch_outcome_.accepted_drafts.assign(first, first + static_cast<std::ptrdiff_t>(sl.count));
    }
    const engine::StepEvents& ev = ranks_[r]->complete(sl.batch_id, scratch_outcome_, now);
    for (const engine::RequestProgress& p : ev.progress) {
      events_.progress.push_back(p);
      note_progress(p);
    }
    for (const engine::TransferRequest& t : ev.transfers)
      events_.transfers.push_back(tagged(t, static_cast<std::int32_t>(r)));
  }
  return events_;
}

bool DpEngine::idle() const {
  if (waves_.engines_running || !inflight_.empty()) return false;
  for (const auto& r : ranks_) {
    if (!r->idle()) return false;
  }
  return true;
}

}  // namespace blis::cluster
