// Applying the oldest batch (Scheduler.update_from_output) and what the trace records of it.

#include <map>

#include "conform/conform_driver.h"

namespace blis::vllm::conform {

void Driver::apply_batch(std::int32_t step, ojson& rec, bool async_fields) {
  InFlightBatch& b = core_.oldest();
  const SchedulerOutput& out = b.output;
  ojson sampled = ojson::object();
  ojson sampled_tokens = ojson::object();
  for (std::size_t k = 0; k < out.scheduled.size(); ++k) {
    if (b.sampled.count(k) == 0) continue;
    const auto first = b.sampled.tokens.begin() + b.sampled.offsets[k];
    sampled[id_of(out.scheduled[k].key)] = *first;
    sampled_tokens[id_of(out.scheduled[k].key)] =
        std::vector<std::int32_t>(first, first + b.sampled.count(k));
  }
  // Snapshot the requests the aborts queue will finish: aborted requests leave the scheduler.
  std::map<engine::RequestKey, std::pair<std::int32_t, std::int32_t>> before;
  for (const engine::RequestKey key : queued_aborts_) {
    const Request* r = sched().find(tracked_[key].ref);
    if (r != nullptr) before[key] = {r->num_output_tokens(), r->num_preemptions};
  }
  queued_aborts_.clear();
  std::vector<engine::RequestKey> aborted_keys;
  if (hooks_ != nullptr) hooks_->before_update(step, b);
  core_.apply_oldest(res_, &aborted_keys);
  if (hooks_ != nullptr) hooks_->on_update(step, b);
  mock_.on_applied(b);
  stats_ = sched().make_stats();
  if (hooks_ != nullptr) hooks_->on_applied(step, b, res_, stats_);
  if (!aborted_keys.empty()) {
    ojson ab = ojson::array();
    for (const engine::RequestKey k : aborted_keys) {
      ab.push_back(id_of(k));
      TrackedRequest& t = tracked_[k];
      t.finished = true;
      t.finish_step = step;
      t.finish_reason = "abort";
      t.num_output_tokens = before[k].first;
      t.num_preemptions = before[k].second;
    }
    rec["aborted_before_update"] = ab;
  }
  rec["sampled"] = sampled;
  if (spec()) rec["sampled_tokens"] = sampled_tokens;
  record_updates(step, b, rec, async_fields);
  if (spec() && !async() && out.total_num_scheduled_tokens > 0) {
    // EngineCore.post_step: the drafts handed to update_draft_token_ids, for live requests.
    ojson proposed = ojson::object();
    for (std::size_t k = 0; k < out.scheduled.size(); ++k) {
      if (sched().find(out.scheduled[k].ref) == nullptr) continue;
      const auto first = b.drafts.tokens.begin() + b.drafts.offsets[k];
      proposed[id_of(out.scheduled[k].key)] =
          std::vector<std::int32_t>(first, first + b.drafts.count(k));
    }
    rec["proposed_drafts"] = proposed;
  }
}

void Driver::record_updates(std::int32_t step, const InFlightBatch& b, ojson& rec,
                            bool async_fields) {
  ojson finished = ojson::array();
  ojson reasons = ojson::object();
  ojson delivered = ojson::object();
  ojson stale = ojson::array();
  ojson ignored = ojson::array();
  for (std::size_t k = 0; k < res_.updates.size(); ++k) {
    const RequestUpdate& u = res_.updates[k];
    const std::string& id = id_of(u.key);
    if (u.disposition == OutputDisposition::kIgnored) {
      ignored.push_back(id);
      ++tracked_[u.key].num_ignored_samples;
    }
    // Trace 19: a stale entry is listed even when it sampled nothing (a prefill chunk).
    if (u.stale) stale.push_back(id);
    if (u.disposition == OutputDisposition::kDelivered ||
        u.disposition == OutputDisposition::kStaleDelivered) {
      const auto first = b.sampled.tokens.begin() + b.sampled.offsets[k];
      delivered[id] = std::vector<std::int32_t>(first, first + u.num_delivered);
    }
    if (u.stopped) {
      finished.push_back(id);
      reasons[id] = finish_reason_name(u.status);
      TrackedRequest& t = tracked_[u.key];
      t.finished = true;
      t.finish_step = step;
      t.finish_reason = finish_reason_name(u.status);
      t.num_output_tokens = u.num_output_tokens;
      t.num_preemptions = u.num_preemptions;
      t.stop_reason = u.stop_reason;
    }
  }
  trace_entries_ += static_cast<std::int64_t>(res_.updates.size());
  if (async_fields) {
    if (!stale.empty()) rec["stale"] = stale;
    if (!ignored.empty()) rec["ignored"] = ignored;
  }
  if (spec()) record_spec_apply(b, valid_drafts_[b.batch_id], rec);
  valid_drafts_.erase(b.batch_id);
  // Sync traces list delivered tokens once stops or spec decode can trim or extend them.
  if (async_fields || spec() || c_.has_stop_conditions) rec["delivered"] = delivered;
  rec["finished"] = finished;
  rec["finish_reasons"] = reasons;
}

void Driver::record_spec_apply(const InFlightBatch& b, const std::vector<std::int32_t>& valid,
                               ojson& rec) {
  // scheduler.py update_from_output: each verified request's counts, and the step's
  // SpecDecodingStats (make_spec_decoding_stats -> observe_draft).
  spec_stats_.reset(c_.config.num_speculative_tokens);
  has_spec_stats_ = false;
  ojson verify = ojson::object();
  for (std::size_t k = 0; k < res_.updates.size(); ++k) {
    const RequestUpdate& u = res_.updates[k];
    if (u.num_draft_tokens == 0) continue;
    has_spec_stats_ = true;
    spec_stats_.observe_draft(u.num_draft_tokens, u.num_accepted_tokens);
    verify[id_of(u.key)] = {{"num_draft_tokens", u.num_draft_tokens},
                            {"num_valid_drafts", k < valid.size() ? valid[k] : 0},
                            {"num_accepted", u.num_accepted_tokens},
                            {"num_rejected", u.num_draft_tokens - u.num_accepted_tokens}};
  }
  (void)b;
  rec["spec_verify"] = verify;
}

}  // namespace blis::vllm::conform
