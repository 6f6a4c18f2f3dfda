// The driving loop of a conformance case (FORMAT.md "The driving loop" and "Async cases"),
// the trace document around its steps, and the entry points run_case / run_conformance.

#include "conform/conform_driver.h"

#include "conform/conform.h"
#include "engine/vllm/provenance.h"

namespace blis::vllm::conform {

namespace {

// The empty schedule of a step that scheduled nothing.
void empty_schedule(ojson& rec) {
  rec["scheduled"] = ojson::object();
  rec["new_reqs"] = ojson::array();
  rec["resumed"] = ojson::array();
  rec["preempted"] = ojson::array();
}

}  // namespace

ojson Driver::run() {
  ojson steps = ojson::array();
  bool completed = false;
  bool prev_idle = false;
  for (std::int32_t step = 0; step < c_.max_steps; ++step) {
    const bool idle = run_step(step, prev_idle, steps);
    if (!within_budget()) break;
    prev_idle = idle;
    // An idle engine is done once every request has arrived.
    if (idle ? step >= last_arrival_ : all_done(step)) {
      completed = true;
      break;
    }
  }
  return document(steps, completed);
}

bool Driver::run_step(std::int32_t step, bool prev_idle, ojson& steps) {
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
  if (!has_work) {
    steps.push_back(idle_record(step, aborted));
    return true;
  }
  if (async()) {
    rec["batch_scheduled"] = nullptr;
    rec["batch_applied"] = nullptr;
  }
  if (!aborted.empty()) rec["aborted"] = aborted;
  const bool applied = async() ? async_step(step, rec) : sync_step(step, rec);
  record_tail(rec, applied);
  if (hooks_ != nullptr) hooks_->on_step_end(step, rec, applied);
  steps.push_back(rec);
  return false;
}

ojson Driver::idle_record(std::int32_t step, const ojson& aborted) {
  ojson idle = ojson::object();
  idle["step"] = step;
  idle["idle"] = true;
  if (async()) {
    idle["batch_scheduled"] = nullptr;
    idle["batch_applied"] = nullptr;
  }
  if (!aborted.empty()) idle["aborted"] = aborted;
  empty_schedule(idle);
  queue_during_step_aborts(step);
  record_tail(idle, false);
  if (hooks_ != nullptr) hooks_->on_step_end(step, idle, false);
  return idle;
}

bool Driver::sync_step(std::int32_t step, ojson& rec) {
  // vllm engine/core.py EngineCore.step: schedule, execute, process aborts, update.
  InFlightBatch& b = core_.schedule_batch();
  dispatch_samples(b);
  if (hooks_ != nullptr) hooks_->on_scheduled(step, b);
  record_schedule(b, rec);
  queue_during_step_aborts(step);
  apply_batch(step, rec, /*async_fields=*/false);
  return true;
}

bool Driver::async_step(std::int32_t step, ojson& rec) {
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
    empty_schedule(rec);
  }
  queue_during_step_aborts(step);
  if (early_return) return false;
  rec["batch_applied"] = core_.oldest().batch_id;
  apply_batch(step, rec, /*async_fields=*/true);
  return true;
}

ojson Driver::document(const ojson& steps, bool completed) const {
  ojson doc = ojson::object();
  doc["provenance"] = provenance_json();
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
  doc["requests"] = requests_json();
  doc["steps"] = steps;
  return doc;
}

ojson Driver::requests_json() const {
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
  return reqs;
}

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

}  // namespace blis::vllm::conform

namespace blis::vllm {

ConformOutcome run_conformance(std::string_view input_json) {
  ConformOutcome out;
  conform::Case c;
  if (!conform::decode_case(input_json, c, out.diagnostics)) return out;
  conform::Driver d(c);
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
