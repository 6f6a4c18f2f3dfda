#pragma once
// VllmEngine: vLLM's v1 engine core behind the engine-neutral contract (engine/engine.h).
// The cluster owns time: schedule() says what the next forward pass runs, complete() applies
// its output. With async scheduling (vLLM's default) two passes may be in flight.
// Per-step calls reuse their buffers: no allocation in steady state.

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/vllm/engine_core.h"
#include "engine/vllm/key_index.h"
#include "engine/vllm/metrics/recorder.h"
#include "engine/vllm/vllm_config.h"

namespace blis::vllm {

class VllmEngine final : public engine::Engine {
 public:
  // Throws std::invalid_argument if the config is invalid or one request of max_model_len
  // could not fit in the KV cache (vLLM refuses to start then).
  explicit VllmEngine(const VllmConfig& cfg);

  void add_request(engine::RequestSpec spec, SimTime now) override;
  void abort(engine::RequestKey key, SimTime now) override;
  bool can_schedule(SimTime now) const override;
  // nullptr when nothing runs now; call again after the next complete(), arrival or abort.
  const engine::Batch* schedule(SimTime now) override;
  const engine::StepEvents& complete(std::uint64_t batch_id, const engine::StepOutcome& outcome,
                                     SimTime now) override;
  bool idle() const override;
  std::int32_t max_concurrent_batches() const override { return core_.batch_queue_size(); }
  std::int32_t in_flight() const override { return core_.in_flight(); }
  engine::EngineStats stats() const override;
  // The vllm:* families (metrics/recorder.h). `labels` is a label list such as
  // `model_name="m",instance="i0"`, added to every series.
  std::string metrics_text(SimTime now, const std::string& labels) const override;
  engine::Provenance provenance() const override;

  // KV connector plumbing (connector/kv_connector.h): the cluster carries out the transfers.
  void take_transfers(std::vector<engine::TransferRequest>& out) override;
  void transfer_finished(const engine::TransferRequest& t, SimTime now) override;
  void take_finished_between_steps(std::vector<engine::RequestProgress>& out) override;
  void remote_read_done(engine::RequestKey key, SimTime now) override;
  void remote_heartbeat(engine::RequestKey key, SimTime now) override;
  void poll(SimTime now) override;
  SimTime next_wake(SimTime now) const override;
  void set_kv_event_listener(engine::KvEventListener* l) override {
    core_.scheduler().set_kv_event_listener(l);
  }

  // vllm scheduler.py Scheduler.reset_prefix_cache.
  bool reset_prefix_cache(bool reset_running_requests);
  // Hooks a KV connector (P/D transfer, offloading) into the scheduler; owned by the caller.
  void set_connector(KVConnector* connector) {
    connector_ = connector;
    core_.scheduler().set_connector(connector);
    // KVConnectorProm registers the connector's families (loggers.py).
    metrics_.set_connector(
        connector != nullptr ? connector->metrics_kind() : metrics::ConnectorMetrics::kNone,
        connector != nullptr && connector->metrics_store_threshold());
  }
  // The same, the engine owning the connector.
  void own_connector(std::unique_ptr<KVConnector> connector) {
    owned_connector_ = std::move(connector);
    set_connector(owned_connector_.get());
  }
  KVConnector* connector() const { return connector_; }
  // Scheduler::set_report_common_prefix (the cluster reads no common-prefix count).
  void set_report_common_prefix(bool on) { core_.scheduler().set_report_common_prefix(on); }
  const EngineCore& core() const { return core_; }
  const VllmConfig& config() const { return cfg_; }
  // The frontend's stats: the Prometheus families and the periodic log line (log(now)).
  metrics::MetricsRecorder& metrics() { return metrics_; }
  const metrics::MetricsRecorder& metrics() const { return metrics_; }

 private:
  // The error outputs of requests whose KV load failed (finish_reason error), into `out`.
  void report_errored(const std::vector<ErroredRequest>& errored,
                      std::vector<engine::RequestProgress>& out);
  void apply_pending_aborts();
  void fill_batch(InFlightBatch& b);
  // The runner's drafts: marks each scheduled entry's valid drafts (FORMAT.md "Mocked model
  // and drafter": sync, the leading drafts that are not -1 padding; async, the runner holds
  // k drafts after every batch in which the request sampled, none after a prefill chunk or
  // a preemption).
  void mark_valid_drafts(InFlightBatch& b);
  void report_preempted(const std::vector<engine::RequestKey>& keys);
  void expire_held(SimTime now);
  void apply_effect(const TransferEffect& e);

  VllmConfig cfg_;
  EngineCore core_;
  KeyIndex refs_;
  engine::Batch batch_;
  engine::StepEvents events_;
  UpdateResult res_;
  // Applied before the next schedule, each to the request it was for (key, handle).
  std::vector<std::pair<engine::RequestKey, ReqRef>> pending_aborts_;
  std::vector<engine::RequestKey> pending_preempted_;  // preempted by a batch that ran nothing
  std::vector<engine::RequestKey> scratch_keys_;
  std::vector<std::int32_t> tokens_;
  metrics::MetricsRecorder metrics_;
  metrics::EngineCoreOutputs metrics_pending_;  // the next step's outputs and stats (reused)
  std::unique_ptr<KVConnector> owned_connector_;
  KVConnector* connector_ = nullptr;
  std::vector<ReqRef> expired_;  // scratch for expire_held
  // Async spec decode: runner_drafts_[slot] = the slot generation + 1 whose request the
  // runner holds drafts for (0 = none). Sized as slots appear (not per step).
  std::vector<std::uint32_t> runner_drafts_;
  std::vector<TransferEffect> effects_;          // scratch for on_step_output
  std::vector<ErroredRequest> errored_scratch_;  // finished between steps, not yet taken
  metrics::KVConnectorStats connector_stats_;
};

}  // namespace blis::vllm
