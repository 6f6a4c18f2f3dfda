#include <algorithm>
#include <map>
#include <optional>

#include "engine/vllm/conform/conform.h"
#include "engine/vllm/conform/conform_hooks.h"
#include "engine/vllm/conform/conform_input.h"
#include "engine/vllm/conform/conform_mock.h"
#include "engine/vllm/engine_core.h"
#include "engine/vllm/metrics/stats.h"
#include "engine/vllm/provenance.h"

namespace blis::vllm {
namespace {

using ojson = nlohmann::ordered_json;

struct TrackedRequest {
  ReqRef ref;
  bool arrived = false;
  bool finished = false;
  std::int32_t finish_step = -1;
  std::string finish_reason;
  std::int32_t num_output_tokens = 0;
  std::int32_t num_preemptions = 0;
  std::int32_t num_ignored_samples = 0;
  std::int32_t stop_reason = -1;
};

// Runs one case (FORMAT.md "The driving loop" and "Async cases").
class Driver {
 public:
  explicit Driver(const conform::Case& c, conform::DriverHooks* hooks = nullptr)
      : c_(c), core_(c.config), mock_(c), tracked_(c.requests.size()), hooks_(hooks) {
    if (hooks_ != nullptr) hooks_->attach(core_);
    for (std::size_t i = 0; i < c.requests.size(); ++i) index_of_[c.requests[i].id] = i;
    for (const conform::CaseRequest& r : c.requests)
      last_arrival_ = std::max(last_arrival_, r.arrival_step);
    // Arrivals and aborts indexed by step (input order kept within a step), so that a step
    // never scans every request.
    for (std::size_t i = 0; i < c.requests.size(); ++i) arrivals_.push_back(i);
    std::stable_sort(arrivals_.begin(), arrivals_.end(), [&](std::size_t a, std::size_t b) {
      return c.requests[a].arrival_step < c.requests[b].arrival_step;
    });
    for (std::size_t i = 0; i < c.aborts.size(); ++i) aborts_.push_back(i);
    std::stable_sort(aborts_.begin(), aborts_.end(), [&](std::size_t a, std::size_t b) {
      return c.aborts[a].step < c.aborts[b].step;
    });
    spec_stats_.reset(c.config.num_speculative_tokens);
  }

  ojson run();
  // False when the trace outgrew conform::kMaxTraceEntries and the run was cut short.
  bool within_budget() const { return trace_entries_ <= conform::kMaxTraceEntries; }

 private:
  bool async() const { return c_.config.async_scheduling; }
  bool spec() const { return c_.config.spec_decode(); }
  bool lora() const { return c_.config.max_loras > 0; }
  // Aborts of `step` (indices into c_.aborts, input order).
  std::pair<std::size_t, std::size_t> aborts_of(std::int32_t step) const;
  Scheduler& sched() { return core_.scheduler(); }
  const std::string& id_of(engine::RequestKey key) const { return c_.requests[key].id; }

  void add_arrivals(std::int32_t step);
  // Applies the aborts of `step` with the given phase, one id at a time, in trace step `now`
  // (their finish step); valid ones are appended to `aborted`.
  void apply_aborts(std::int32_t step, bool during_step, std::int32_t now, ojson& aborted);
  // `notify_frontend`: false for the engine's late copy of a during_step abort.
  void abort_id(const std::string& id, std::int32_t step, ojson& aborted,
                bool notify_frontend = true);
  void queue_during_step_aborts(std::int32_t step);
  void record_schedule(const InFlightBatch& b, ojson& rec);
  void dispatch_samples(InFlightBatch& b);
  void record_spec_schedule(const InFlightBatch& b, ojson& rec) const;
  void record_lora(const SchedulerOutput& out, ojson& rec) const;
  void record_spec_apply(const InFlightBatch& b, const std::vector<std::int32_t>& valid,
                         ojson& rec);
  void record_spec_tail(ojson& rec, bool applied) const;
  void apply_batch(std::int32_t step, ojson& rec, bool async_fields);
  void record_tail(ojson& rec, bool applied);
  bool all_done(std::int32_t step) const {
    return step >= last_arrival_ && !sched().has_requests() && core_.in_flight() == 0;
  }
  const Scheduler& sched() const { return core_.scheduler(); }

