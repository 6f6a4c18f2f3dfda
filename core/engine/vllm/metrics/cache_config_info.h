#pragma once
// The labels of vllm:cache_config_info: CacheConfig.metrics_info(), i.e. every CacheConfig
// attribute as str(value) (vllm/config/cache.py). The engine fills in what it models; the
// other fields take CacheConfig's defaults.

#include <cstdint>
#include <optional>
#include <string>

#include "engine/vllm/metrics/prom_text.h"

namespace blis::vllm::metrics {

struct CacheConfigInfo {
  std::int32_t block_size = 16;
  bool user_specified_block_size = false;  // --block-size was given
  double gpu_memory_utilization = 0.92;
  std::string cache_dtype = "auto";
  std::optional<std::int64_t> num_gpu_blocks_override;
  std::optional<std::int32_t> sliding_window;
  bool enable_prefix_caching = true;
  std::string prefix_caching_hash_algo = "sha256";
  std::optional<std::int64_t> num_gpu_blocks;  // set once the KV cache is sized
  std::optional<std::int64_t> num_cpu_blocks;
  std::optional<std::int64_t> kv_cache_memory_bytes;
  std::optional<double> kv_offloading_size;  // GiB
  std::string kv_offloading_backend = "native";
  // For the fields set after KV-cache initialization (kv_cache_size_tokens,
  // kv_cache_max_concurrency); 0 leaves them None.
  std::int64_t max_model_len = 0;
};

// One label per CacheConfig attribute (cache.py field list at 8d9b52f7), values as Python's
// str(): None, True/False, repr of floats, [] for an empty list.
LabelList cache_config_labels(const CacheConfigInfo& info);

}  // namespace blis::vllm::metrics
