#include "engine/vllm/metrics/recorder.h"

#include <stdexcept>

namespace blis::vllm::metrics {
namespace {

PrometheusConfig prometheus_config(const RecorderConfig& c, SimTime start) {
  PrometheusConfig p;
  p.release = c.release;
  p.model_name = c.model_name;
  p.engine_index = c.engine_index;
  p.max_model_len = c.max_model_len;
  p.num_speculative_tokens = c.num_speculative_tokens;
  p.lora_enabled = c.lora_enabled;
  p.max_loras = c.max_loras;
  p.cache_config_info = c.cache_config_info;
  p.created_at = start;
  p.register_cache_config_info = c.register_cache_config_info;
  p.connector = c.connector;
  p.offload_store_threshold = c.offload_store_threshold;
  return p;
}

LoRARequestStates::Status lora_status_after(EngineCoreEventType type) {
  // stats.py update_from_events: QUEUED and PREEMPTED -> request_waiting,
  // SCHEDULED -> request_running.
  return type == EngineCoreEventType::kScheduled ? LoRARequestStates::Status::kRunning
                                                 : LoRARequestStates::Status::kWaiting;
}

}  // namespace

MetricsRecorder::MetricsRecorder(RecorderConfig config, SimTime start)
    : config_(std::move(config)),
      start_(start),
      prometheus_(std::make_unique<PrometheusStatLogger>(prometheus_config(config_, start))),
      logging_(config_.engine_index, start, config_.max_recent_requests),
      lora_states_(config_.lora_names) {}

void MetricsRecorder::set_connector(ConnectorMetrics connector, bool offload_store_threshold) {
  config_.connector = connector;
  config_.offload_store_threshold = offload_store_threshold;
  prometheus_ = std::make_unique<PrometheusStatLogger>(prometheus_config(config_, start_));
}

bool MetricsRecorder::active(RequestHandle handle) const {
  return handle >= 0 && static_cast<std::size_t>(handle) < requests_.size() &&
         requests_[static_cast<std::size_t>(handle)].active;
}

void MetricsRecorder::add_request(RequestHandle handle, const RequestInfo& info,
                                  std::int32_t lora_id) {
  if (handle < 0) throw std::invalid_argument("metrics: negative request handle");
  if (active(handle)) throw std::invalid_argument("metrics: request handle already in use");
  const auto index = static_cast<std::size_t>(handle);
  if (index >= requests_.size()) requests_.resize(index + 1);
  RequestState& s = requests_[index];
  s = RequestState{};
  s.active = true;
  s.prompt_len = info.num_prompt_tokens;
  s.max_tokens = info.max_tokens;
  s.n = info.n > 0 ? info.n : 1;
  s.parent = info.parent;
  s.lora_id = config_.lora_enabled ? lora_id : 0;
  s.stats.arrival_time = info.arrival_time;
  if (info.parent >= 0) {
    const auto p = static_cast<std::size_t>(info.parent);
    if (p >= parents_.size()) parents_.resize(p + 1);
    if (parents_[p].open_children == 0) parents_[p] = ParentState{};
    ++parents_[p].open_children;
  }
}

// output_processor.py _update_stats_from_finished, then ParentRequest.observe_finished_request:
// max_num_generation_tokens and n are observed once per user request, when its last child
// finishes.
void MetricsRecorder::finish(RequestState& s, FinishReason reason) {
  iteration_.update_from_finished_request(reason, s.prompt_len, s.max_tokens, s.stats,
                                          s.num_cached_tokens);
  iteration_.finished_requests.back().request = static_cast<RequestHandle>(&s - requests_.data());
  if (s.lora_id > 0)
    lora_states_.update(s.lora_id, s.lora_status, LoRARequestStates::Status::kNone);
  std::int32_t generated = s.stats.num_generation_tokens;
  bool last_child = true;
  if (s.parent >= 0) {
    ParentState& p = parents_[static_cast<std::size_t>(s.parent)];
    if (generated > p.max_num_generation_tokens) p.max_num_generation_tokens = generated;
    generated = p.max_num_generation_tokens;
    --p.open_children;
    last_child = p.open_children <= 0;
  }
  if (last_child) {
    iteration_.max_num_generation_tokens_iter.push_back(generated);
    iteration_.n_params_iter.push_back(s.parent >= 0 ? s.n : 1);
  }
  s.active = false;
}

void MetricsRecorder::abort_request(RequestHandle handle) {
  if (!active(handle)) return;
  RequestState& s = requests_[static_cast<std::size_t>(handle)];
  if (s.lora_id > 0)
    lora_states_.update(s.lora_id, s.lora_status, LoRARequestStates::Status::kNone);
  if (s.parent >= 0) --parents_[static_cast<std::size_t>(s.parent)].open_children;
  s.active = false;
}

void MetricsRecorder::record_event(const EngineCoreEvent& e) {
  if (active(e.request)) requests_[static_cast<std::size_t>(e.request)].pending.add(e);
}

void MetricsRecorder::record(const EngineCoreOutputs& batch) {
  // Engine-core events travel with the request's next output (Request.take_events).
  for (const EngineCoreEvent& e : batch.events) record_event(e);
  // AsyncLLM output handler: IterationStats only for a batch with outputs.
  const bool has_outputs = !batch.outputs.empty();
  last_num_outputs_ = batch.outputs.size();
  last_had_outputs_ = has_outputs;
  if (has_outputs) iteration_.reset(batch.timestamp);
  for (const EngineCoreOutput& out : batch.outputs) {
    if (!active(out.request)) continue;
    RequestState& s = requests_[static_cast<std::size_t>(out.request)];
    if (s.lora_id > 0 && !s.pending.empty()) {
      const auto to = lora_status_after(s.pending.last_type);
      lora_states_.update(s.lora_id, s.lora_status, to);
      s.lora_status = to;
    }
    iteration_.update_from_output(out, batch.timestamp, s.is_prefilling, s.prompt_len, s.stats,
                                  s.pending);
    // OutputProcessor.process_outputs: the first output carries the prefill stats and ends
    // the prefilling phase, whether or not it brought a token.
    if (s.is_prefilling) {
      s.num_cached_tokens = out.num_cached_tokens;
      s.is_prefilling = false;
    }
    if (out.finish_reason != FinishReason::kNone) finish(s, out.finish_reason);
  }
  const SchedulerStats* sched = batch.has_scheduler_stats ? &batch.scheduler_stats : nullptr;
  const IterationStats* it = has_outputs ? &iteration_ : nullptr;
  prometheus_->record(sched, it);
  // OutputProcessor.update_scheduler_stats fills the LoRA adapters into SchedulerStats, and
  // record() sets the lora_requests_info child to the current time.
  if (sched != nullptr && config_.lora_enabled)
    prometheus_->record_lora_info(lora_states_.adapters(), batch.timestamp);
  logging_.record(sched, it);
}

std::string MetricsRecorder::exposition(std::string_view extra_labels, bool include_created) const {
  ExpositionOptions options;
  options.include_created = include_created;
  std::string error;
  if (!parse_label_list(extra_labels, options.extra_labels, error))
    throw std::invalid_argument("metrics_text: " + error);
  for (const Label& l : options.extra_labels) {
    if (l.first == "model_name" || l.first == "engine") continue;  // replaces the value
    if (prometheus_->uses_label_name(l.first))
      throw std::invalid_argument("metrics_text: label list: \"" + l.first +
                                  "\" is already a label of a vllm:* family");
  }
  std::string out;
  prometheus_->write(out, options);
  return out;
}

LogRecord MetricsRecorder::log(SimTime now) {
  return logging_.log(now);
}

}  // namespace blis::vllm::metrics
