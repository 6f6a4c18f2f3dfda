// The driver's input phase: arrivals and client aborts (FORMAT.md "The driving loop"),
// and handing a scheduled batch to the mock model.

#include <algorithm>

#include "conform/conform_driver.h"

namespace blis::vllm::conform {

std::pair<std::size_t, std::size_t> Driver::aborts_of(std::int32_t step) const {
  const auto lo =
      std::lower_bound(aborts_.begin(), aborts_.end(), step,
                       [&](std::size_t i, std::int32_t s) { return c_.aborts[i].step < s; });
  const auto hi =
      std::upper_bound(aborts_.begin(), aborts_.end(), step,
                       [&](std::int32_t s, std::size_t i) { return s < c_.aborts[i].step; });
  return {static_cast<std::size_t>(lo - aborts_.begin()),
          static_cast<std::size_t>(hi - aborts_.begin())};
}

void Driver::add_arrivals(std::int32_t step) {
  for (; next_arrival_ < arrivals_.size(); ++next_arrival_) {
    const std::size_t i = arrivals_[next_arrival_];
    const CaseRequest& r = c_.requests[i];
    if (r.arrival_step > step) break;
    NewRequest nr;
    nr.request_id = r.id;
    nr.key = i;
    nr.prompt_token_ids = r.prompt;
    nr.max_tokens = r.max_tokens;
    nr.priority = r.priority;
    nr.arrival_time = r.arrival_time;
    nr.lora_id = r.lora_id;
    // The mock emits the EOS token's value; check_stop matches it by value (eos_at_output
    // stays with the mock).
    nr.eos_token_id = r.eos_token_id;
    nr.min_tokens = r.min_tokens;
    nr.stop_token_ids = r.stop_token_ids;
    if (hooks_ != nullptr) hooks_->prepare_request(i, nr);
    tracked_[i].ref = sched().add_request(nr);
    live_.push_back(i);
    tracked_[i].arrived = true;
    if (hooks_ != nullptr) hooks_->on_added(step, i, tracked_[i].ref);
  }
}

void Driver::abort_id(const std::string& id, std::int32_t step, ojson& aborted,
                      bool notify_frontend) {
  const auto it = index_of_.find(id);
  if (it == index_of_.end()) return;  // unknown ids are ignored
  TrackedRequest& t = tracked_[it->second];
  const Request* r = sched().find(t.ref);
  if (!t.arrived || r == nullptr) return;  // finished (or not arrived): ignored
  const std::int32_t outputs = r->num_output_tokens();
  const std::int32_t preemptions = r->num_preemptions;
  if (hooks_ != nullptr && notify_frontend) hooks_->on_client_abort(step, it->second, t.ref);
  if (!core_.abort_now(t.ref)) return;
  t.finished = true;
  t.finish_step = step;
  t.finish_reason = "abort";
  t.num_output_tokens = outputs;
  t.num_preemptions = preemptions;
  aborted.push_back(id);
}

void Driver::apply_aborts(std::int32_t step, bool during_step, std::int32_t now, ojson& aborted) {
  const auto [lo, hi] = aborts_of(step);
  for (std::size_t k = lo; k < hi; ++k) {
    const CaseAbort& a = c_.aborts[aborts_[k]];
    if (a.during_step == during_step)
      abort_id(a.id, now, aborted, /*notify_frontend=*/!during_step);
  }
}

void Driver::queue_during_step_aborts(std::int32_t step) {
  const auto [lo, hi] = aborts_of(step);
  for (std::size_t k = lo; k < hi; ++k) {
    const CaseAbort& a = c_.aborts[aborts_[k]];
    if (!a.during_step) continue;
    const auto it = index_of_.find(a.id);
    if (it == index_of_.end() || !tracked_[it->second].arrived) continue;
    const ReqRef ref = tracked_[it->second].ref;
    if (hooks_ != nullptr && sched().find(ref) != nullptr)
      hooks_->on_client_abort(step, it->second, ref);
    core_.queue_abort(ref);
    queued_aborts_.push_back(it->second);
  }
}

void Driver::dispatch_samples(InFlightBatch& b) {
  // The batch's output is fixed when it runs (async: at dispatch).
  mock_.on_scheduled(b.output);
  mock_.run_batch(b, sched(), valid_drafts_[b.batch_id]);
}

}  // namespace blis::vllm::conform
