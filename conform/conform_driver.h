#pragma once
// The conformance driver's state (internal to conform/): one case run through the engine
// core, recorded as FORMAT.md's trace. run_case (conform_hooks.h) and run_conformance
// (conform.h) are its entry points.

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "conform/conform_hooks.h"
#include "conform/conform_input.h"
#include "conform/conform_mock.h"
#include "engine/vllm/engine_core.h"
#include "engine/vllm/metrics/stats.h"

namespace blis::vllm::conform {

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

// Runs one case (FORMAT.md "The driving loop" and "Async cases"). The loop is in
// conform_driver.cpp, arrivals and aborts in conform_requests.cpp, the record of a schedule
// in conform_record.cpp and of an applied batch in conform_apply.cpp.
class Driver {
 public:
  explicit Driver(const Case& c, DriverHooks* hooks = nullptr)
      : c_(c), core_(c.config), mock_(c), tracked_(c.requests.size()), hooks_(hooks) {
    core_.set_python_set_order(true);  // the traces' CPython (PYTHONHASHSEED=0)
    if (hooks_ != nullptr) hooks_->attach(core_);
    for (std::size_t i = 0; i < c.requests.size(); ++i) index_of_[c.requests[i].id] = i;
    for (const CaseRequest& r : c.requests) last_arrival_ = std::max(last_arrival_, r.arrival_step);
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
  // False when the trace outgrew kMaxTraceEntries and the run was cut short.
  bool within_budget() const { return trace_entries_ <= kMaxTraceEntries; }

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
  // The updates of the applied batch into `rec` (finished, reasons, delivered, ...).
  void record_updates(std::int32_t step, const InFlightBatch& b, ojson& rec, bool async_fields);
  // One loop iteration appended to `steps`; true when the engine had no work (idle step).
  bool run_step(std::int32_t step, bool prev_idle, ojson& steps);
  ojson idle_record(std::int32_t step, const ojson& aborted);
  // EngineCore.step and EngineCore.step_with_batch_queue; true when a batch was applied.
  bool sync_step(std::int32_t step, ojson& rec);
  bool async_step(std::int32_t step, ojson& rec);
  ojson document(const ojson& steps, bool completed) const;
  ojson requests_json() const;
  void record_tail(ojson& rec, bool applied);
  bool all_done(std::int32_t step) const {
    return step >= last_arrival_ && !sched().has_requests() && core_.in_flight() == 0;
  }
  const Scheduler& sched() const { return core_.scheduler(); }

  const Case& c_;
  EngineCore core_;
  MockModel mock_;
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
  DriverHooks* hooks_ = nullptr;                   // the ext driver's observer (conform_hooks.h)
};

}  // namespace blis::vllm::conform
