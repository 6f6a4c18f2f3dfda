#pragma once
// Extension point of the ext conformance driver: a feature that adds its own input keys,
// engine configuration, step fields and top-level fields (the KV connector cases) plugs in
// here, in its own file, without touching conform_ext.cpp.
//
// The driver calls, in order: take_input (once, before the base reader sees the document),
// configure (once, on the decoded case), configure_metrics (once), then every DriverHooks
// callback right after its own handling of it, take_connector_stats just before each
// metrics record, add_step_fields at the end of every step, add_top_level at the end.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conform/conform_hooks.h"
#include "engine/vllm/metrics/connector_stats.h"
#include "engine/vllm/metrics/recorder.h"
#include "util/diagnostic.h"

namespace blis::vllm::conform {

class ExtExtension : public DriverHooks {
 public:
  // Decodes the extension's keys of the input document and removes them (top-level keys and
  // per-request keys alike), so that what remains is a base-format input. Diagnostics name
  // pointers of the original document. `step_seconds` is the decoded metrics.step_seconds
  // (Δ, 0 when it is invalid).
  virtual void take_input(nlohmann::json& doc, double step_seconds, Diagnostics& diags) = 0;
  // The per-request keys take_input reads (and removes), for the base reader's unknown-key
  // hints.
  virtual std::vector<std::string> request_keys() const { return {}; }
  // Adjusts the decoded case before the engine is built (e.g. the connector config).
  virtual void configure(Case& c, Diagnostics& diags) {}
  // Adjusts the recorder (e.g. config.connector = ConnectorMetrics::kNixl).
  virtual void configure_metrics(metrics::RecorderConfig& config) {}
  // The connector stats of the step being recorded (SchedulerStats.kv_connector_stats);
  // leave `out` empty when there are none.
  virtual void take_connector_stats(metrics::KVConnectorStats& out) {}
  // Adds fields to the ext record of step `step` (FORMAT.md section 5, connector fields).
  virtual void add_step_fields(std::int32_t step, nlohmann::ordered_json& rec) {}
  // Adds top-level fields (e.g. "connector", written after "metrics").
  virtual void add_top_level(nlohmann::ordered_json& doc) {}
};

// The KV connector extension for an input that has a "connector" key; null otherwise
// (conform_ext_connector.cpp).
std::unique_ptr<ExtExtension> make_connector_extension(const nlohmann::json& doc);

}  // namespace blis::vllm::conform