  const conform::Case& c_;
  EngineCore core_;
  conform::MockModel mock_;
  std::vector<TrackedRequest> tracked_;
  std::map<std::string, std::size_t> index_of_;
  std::int32_t last_arrival_ = 0;
  std::vector<std::size_t> arrivals_;  // request indices by arrival step
  std::size_t next_arrival_ = 0;
  std::vector<std::size_t> aborts_;  // abort indices by step
  UpdateResult res_;
  SchedulerStats stats_;
  std::map<std::uint64_t, std::vector<std::int32_t>> valid_drafts_;  // by in-flight batch id
  metrics::SpecDecodingStats spec_stats_;  // the applied batch's (spec_decoding_stats)
  bool has_spec_stats_ = false;
  std::int64_t trace_entries_ = 0;
  std::vector<engine::RequestKey> queued_aborts_;  // during-step aborts in the aborts queue
  std::vector<std::size_t> live_;                  // arrived requests still in the scheduler
  conform::DriverHooks* hooks_ = nullptr;          // the ext driver's observer (conform_hooks.h)
};

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
    const conform::CaseRequest& r = c_.requests[i];
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
    const conform::CaseAbort& a = c_.aborts[aborts_[k]];
    if (a.during_step == during_step)
      abort_id(a.id, now, aborted, /*notify_frontend=*/!during_step);
  }
}

void Driver::queue_during_step_aborts(std::int32_t step) {
  const auto [lo, hi] = aborts_of(step);
  for (std::size_t k = lo; k < hi; ++k) {
    const conform::CaseAbort& a = c_.aborts[aborts_[k]];
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

void Driver::record_schedule(const InFlightBatch& b, ojson& rec) {
  const SchedulerOutput& out = b.output;
  ojson scheduled = ojson::object();
  ojson new_reqs = ojson::array();
  ojson resumed = ojson::array();
  ojson preempted = ojson::array();
  for (const ScheduledRequest& e : out.scheduled) {
    scheduled[id_of(e.key)] = e.num_tokens;
    if (e.kind == ScheduledKind::kNew) new_reqs.push_back(id_of(e.key));
  }
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind != ScheduledKind::kResumed) continue;
    // With the V2 model runner resumed requests are sent as new ones (scheduler.py).
    (c_.config.use_v2_model_runner ? new_reqs : resumed).push_back(id_of(e.key));
  }
  for (const engine::RequestKey k : out.preempted) preempted.push_back(id_of(k));
  rec["scheduled"] = scheduled;
  rec["new_reqs"] = new_reqs;
  rec["resumed"] = resumed;
  rec["preempted"] = preempted;

  // req_to_new_blocks: new requests first, then running, then resumed (SchedulerOutput
  // construction order); cached requests without new blocks are left out (allow_none).
  ojson blocks = ojson::object();
  auto add_blocks = [&](const ScheduledRequest& e) {
    ojson ids = ojson::array();
    for (std::int32_t k = e.blocks_begin; k < e.blocks_end; ++k)
      ids.push_back(out.block_ids[static_cast<std::size_t>(k)]);
    blocks[id_of(e.key)] = ojson::array({ids});
  };
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind == ScheduledKind::kNew) add_blocks(e);
  }
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind == ScheduledKind::kRunning && e.blocks_end > e.blocks_begin) add_blocks(e);
  }
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind == ScheduledKind::kResumed && e.blocks_end > e.blocks_begin) add_blocks(e);
  }
  rec["new_block_ids"] = blocks;
  trace_entries_ += static_cast<std::int64_t>(out.scheduled.size());
  if (spec()) record_spec_schedule(b, rec);

  if (async()) {
    ojson samples = ojson::object();
    ojson placeholders = ojson::object();
    std::size_t k = 0;
    for (const ScheduledRequest& e : out.scheduled) {
      if (b.sampled.count(k) > 0)
        samples[id_of(e.key)] = b.sampled.tokens[static_cast<std::size_t>(b.sampled.offsets[k])];
      const Request* r = sched().find(e.ref);
      placeholders[id_of(e.key)] = r != nullptr ? r->num_output_placeholders : 0;
      ++k;
    }
    rec["batch_samples"] = samples;
    rec["placeholders_after_schedule"] = placeholders;
  }
  rec["after_schedule"] = {
      {"num_running", sched().num_running()},
      {"num_waiting", sched().num_waiting()},
      {"num_free_blocks", sched().kv_cache_manager().num_free_blocks()},
      {"num_common_prefix_blocks", ojson::array({out.num_common_prefix_blocks})}};
  if (lora()) record_lora(out, rec);
}

