#pragma once
// vllm/v1/metrics/loggers.py PrometheusStatLogger for one engine: the vllm:* families, their
// update rules (record) and their text exposition. Families are registered from
// family_table() in vLLM's order; every pre-created child series starts at zero, as
// prometheus_client's do, so a fresh engine already exposes every family.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/vllm/metrics/connector_stats.h"
#include "engine/vllm/metrics/family_table.h"
#include "engine/vllm/metrics/prom_text.h"
#include "engine/vllm/metrics/release.h"
#include "engine/vllm/metrics/stats.h"
#include "util/sim_time.h"

namespace blis::vllm::metrics {

struct PrometheusConfig {
  Release release = kDefaultRelease;
  std::string model_name;                   // served_model_name (the first one when several)
  std::int32_t engine_index = 0;            // the DP rank; label engine="<index>"
  std::int64_t max_model_len = 0;           // caps the 1-2-5 token buckets
  std::int32_t num_speculative_tokens = 0;  // 0: no speculative_config (no spec families)
  bool lora_enabled = false;
  std::int32_t max_loras = 1;
  // vllm:cache_config_info labels: CacheConfig.metrics_info() (see cache_config_info.h).
  LabelList cache_config_info;
  SimTime created_at = 0;                  // when the families were created (the *_created series)
  bool register_cache_config_info = true;  // log_engine_initialized ran
  ConnectorMetrics connector = ConnectorMetrics::kNone;
  // The offloading connector's CPU spec has store_threshold >= 2 (vllm:kv_offload_stores_skipped).
  bool offload_store_threshold = false;
};

struct ExpositionOptions {
  // Added to every series (e.g. instance="pool0-3"). "model_name" and "engine" replace the
  // configured values where a series has them; other names must not be a family's label.
  LabelList extra_labels;
  // prometheus_client also writes a "<name>_created" gauge family after each counter and
  // histogram family (creation time in seconds). vLLM's /metrics has them; off by default.
  bool include_created = false;
};

class PrometheusStatLogger {
 public:
  explicit PrometheusStatLogger(PrometheusConfig config);
  PrometheusStatLogger(const PrometheusStatLogger&) = delete;
  PrometheusStatLogger& operator=(const PrometheusStatLogger&) = delete;

  // PrometheusStatLogger.record: one EngineCoreOutputs batch's stats (either may be null).
  void record(const SchedulerStats* scheduler_stats, const IterationStats* iteration_stats);
  // The vllm:lora_requests_info update of record(): the child for these label values is set
  // to the current time (set_to_current_time). `adapters` is the comma-joined list of
  // adapters with waiting or running requests.
  void record_lora_info(std::string_view adapters, SimTime now);

  // Appends the text exposition (format 0.0.4) of every registered family.
  void write(std::string& out, const ExpositionOptions& options) const;
  // Label names some family uses (extra labels must avoid them).
  bool uses_label_name(std::string_view name) const;

  // Read access, for the log line and for tests. `label_value` selects a series of a family
  // with its own label (e.g. "stop" for request_success); empty for single-series families.
  bool has_family(std::string_view name) const;
  std::optional<double> value(std::string_view family, std::string_view label_value = {}) const;
  struct HistogramView {
    const std::vector<double>* bounds;
    const std::vector<std::uint64_t>* bucket_counts;  // per bucket, +Inf last; not cumulative
    std::uint64_t count;
    double sum;
  };
  std::optional<HistogramView> histogram(std::string_view family) const;

  const PrometheusConfig& config() const { return config_; }

  // The registry as prometheus_client holds it: every family in registration order, its
  // label names (model_name and engine first) and the label values of each child in
  // creation order (the ext format's "families").
  struct FamilyInfo {
    std::string name;  // as registered: counters without "_total"
    const char* type;  // "counter", "gauge", "histogram"
    std::string help;
    std::vector<std::string> labelnames;
    const std::vector<double>* bounds;  // histograms only (finite bounds), else null
    std::vector<std::vector<std::string>> series;
  };
  std::vector<FamilyInfo> describe() const;

 private:
  struct Series {
    LabelList labels;  // sorted by name
    std::string own_label_value;
    double value = 0;
    std::vector<std::uint64_t> bucket_counts;
    std::uint64_t count = 0;
    double sum = 0;
  };
  struct Family {
    const FamilySpec* spec = nullptr;
    std::vector<double> bounds;
    std::vector<Series> series;
  };
  static constexpr std::size_t kAbsent = static_cast<std::size_t>(-1);

  std::size_t register_family(const char* name);
  const Family* find(std::string_view name) const;
  void set(std::size_t family, std::size_t series, double v);
  void inc(std::size_t family, std::size_t series, double v);
  void observe(std::size_t family, double v) { observe_at(family, 0, v); }
  void observe_at(std::size_t family, std::size_t series, double v);
  // KVConnectorProm.observe: the connector's entries onto its families.
  void record_connector(const KVConnectorStats& stats);
  // The family's only child, created with the model_name and engine labels on first use.
  std::size_t base_child(std::size_t family);

  PrometheusConfig config_;
  std::vector<Family> families_;
  // Family indexes (kAbsent when this release or configuration does not register it).
  std::size_t spec_drafts_, spec_draft_tokens_, spec_accepted_, spec_accepted_per_pos_;
  std::size_t running_, waiting_, waiting_by_reason_, sleep_state_, kv_usage_;
  std::size_t prefix_queries_, prefix_hits_, external_queries_, external_hits_;
  std::size_t mm_queries_, mm_hits_;
  std::size_t preemptions_, prompt_tokens_, prompt_by_source_, prompt_cached_, generation_tokens_,
      request_success_;
  std::size_t h_prompt_tokens_, h_generation_tokens_, h_iteration_tokens_, h_max_generation_tokens_,
      h_params_n_, h_params_max_tokens_, h_ttft_, h_itl_, h_tpot_, h_e2e_, h_queue_, h_inference_,
      h_prefill_, h_decode_, h_prefill_kv_computed_;
  std::size_t lora_info_, cache_config_info_;
};

}  // namespace blis::vllm::metrics
