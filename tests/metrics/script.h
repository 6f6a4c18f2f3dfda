#pragma once
// A small driver for MetricsRecorder tests: builds EngineCoreOutputs batches the way an engine
// would (events as they happen, outputs of the step, the scheduler snapshot) and reads
// values back from the Prometheus logger.

#include <cstdint>
#include <string>

#include "engine/vllm/metrics/recorder.h"
#include "util/sim_time.h"

namespace blis::vllm::metrics::testing {

inline SimTime ms(std::int64_t v) {
  return v * kMicrosPerMilli;
}

inline RecorderConfig basic_config(Release release = kDefaultRelease) {
  // Built, not assigned: GCC 12 warns falsely (-Wrestrict) on assigning a short literal to
  // a std::string member once this is inlined.
  return RecorderConfig{
      .release = release, .model_name = "m", .engine_index = 0, .max_model_len = 4096};
}

class Script {
 public:
  explicit Script(RecorderConfig config, SimTime start = 0) : rec(std::move(config), start) {}

  void add(RequestHandle h, std::int32_t prompt, SimTime arrival = 0, std::int32_t max_tokens = 0,
           std::int32_t lora = 0) {
    RequestInfo info;
    info.arrival_time = arrival;
    info.num_prompt_tokens = prompt;
    info.max_tokens = max_tokens;
    rec.add_request(h, info, lora);
  }
  void event(RequestHandle h, EngineCoreEventType type, SimTime t) {
    batch.events.push_back(EngineCoreEvent{h, type, t});
  }
  void queued(RequestHandle h, SimTime t) { event(h, EngineCoreEventType::kQueued, t); }
  void scheduled(RequestHandle h, SimTime t) { event(h, EngineCoreEventType::kScheduled, t); }
  void preempted(RequestHandle h, SimTime t) { event(h, EngineCoreEventType::kPreempted, t); }
  void out(RequestHandle h, std::int32_t tokens, FinishReason finish = FinishReason::kNone,
           std::int32_t cached = 0, std::int32_t external = 0) {
    EngineCoreOutput o;
    o.request = h;
    o.num_new_tokens = tokens;
    o.finish_reason = finish;
    o.num_cached_tokens = cached;
    o.num_external_computed_tokens = external;
    batch.outputs.push_back(o);
  }
  SchedulerStats& sched() {
    batch.has_scheduler_stats = true;
    return batch.scheduler_stats;
  }
  void flush(SimTime t) {
    batch.timestamp = t;
    rec.record(batch);
    batch.clear();
  }

  double value(const char* family, const char* label = "") const {
    auto v = rec.prometheus().value(family, label);
    return v ? *v : -1.0;
  }
  std::uint64_t count(const char* family) const {
    auto h = rec.prometheus().histogram(family);
    return h ? h->count : 0;
  }
  double sum(const char* family) const {
    auto h = rec.prometheus().histogram(family);
    return h ? h->sum : -1.0;
  }
  // Observations in the bucket whose upper bound is `le` (not cumulative).
  std::uint64_t bucket(const char* family, double le) const {
    auto h = rec.prometheus().histogram(family);
    if (!h) return 0;
    for (std::size_t i = 0; i < h->bounds->size(); ++i) {
      if ((*h->bounds)[i] == le) return (*h->bucket_counts)[i];
    }
    return 0;
  }

  MetricsRecorder rec;
  EngineCoreOutputs batch;
};

}  // namespace blis::vllm::metrics::testing