void Driver::record_spec_schedule(const InFlightBatch& b, ojson& rec) const {
  const SchedulerOutput& out = b.output;
  ojson drafts = ojson::object();
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.num_spec_tokens == 0) continue;
    const auto first = out.spec_token_ids.begin() + e.spec_begin;
    drafts[id_of(e.key)] = std::vector<std::int32_t>(first, first + e.num_spec_tokens);
  }
  rec["scheduled_spec_decode_tokens"] = drafts;
  if (!async()) return;
  ojson tokens = ojson::object();
  for (std::size_t k = 0; k < out.scheduled.size(); ++k) {
    if (b.sampled.count(k) == 0) continue;
    const auto first = b.sampled.tokens.begin() + b.sampled.offsets[k];
    tokens[id_of(out.scheduled[k].key)] =
        std::vector<std::int32_t>(first, first + b.sampled.count(k));
  }
  rec["batch_sample_tokens"] = tokens;
}

void Driver::record_lora(const SchedulerOutput& out, ojson& rec) const {
  // Scheduler.skipped_waiting in queue order, and the adapters scheduled this step.
  ojson skipped = ojson::array();
  for (const std::int32_t s : sched().skipped_waiting_queue().in_order())
    skipped.push_back(id_of(sched().slot(s).key));
  std::vector<std::int32_t> loras;
  for (const ScheduledRequest& e : out.scheduled) {
    const std::int32_t id = c_.requests[e.key].lora_id;
    if (id > 0) loras.push_back(id);
  }
  std::sort(loras.begin(), loras.end());
  loras.erase(std::unique(loras.begin(), loras.end()), loras.end());
  rec["after_schedule"]["skipped_waiting"] = skipped;
  rec["after_schedule"]["scheduled_loras"] = loras;
}

void Driver::dispatch_samples(InFlightBatch& b) {
  // The batch's output is fixed when it runs (async: at dispatch).
  mock_.on_scheduled(b.output);
  mock_.run_batch(b, sched(), valid_drafts_[b.batch_id]);
}

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

void Driver::record_spec_tail(ojson& rec, bool applied) const {
  if (applied && has_spec_stats_) {
    const metrics::SpecDecodingStats& s = spec_stats_;
    rec["spec_decoding_stats"] = {{"num_spec_tokens", s.num_spec_tokens},
                                  {"num_drafts", s.num_drafts},
                                  {"num_draft_tokens", s.num_draft_tokens},
                                  {"num_accepted_tokens", s.num_accepted_tokens},
                                  {"num_accepted_tokens_per_pos", s.num_accepted_tokens_per_pos},
                                  {"num_draft_tokens_per_pos", s.num_draft_tokens_per_pos}};
  } else {
    rec["spec_decoding_stats"] = nullptr;
  }
}

void Driver::record_tail(ojson& rec, bool applied) {
  if (!rec.contains("finished")) rec["finished"] = ojson::array();
  rec["num_running"] = sched().num_running();
  rec["num_waiting"] = sched().num_waiting();
  rec["kv_usage"] = sched().kv_cache_manager().usage();
  rec["num_free_blocks"] = sched().kv_cache_manager().num_free_blocks();
  // Prefix-cache stats are taken with the output of an applied batch (make_stats); they
  // cover every admission since the previous one.
  const PrefixCacheStats p = applied ? stats_.prefix_cache_stats : PrefixCacheStats{};
  rec["prefix_requests"] = p.requests;
  rec["prefix_queries"] = p.queries;
  rec["prefix_hits"] = p.hits;
  rec["preempted_prefix_requests"] = p.preempted_requests;
  rec["preempted_prefix_queries"] = p.preempted_queries;
  rec["preempted_prefix_hits"] = p.preempted_hits;
  ojson computed = ojson::object();
  ojson placeholders = ojson::object();
  ojson stale = ojson::object();
  ojson spec_ids = ojson::object();
  // Live requests only (those that left the scheduler are dropped from the list).
  live_.erase(
      std::remove_if(live_.begin(), live_.end(),
                     [&](std::size_t i) { return sched().find(tracked_[i].ref) == nullptr; }),
      live_.end());
  for (const std::size_t i : live_) {
    const Request* r = sched().find(tracked_[i].ref);
    const std::string& id = c_.requests[i].id;
    computed[id] = r->num_computed_tokens;
    placeholders[id] = r->num_output_placeholders;
    if (r->num_stale_output_tokens != 0) stale[id] = r->num_stale_output_tokens;
    if (!r->spec_token_ids.empty()) spec_ids[id] = r->spec_token_ids;
  }
  trace_entries_ += static_cast<std::int64_t>(live_.size()) + conform::kTraceEntriesPerStep;
  if (spec()) record_spec_tail(rec, applied);
  rec["num_computed_tokens"] = computed;
  if (spec()) rec["spec_token_ids"] = spec_ids;
  if (async()) {
    ojson in_flight = ojson::array();
    for (std::int32_t k = 0; k < core_.in_flight(); ++k)
      in_flight.push_back(core_.in_flight_batch(k).batch_id);
    rec["in_flight"] = in_flight;
    rec["num_output_placeholders"] = placeholders;
    rec["num_stale_output_tokens"] = stale;
  }
}

