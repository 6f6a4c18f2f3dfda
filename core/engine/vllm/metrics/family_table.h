#pragma once
// Every vllm:* family the simulator can expose, in the order vLLM registers them
// (PrometheusStatLogger.__init__, then log_engine_initialized for cache_config_info), with
// the first release that has it. Exposition walks this table, and docs/metrics.md describes
// each row (tests/metrics checks that every name appears there).

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
};

enum class BucketSet : std::uint8_t {
  kNone,
  kRequestLatency,
  kTimeToFirstToken,
  kInterTokenLatency,
  kIterationTokens,
  kRequestParamsN,
  kRequestNumPreemptions,
  kRequestTokens,  // 1-2-5 capped at max_model_len
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
};

const std::vector<FamilySpec>& family_table();
const FamilySpec* find_family(const char* name);
// Does `release` register this family (ignoring the configuration condition)?
bool release_has(Release release, const FamilySpec& family);

}  // namespace blis::vllm::metrics
