#include <map>
#include <optional>

#include "engine/vllm/conform/conform.h"
#include "engine/vllm/conform/conform_hooks.h"
#include "engine/vllm/conform/conform_input.h"
#include "engine/vllm/engine_core.h"
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
};

// Runs one case (FORMAT.md "The driving loop" and "Async cases").
class Driver {
 public:
  explicit Driver(const conform::Case& c, conform::DriverHooks* hooks = nullptr)
      : c_(c), core_(c.config), tracked_(c.requests.size()), hooks_(hooks) {
    if (hooks_ != nullptr) hooks_->attach(core_);
    for (std::size_t i = 0; i < c.requests.size(); ++i) index_of_[c.requests[i].id] = i;
    for (const conform::CaseRequest& r : c.requests)
      last_arrival_ = std::max(last_arrival_, r.arrival_step);
  }

  ojson run();

 private:
  bool async() const { return c_.config.async_scheduling; }
  Scheduler& sched() { return core_.scheduler(); }
  const std::string& id_of(engine::RequestKey key) const { return c_.requests[key].id; }
  // FORMAT.md: token = 1000 + output index, or with per_request also + 100000 x position.
  std::int32_t token_for(engine::RequestKey key, std::int32_t output_index) const {
    const std::int32_t base =
        c_.token_fn_per_request ? 1000 + 100000 * static_cast<std::int32_t>(key) : 1000;
    return base + output_index;
  }

  void add_arrivals(std::int32_t step);
  // Applies the aborts of `step` with the given phase, one id at a time; valid ones are
  // appended to `aborted`.
  void apply_aborts(std::int32_t step, bool during_step, ojson& aborted);
  // `notify_frontend`: false for the engine's late copy of a during_step abort.
  void abort_id(const std::string& id, std::int32_t step, ojson& aborted,
                bool notify_frontend = true);
  void queue_during_step_aborts(std::int32_t step);
  void record_schedule(const InFlightBatch& b, ojson& rec);
  void dispatch_samples(InFlightBatch& b);
  void apply_batch(std::int32_t step, ojson& rec, bool async_fields);
  void record_tail(ojson& rec, bool applied);
  bool all_done(std::int32_t step) const {
    return step >= last_arrival_ && !sched().has_requests() && core_.in_flight() == 0;
  }
  const Scheduler& sched() const { return core_.scheduler(); }

  const conform::Case& c_;
  EngineCore core_;
  std::vector<TrackedRequest> tracked_;
  std::map<std::string, std::size_t> index_of_;
  std::int32_t last_arrival_ = 0;
  UpdateResult res_;
  SchedulerStats stats_;
  conform::DriverHooks* hooks_ = nullptr;  // the ext driver's observer (conform_hooks.h)
};