ojson Driver::run() {
  ojson steps = ojson::array();
  bool completed = false;
  bool prev_idle = false;
  std::int32_t step = 0;
  for (; step < c_.max_steps; ++step) {
    ojson rec = ojson::object();
    rec["step"] = step;
    ojson aborted = ojson::array();
    if (async()) {
      // The input loop: while the engine was idle, the aborts queue's copies are dropped
      // (each abort also sits in the input queue); copies of aborts that arrived during the
      // previous step are applied now.
      if (prev_idle) {
        core_.drop_queued_aborts();
        queued_aborts_.clear();
      }
      if (step > 0) apply_aborts(step - 1, /*during_step=*/true, step, aborted);
    }
    add_arrivals(step);
    apply_aborts(step, /*during_step=*/false, step, aborted);
    const bool has_work = sched().has_requests() || core_.in_flight() > 0;
    if (async()) {
      rec["batch_scheduled"] = nullptr;
      rec["batch_applied"] = nullptr;
    }
    if (!aborted.empty()) rec["aborted"] = aborted;
    if (!has_work) {
      ojson idle = ojson::object();
      idle["step"] = step;
      idle["idle"] = true;
      if (async()) {
        idle["batch_scheduled"] = nullptr;
        idle["batch_applied"] = nullptr;
      }
      if (!aborted.empty()) idle["aborted"] = aborted;
      idle["scheduled"] = ojson::object();
      idle["new_reqs"] = ojson::array();
      idle["resumed"] = ojson::array();
      idle["preempted"] = ojson::array();
      queue_during_step_aborts(step);
      record_tail(idle, false);
      if (hooks_ != nullptr) hooks_->on_step_end(step, idle, false);
      steps.push_back(idle);
      if (!within_budget()) break;
      prev_idle = true;
      if (step >= last_arrival_) {
        completed = true;
        ++step;
        break;
      }
      continue;
    }
    prev_idle = false;
    bool applied = false;
    if (!async()) {
      // vllm engine/core.py EngineCore.step: schedule, execute, process aborts, update.
      InFlightBatch& b = core_.schedule_batch();
      dispatch_samples(b);
      if (hooks_ != nullptr) hooks_->on_scheduled(step, b);
      record_schedule(b, rec);
      queue_during_step_aborts(step);
      apply_batch(step, rec, /*async_fields=*/false);
      applied = true;
    } else {
      // vllm engine/core.py EngineCore.step_with_batch_queue.
      bool early_return = false;
      if (sched().has_requests()) {
        InFlightBatch& b = core_.schedule_batch();
        dispatch_samples(b);
        if (hooks_ != nullptr) hooks_->on_scheduled(step, b);
        rec["batch_scheduled"] = b.batch_id;
        record_schedule(b, rec);
        // Filling the pipeline beats collecting outputs (FORMAT.md async step 2).
        if (core_.in_flight() < core_.batch_queue_size() &&
            (b.output.total_num_scheduled_tokens > 0 || sched().has_requests())) {
          early_return = true;
          rec["early_return"] = true;
        }
      } else {
        rec["scheduled"] = ojson::object();
        rec["new_reqs"] = ojson::array();
        rec["resumed"] = ojson::array();
        rec["preempted"] = ojson::array();
      }
      queue_during_step_aborts(step);
      if (!early_return) {
        rec["batch_applied"] = core_.oldest().batch_id;
        apply_batch(step, rec, /*async_fields=*/true);
        applied = true;
      }
    }
    record_tail(rec, applied);
    if (hooks_ != nullptr) hooks_->on_step_end(step, rec, applied);
    steps.push_back(rec);
    if (!within_budget()) break;
    if (all_done(step)) {
      completed = true;
      ++step;
      break;
    }
  }

  ojson doc = ojson::object();
  doc["provenance"] = conform::provenance_json();
  doc["config"] = c_.config_echo;
  if (async()) {
    doc["engine"] = {
        {"loop", "EngineCore.step_with_batch_queue (vllm/v1/engine/core.py)"},
        {"scheduler_class", "AsyncScheduler"},
        {"batch_queue_size", core_.batch_queue_size()},
        // vllm config/vllm.py max_in_flight_tokens.
        {"max_in_flight_tokens", core_.batch_queue_size() * c_.config.max_num_batched_tokens}};
  }
  doc["num_steps"] = static_cast<std::int32_t>(steps.size());
  if (async()) doc["num_batches"] = core_.num_batches_scheduled();
  doc["completed"] = completed;
  if (spec()) {
    // What the scheduler derived (Scheduler.__init__, VllmConfig._set_max_num_scheduled_tokens).
    const VllmConfig& cfg = c_.config;
    doc["spec_decode"] = {{"method", to_string(cfg.speculative_method)},
                          {"num_speculative_tokens", cfg.num_speculative_tokens},
                          {"num_lookahead_tokens", cfg.num_lookahead_tokens()},
                          {"use_eagle", cfg.use_eagle()},
                          {"max_num_scheduled_tokens", cfg.token_budget()}};
  }
  ojson reqs = ojson::object();
  for (std::size_t i = 0; i < tracked_.size(); ++i) {
    const TrackedRequest& t = tracked_[i];
    ojson r = ojson::object();
    r["arrival_step"] = c_.requests[i].arrival_step;
    std::int32_t outputs = t.num_output_tokens;
    std::int32_t preemptions = t.num_preemptions;
    if (!t.finished) {
      const Request* live = t.arrived ? sched().find(t.ref) : nullptr;
      outputs = live != nullptr ? live->num_output_tokens() : 0;
      preemptions = live != nullptr ? live->num_preemptions : 0;
    }
    r["finish_step"] = t.finished ? ojson(t.finish_step) : ojson(nullptr);
    r["finish_reason"] = t.finished ? ojson(t.finish_reason) : ojson(nullptr);
    r["num_output_tokens"] = outputs;
    // The traces carry num_preemptions for aborted requests (sync) or always (async), and
    // num_ignored_samples when some were ignored.
    if (async() || t.finish_reason == "abort" || !t.finished) r["num_preemptions"] = preemptions;
    if (async() && t.num_ignored_samples > 0) r["num_ignored_samples"] = t.num_ignored_samples;
    if (t.stop_reason >= 0) r["stop_reason"] = t.stop_reason;  // Request.stop_reason
    reqs[c_.requests[i].id] = r;
  }
  doc["requests"] = reqs;
  doc["steps"] = steps;
  return doc;
}

}  // namespace

namespace conform {
ojson provenance_json() {
  const engine::Provenance prov = engine_provenance();
  return ojson{{"engine", prov.kind},
               {"release", prov.release},
               {"upstream_repo", prov.upstream_repo},
               {"upstream_commit", prov.upstream_commit}};
}

ojson run_case(const Case& c, DriverHooks* hooks) {
  Driver d(c, hooks);
  return d.run();
}
}  // namespace conform

ConformOutcome run_conformance(std::string_view input_json) {
  ConformOutcome out;
  conform::Case c;
  if (!conform::decode_case(input_json, c, out.diagnostics)) return out;
  Driver d(c);
  try {
    out.trace_json = d.run().dump(1);
  } catch (const std::exception& e) {
    // An engine invariant failed: report it rather than abort.
    out.diagnostics.push_back({"", std::string("the engine stopped: ") + e.what()});
    return out;
  }
  if (!d.within_budget()) {
    out.trace_json.clear();
    out.diagnostics.push_back(
        {"/max_steps", "the trace would exceed " + std::to_string(conform::kMaxTraceEntries) +
                           " JSON values; lower max_steps or the number of requests"});
    return out;
  }
  out.ok = true;
  return out;
}

}  // namespace blis::vllm
