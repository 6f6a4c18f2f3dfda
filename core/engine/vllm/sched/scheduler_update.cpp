// Scheduler, applying a step's output (vllm v1/core/sched/scheduler.py
// Scheduler.update_from_output and update_draft_token_ids).

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/sched/scheduler.h"
#include "engine/vllm/sched/utils.h"
#include "util/contains.h"

namespace blis::vllm {

std::int32_t Scheduler::update_request_with_output(Request& r, const std::int32_t* tokens,
                                                   std::int32_t n, bool /*is_stale*/,
                                                   bool& stopped) {
  stopped = false;
  for (std::int32_t k = 0; k < n; ++k) {
    append_output_token(r, tokens[k]);
    // Only a token that fills a block can add a hash (block_hashes covers every full block
    // after each append, see set_connector): the check leaves the hash list's line untouched.
    if (hashes_blocks() && r.num_tokens() % cfg_.block_size == 0)
      update_block_hashes(r, cfg_.block_size);
    if (check_stop(r, cfg_.max_model_len)) {
      stopped = true;  // tokens past the stop are dropped
      return k + 1;
    }
  }
  return n;
}

void Scheduler::remove_stopped_requests() {
  // Remove stopped requests, keeping the order of the rest (utils.py remove_all). A request
  // can stop while PREEMPTED (its in-flight output arrived after the preemption).
  if (!stopped_running_.empty()) {
    running_.erase(std::remove_if(running_.begin(), running_.end(),
                                  [&](std::int32_t s) {
                                    return std::find(stopped_running_.begin(),
                                                     stopped_running_.end(),
                                                     s) != stopped_running_.end();
                                  }),
                   running_.end());
  }
  if (!stopped_preempted_.empty()) {
    waiting_->remove_requests(stopped_preempted_);
    skipped_waiting_->remove_requests(stopped_preempted_);
  }
}

void Scheduler::update_from_output(const SchedulerOutput& out, const ModelRunnerOutput& mro,
                                   UpdateResult& res) {
  // vllm scheduler.py Scheduler.update_from_output.
  res.clear();
  // Every GPU write of this and earlier steps is done: deferred frees may return now.
  if (defer_block_free_ && out.total_num_scheduled_tokens > 0) {
    ++processed_step_seq_;
    drain_deferred_frees();
  }
  stopped_running_.clear();
  stopped_preempted_.clear();
  to_release_.clear();
  if (mro.offsets.size() != out.scheduled.size() + 1) {
    throw std::logic_error("update_from_output: one output per scheduled request expected");
  }
  // scheduler.py update_from_output: blocks the connector failed to load roll their requests
  // back (or fail them) before the outputs are applied (_handle_invalid_blocks).
  kv_failed_scratch_.clear();
  if (!mro.invalid_block_ids.empty())
    handle_invalid_blocks(mro.invalid_block_ids, &out, kv_failed_scratch_);
  for (std::size_t i = 0; i < out.scheduled.size(); ++i) {
    const ScheduledRequest& e = out.scheduled[i];
    // Built in place (every path below yields exactly one update, in order): a stack copy
    // pushed afterwards stalls on store forwarding (perf).
    RequestUpdate& u = res.updates.emplace_back();
    u.ref = e.ref;
    u.key = e.key;
    u.num_sampled = mro.count(i);
    Request* r = find(e.ref);
    bool stale = false;
    if (r != nullptr) {
      r->num_in_flight_tokens -= e.num_tokens;
      // Drain the stale share (see preempt_request) in lockstep.
      if (r->num_stale_output_tokens > 0) {
        stale = true;
        r->num_stale_output_tokens -= e.num_tokens;
        if (r->num_stale_output_tokens < 0) throw std::logic_error("negative stale output tokens");
      }
    }
    // scheduler.py: "skip failed or rescheduled requests from KV load failure".
    if (r != nullptr && !kv_failed_scratch_.empty() && contains(kv_failed_scratch_, e.ref.index)) {
      u.disposition =
          u.num_sampled > 0 ? OutputDisposition::kIgnored : OutputDisposition::kNoOutput;
      u.status = r->status;
      u.num_output_tokens = r->num_output_tokens();
      continue;
    }
    // Aborted (or finished) while the model ran: its output is ignored.
    if (r == nullptr || is_finished(r->status)) {
      u.disposition =
          u.num_sampled > 0 ? OutputDisposition::kIgnored : OutputDisposition::kNoOutput;
      u.status = r != nullptr ? r->status : RequestStatus::kFinishedAborted;
      continue;
    }
    u.stale = stale;
    if (stale && r->drop_stale_output) {  // drop-mode stale output (same-step resume)
      u.disposition = OutputDisposition::kStaleDropped;
      u.status = r->status;
      u.num_output_tokens = r->num_output_tokens();
      continue;
    }
    const std::int32_t* tokens = mro.tokens.data() + mro.offsets[i];
    // Spec decode: rejected drafts roll num_computed_tokens (and async placeholders) back;
    // a stale count predates the preemption's reset and must not apply.
    // The verification counts for SpecDecodingStats are taken for stale output too.
    if (e.num_spec_tokens > 0 && u.num_sampled > 0) {
      u.num_draft_tokens = e.num_spec_tokens;
      u.num_accepted_tokens = std::max(u.num_sampled - 1, 0);
      const std::int32_t rejected = u.num_draft_tokens - u.num_accepted_tokens;
      if (!stale) {
        if (r->num_computed_tokens > 0) r->num_computed_tokens -= rejected;
        if (r->num_output_placeholders > 0) r->num_output_placeholders -= rejected;
      }
    }
    const RequestStatus status_before = r->status;
    const std::int32_t outputs_before = r->num_output_tokens();
    bool stopped = false;
    if (u.num_sampled > 0) {
      u.num_delivered = update_request_with_output(*r, tokens, u.num_sampled, stale, stopped);
      u.disposition = stale ? OutputDisposition::kStaleDelivered : OutputDisposition::kDelivered;
    }
    u.first_token = outputs_before == 0 && u.num_delivered > 0;
    u.stopped = stopped;
    u.status = r->status;
    u.num_output_tokens = r->num_output_tokens();
    u.num_cached_tokens = r->num_cached_tokens;
    u.num_prefill_cached_tokens = r->prefill_cached_tokens;
    u.num_external_computed_tokens = r->num_external_computed_tokens;
    u.num_preemptions = r->num_preemptions;
    u.stop_reason = r->stop_reason;
    if (stopped) {
      free_request(e.ref.index, false, &res);
      (status_before == RequestStatus::kRunning ? stopped_running_ : stopped_preempted_)
          .push_back(e.ref.index);
      res.finished.push_back(e.key);
    }
  }
  remove_stopped_requests();
  for (const std::int32_t s : to_release_) release_slot(s);
  to_release_.clear();
  // scheduler.py: under kv_load_failure_policy "fail" the affected requests finish with
  // FINISHED_ERROR (error_req_ids), after the stopped ones left the queues.
  if (!kv_failed_scratch_.empty() && !cfg_.recompute_kv_load_failures)
    finish_with_error(kv_failed_scratch_);
  res.errored.swap(errored_);
  errored_.clear();
}

void Scheduler::update_draft_token_ids(const SchedulerOutput& out,
                                       const ModelRunnerOutput* drafts) {
  // vllm scheduler.py Scheduler.update_draft_token_ids: finished requests are skipped; drafts
  // for prefill chunks are dropped.
  if (cfg_.num_speculative_tokens <= 0) return;
  const bool given = drafts != nullptr && drafts->offsets.size() == out.scheduled.size() + 1;
  for (std::size_t i = 0; i < out.scheduled.size(); ++i) {
    Request* r = find(out.scheduled[i].ref);
    if (r == nullptr || is_finished(r->status)) continue;
    r->clear_spec_tokens();
    if (r->is_prefill_chunk) continue;
    if (given) {
      const std::int32_t* t = drafts->tokens.data() + drafts->offsets[i];
      r->set_spec_tokens(t, t + drafts->count(i));
    } else {
      // No proposer output supplied: k drafts (their values never influence scheduling).
      r->set_spec_tokens(cfg_.num_speculative_tokens, 0);
    }
  }
}

}  // namespace blis::vllm