void Driver::add_arrivals(std::int32_t step) {
  for (std::size_t i = 0; i < c_.requests.size(); ++i) {
    const conform::CaseRequest& r = c_.requests[i];
    if (r.arrival_step != step) continue;
    NewRequest nr;
    nr.request_id = r.id;
    nr.key = i;
    nr.prompt_token_ids = r.prompt;
    nr.max_tokens = r.max_tokens;
    nr.priority = r.priority;
    nr.arrival_time = r.arrival_time;
    if (hooks_ != nullptr) hooks_->prepare_request(i, nr);
    tracked_[i].ref = sched().add_request(nr);
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

void Driver::apply_aborts(std::int32_t step, bool during_step, ojson& aborted) {
  for (const conform::CaseAbort& a : c_.aborts) {
    if (a.step == step && a.during_step == during_step)
      abort_id(a.id, step, aborted, /*notify_frontend=*/!during_step);
  }
}

void Driver::queue_during_step_aborts(std::int32_t step) {
  for (const conform::CaseAbort& a : c_.aborts) {
    if (a.step != step || !a.during_step) continue;
    const auto it = index_of_.find(a.id);
    if (it == index_of_.end() || !tracked_[it->second].arrived) continue;
    const ReqRef ref = tracked_[it->second].ref;
    if (hooks_ != nullptr && sched().find(ref) != nullptr)
      hooks_->on_client_abort(step, it->second, ref);
    core_.queue_abort(ref);
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
}

void Driver::dispatch_samples(InFlightBatch& b) {
  // Every scheduled request that is not in a prefill chunk samples one token. Async: fixed
  // at dispatch, at output position num_output_tokens + placeholders - 1.
  b.sampled.clear();
  for (const ScheduledRequest& e : b.output.scheduled) {
    const Request* r = sched().find(e.ref);
    if (!e.samples || r == nullptr) {
      b.sampled.add(nullptr, 0);
      continue;
    }
    const std::int32_t index =
        r->num_output_tokens() + r->num_output_placeholders - (async() ? 1 : 0);
    const std::int32_t tok = token_for(e.key, index);
    b.sampled.add(&tok, 1);
  }
}

void Driver::apply_batch(std::int32_t step, ojson& rec, bool async_fields) {
  InFlightBatch& b = core_.oldest();
  const SchedulerOutput& out = b.output;
  ojson sampled = ojson::object();
  for (std::size_t k = 0; k < out.scheduled.size(); ++k) {
    if (b.sampled.count(k) > 0)
      sampled[id_of(out.scheduled[k].key)] =
          b.sampled.tokens[static_cast<std::size_t>(b.sampled.offsets[k])];
  }
  std::vector<engine::RequestKey> aborted_keys;
  // Snapshot before the aborts queue runs: aborted requests leave the scheduler.
  std::vector<std::pair<std::int32_t, std::int32_t>> before;  // outputs, preemptions
  for (std::size_t i = 0; i < tracked_.size(); ++i) {
    const Request* r = tracked_[i].arrived ? sched().find(tracked_[i].ref) : nullptr;
    before.emplace_back(r != nullptr ? r->num_output_tokens() : 0,
                        r != nullptr ? r->num_preemptions : 0);
  }
  if (hooks_ != nullptr) hooks_->before_update(step, b);
  core_.apply_oldest(res_, &aborted_keys);
  if (hooks_ != nullptr) hooks_->on_update(step, b);
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
      ojson toks = ojson::array();
      for (std::int32_t t = 0; t < u.num_delivered; ++t) {
        toks.push_back(b.sampled.tokens[static_cast<std::size_t>(b.sampled.offsets[k] + t)]);
      }
      delivered[id] = toks;
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
    }
  }
  if (async_fields) {
    if (!stale.empty()) rec["stale"] = stale;
    if (!ignored.empty()) rec["ignored"] = ignored;
    rec["delivered"] = delivered;
  }
  rec["finished"] = finished;
  rec["finish_reasons"] = reasons;
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
  for (std::size_t i = 0; i < tracked_.size(); ++i) {
    if (!tracked_[i].arrived) continue;
    const Request* r = sched().find(tracked_[i].ref);
    if (r == nullptr) continue;
    computed[c_.requests[i].id] = r->num_computed_tokens;
    placeholders[c_.requests[i].id] = r->num_output_placeholders;
    if (r->num_stale_output_tokens != 0) stale[c_.requests[i].id] = r->num_stale_output_tokens;
  }
  rec["num_computed_tokens"] = computed;
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
      if (prev_idle) core_.drop_queued_aborts();
      if (step > 0) apply_aborts(step - 1, /*during_step=*/true, aborted);
    }
    add_arrivals(step);
    apply_aborts(step, /*during_step=*/false, aborted);
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
    if (all_done(step)) {
      completed = true;
      ++step;
      break;
    }
  }

  ojson doc = ojson::object();
  const engine::Provenance prov = engine_provenance();
  doc["provenance"] = {{"engine", prov.kind},
                       {"release", prov.release},
                       {"upstream_repo", prov.upstream_repo},
                       {"upstream_commit", prov.upstream_commit}};
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
    reqs[c_.requests[i].id] = r;
  }
  doc["requests"] = reqs;
  doc["steps"] = steps;
  return doc;
}

}  // namespace

namespace conform {
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
  out.trace_json = d.run().dump(1);
  out.ok = true;
  return out;
}

}  // namespace blis::vllm
