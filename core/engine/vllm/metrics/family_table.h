#pragma once
// Every vllm:* family the simulator can expose, in the order vLLM registers them at upstream
// 8d9b52f7 (PrometheusStatLogger.__init__: SpecDecodingProm, KVConnectorProm, PerfMetricsProm,
// then the scheduler and request families; log_engine_initialized adds cache_config_info).
// Exposition walks this table, docs/metrics-manifest.json classes each row, and
// docs/metrics.md describes it (tests/metrics checks both).

#include <cstdint>
#include <vector>

#include "engine/vllm/metrics/release.h"

namespace blis::vllm::metrics {

enum class MetricType : std::uint8_t { kCounter, kGauge, kHistogram };

// When a family is registered at all.
enum class FamilyCondition : std::uint8_t {
  kAlways,
  kSpecDecode,       // a speculative_config is set (SpecDecodingProm)
  kLoRA,             // a lora_config is set (vllm:lora_requests_info)
  kCacheConfigInfo,  // registered by log_engine_initialized once the KV cache is sized
  kNixl,             // kv_connector NixlConnector (NixlPromMetrics, nixl/stats.py)
  kOffloading,       // kv_connector OffloadingConnector, CPU spec (OffloadPromMetrics)
  // The same with kv_connector_extra_config store_threshold >= 2 (CPUOffloadingSpec.
  // build_metric_definitions adds vllm:kv_offload_stores_skipped).
  kOffloadingStoreThreshold,
};

enum class BucketSet : std::uint8_t {
  kNone,
  kRequestLatency,
  kTimeToFirstToken,
  kInterTokenLatency,
  kIterationTokens,
  kRequestParamsN,
  kRequestTokens,  // 1-2-5 capped at max_model_len
  kFixed,          // FamilySpec::fixed_buckets
};

struct FamilySpec {
  const char* name;  // as declared; counters are exposed with "_total" appended
  MetricType type;
  const char* help;
  int since_minor;  // first vLLM 0.x release that registers it (0: before 0.29)
  FamilyCondition condition;
  BucketSet buckets;
  // The family's own label beyond model_name and engine, and its pre-created values in
  // vLLM's creation order (empty name: none; position values are generated 0..k-1).
  const char* label;
  std::vector<const char*> label_values;
  // prometheus_client creates a labelled family's children on first use; vLLM pre-creates
  // them (create_metric_per_engine) except for the offloading connector's flat families,
  // which get their child when first observed (OffloadPromMetrics._get_prometheus_metric).
  bool children_on_first_use = false;
  std::vector<double> fixed_buckets{};  // BucketSet::kFixed
};

const std::vector<FamilySpec>& family_table();
// The KV connector and PerfMetricsProm rows of the table, in registration order
// (family_table_connector.cpp).
std::vector<FamilySpec> connector_and_perf_families();
const FamilySpec* find_family(const char* name);
// Does `release` register this family (ignoring the configuration condition)?
bool release_has(Release release, const FamilySpec& family);

}  // namespace blis::vllm::metrics
