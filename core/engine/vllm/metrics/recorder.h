#pragma once
// MetricsRecorder: vLLM's frontend stat pipeline for one simulated engine. It plays the
// parts of OutputProcessor (per-request RequestStateStats, is_prefilling, parallel-sampling
// parents, LoRA states; v1/engine/output_processor.py), AsyncLLM's output handler (one
// IterationStats per EngineCoreOutputs batch that has outputs; v1/engine/async_llm.py) and
// StatLoggerManager (the Prometheus logger and the periodic log line; v1/metrics/loggers.py).
//
// The engine calls add_request when a request arrives and record once per batch of step
// outputs. Nothing reads a clock: every instant comes from the records. Per-request state
// lives in vectors indexed by RequestHandle, so recording allocates nothing once the
// vectors reached the engine's peak number of requests.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine/vllm/metrics/connector_stats.h"
#include "engine/vllm/metrics/logging_stat_logger.h"
#include "engine/vllm/metrics/lora_request_states.h"
#include "engine/vllm/metrics/prometheus_stat_logger.h"
#include "engine/vllm/metrics/release.h"
#include "engine/vllm/metrics/stats.h"
#include "util/sim_time.h"

namespace blis::vllm::metrics {

struct RecorderConfig {
  Release release = kDefaultRelease;
  std::string model_name;
  std::int32_t engine_index = 0;
  std::int64_t max_model_len = 0;
  std::int32_t num_speculative_tokens = 0;  // 0: no speculative decoding configured
  bool lora_enabled = false;
  std::int32_t max_loras = 1;
  std::vector<std::string> lora_names{};    // adapter id i is lora_names[i - 1]
  LabelList cache_config_info{};            // cache_config_labels(...)
  std::int64_t max_recent_requests = 1000;  // prefix hit-rate window of the log line
  // vllm:cache_config_info exists once log_engine_initialized ran (a real server); the
  // conformance traces never call it.
  bool register_cache_config_info = true;
  // The KV connector's families (KVConnectorProm), fed by SchedulerStats.kv_connector_stats.
  ConnectorMetrics connector = ConnectorMetrics::kNone;
  bool offload_store_threshold = false;  // PrometheusConfig::offload_store_threshold
};

class MetricsRecorder {
 public:
  // `start` is when the engine (and its metric families) came up.
  MetricsRecorder(RecorderConfig config, SimTime start);

  // OutputProcessor.add_request. `handle` must not be in use; `lora_id` 0 means none.
  // Throws std::invalid_argument for a negative or active handle.
  void add_request(RequestHandle handle, const RequestInfo& info, std::int32_t lora_id = 0);

  // An engine-core event (Request.record_event), kept with its request until the request's
  // next output delivers it. The same as listing it in EngineCoreOutputs.events, but applied
  // at once: an engine that reuses handles cannot have a stale event reach a new request.
  // Events of inactive handles are ignored.
  void record_event(const EngineCoreEvent& event);

  // OutputProcessor.abort_requests: a client abort removes the request from the frontend
  // without a finished output, so it observes nothing (no request_success{abort}, no
  // latency); the engine core frees it without sending an output either. Unknown handles are
  // ignored. (An abort the engine reports as a finished output goes through record().)
  void abort_request(RequestHandle handle);

  // One EngineCoreOutputs batch. Outputs and events naming handles that are not active
  // (never added, or already finished) are ignored, as vLLM ignores outputs of aborted
  // requests.
  void record(const EngineCoreOutputs& outputs);

  // The text exposition. `extra_labels` (e.g. `instance="a"`) is added to every series;
  // `model_name="..."` and `engine="..."` there replace the configured values (the cluster
  // knows which model and DP rank an instance serves). Throws std::invalid_argument when it
  // is malformed or reuses another label name of a family.
  std::string exposition(std::string_view extra_labels = {}, bool include_created = false) const;
  // LoggingStatLogger.log for the interval since the previous call.
  LogRecord log(SimTime now);

  // Registers the KV connector's families (KVConnectorProm is built from the engine's
  // kv_transfer_config, so an engine that gets its connector after construction calls this
  // before its first record(); every family restarts from zero).
  void set_connector(ConnectorMetrics connector, bool offload_store_threshold = false);

  bool active(RequestHandle handle) const;
  // What the latest record() call saw: its number of outputs, and its IterationStats (null
  // when the batch had no outputs, as AsyncLLM builds none then).
  std::size_t last_num_outputs() const { return last_num_outputs_; }
  const IterationStats* last_iteration_stats() const {
    return last_had_outputs_ ? &iteration_ : nullptr;
  }
  const PrometheusStatLogger& prometheus() const { return *prometheus_; }
  const LoggingStatLogger& logging() const { return logging_; }
  const RecorderConfig& config() const { return config_; }

 private:
  struct RequestState {
    bool active = false;
    bool is_prefilling = true;
    std::int32_t prompt_len = 0;
    std::int32_t max_tokens = 0;
    std::int32_t n = 1;
    std::int32_t parent = -1;
    std::int32_t lora_id = 0;
    LoRARequestStates::Status lora_status = LoRARequestStates::Status::kNone;
    std::int32_t num_cached_tokens = 0;
    RequestStateStats stats;
    PendingEvents pending;
  };
  struct ParentState {
    std::int32_t open_children = 0;
    std::int32_t max_num_generation_tokens = 0;
  };

  void finish(RequestState& state, FinishReason reason);

  RecorderConfig config_;
  SimTime start_ = 0;
  std::unique_ptr<PrometheusStatLogger> prometheus_;
  LoggingStatLogger logging_;
  LoRARequestStates lora_states_;
  std::vector<RequestState> requests_;
  std::vector<ParentState> parents_;
  IterationStats iteration_;
  std::size_t last_num_outputs_ = 0;
  bool last_had_outputs_ = false;
};

}  // namespace blis::vllm::metrics
