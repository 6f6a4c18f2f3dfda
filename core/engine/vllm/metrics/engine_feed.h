#pragma once
// How VllmEngine's own records become the recorder's inputs: the engine-core events, the
// per-request outputs and the SchedulerStats vLLM's engine core would send to its frontend.
// VllmEngine calls these at add_request, schedule and complete with the `now` it is given.

#include <span>

#include "engine/engine.h"
#include "engine/vllm/metrics/connector_stats.h"
#include "engine/vllm/metrics/recorder.h"
#include "engine/vllm/metrics/stats.h"
#include "engine/vllm/sched/scheduler.h"
#include "engine/vllm/sched/scheduler_output.h"
#include "engine/vllm/vllm_config.h"

namespace blis::vllm {
class KeyIndex;
}

namespace blis::vllm::metrics {

// The recorder's configuration for an engine: release, served model name, max_model_len,
// speculative tokens, LoRA, and the CacheConfig labels. Throws std::invalid_argument naming
// `release` when the release is not one of 0.29, 0.31, 0.32.
RecorderConfig recorder_config(const VllmConfig& cfg);

// A request entered the engine (OutputProcessor.add_request, then Scheduler.add_request's
// QUEUED event). `handle` is the request's slot index.
void feed_added(MetricsRecorder& recorder, RequestHandle handle, const engine::RequestSpec& spec,
                SimTime now);

// Scheduler.schedule recorded SCHEDULED for every request it admitted from the waiting queue
// (new or resumed) and PREEMPTED for every request it preempted.
void feed_scheduled(MetricsRecorder& recorder, const SchedulerOutput& out, const KeyIndex& refs,
                    SimTime now);

// Scheduler.update_from_output: an EngineCoreOutput for every request that received tokens or
// finished, the spec-decode stats of the step (drafts verified, accepted, from `res`), the
// make_stats() snapshot already taken (`stats`) and the KV connector's stats of the step
// (SchedulerStats.kv_connector_stats; null or empty: none); then the batch goes to the
// recorder and `pending` is emptied for the next step.
// The error outputs of requests a failed KV load finished between steps (the engine's
// transfer_finished), as one batch without scheduler stats.
EngineCoreOutput error_output(const ErroredRequest& er);
void feed_errored_between_steps(MetricsRecorder& recorder, std::span<const ErroredRequest> errored,
                                SimTime now);
void feed_completed(MetricsRecorder& recorder, EngineCoreOutputs& pending, const UpdateResult& res,
                    const Scheduler& scheduler, const vllm::SchedulerStats& stats,
                    const KVConnectorStats* connector_stats, SimTime now);

}  // namespace blis::vllm::metrics
