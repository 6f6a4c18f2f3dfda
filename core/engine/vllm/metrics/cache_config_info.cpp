#include "engine/vllm/metrics/cache_config_info.h"

namespace blis::vllm::metrics {
namespace {

std::string py_bool(bool b) {
  return b ? "True" : "False";
}
std::string py_int(std::optional<std::int64_t> v) {
  return v ? std::to_string(*v) : "None";
}
std::string py_float(std::optional<double> v) {
  return v ? python_float_repr(*v) : "None";
}

}  // namespace

// CacheConfig.metrics_info: {key: str(value) for key, value in self.__dict__.items()}, with
// the attributes of vllm/config/cache.py at upstream 8d9b52f7 (29 fields, in declaration
// order; ext FORMAT.md section 6 lists them). Label order does not matter: the exposition
// sorts label names.
LabelList cache_config_labels(const CacheConfigInfo& c) {
  std::optional<std::int64_t> size_tokens;
  std::optional<double> max_concurrency;
  if (c.num_gpu_blocks) {
    size_tokens = *c.num_gpu_blocks * c.block_size;
    if (c.max_model_len > 0)
      max_concurrency = static_cast<double>(*size_tokens) / static_cast<double>(c.max_model_len);
  }
  return {
      {"block_size", std::to_string(c.block_size)},
      {"user_specified_block_size", py_bool(c.user_specified_block_size)},
      {"user_specified_mamba_block_size", "False"},
      {"prefix_match_unit", "None"},
      {"gpu_memory_utilization", python_float_repr(c.gpu_memory_utilization)},
      {"cache_dtype", c.cache_dtype},
      {"is_attention_free", "False"},
      {"num_gpu_blocks_override", py_int(c.num_gpu_blocks_override)},
      {"sliding_window",
       c.sliding_window ? std::to_string(*c.sliding_window) : std::string("None")},
      {"enable_prefix_caching", py_bool(c.enable_prefix_caching)},
      {"prefix_caching_hash_algo", c.prefix_caching_hash_algo},
      {"kv_cache_dtype_skip_layers", "[]"},
      {"mamba_page_size_padded", "None"},
      {"skip_page_size_padded", "None"},
      {"mamba_block_size", "None"},
      {"mamba_cache_dtype", "auto"},
      {"mamba_ssm_cache_dtype", "auto"},
      {"mamba_cache_mode", "none"},
      {"replayssm_buffer_len", "16"},
      {"use_replayssm", "False"},
      {"num_gpu_blocks", py_int(c.num_gpu_blocks)},
      {"num_cpu_blocks", py_int(c.num_cpu_blocks)},
      {"kv_cache_size_tokens", py_int(size_tokens)},
      {"kv_cache_max_concurrency", py_float(max_concurrency)},
      {"kv_sharing_fast_prefill", "False"},
      {"kv_cache_memory_bytes", py_int(c.kv_cache_memory_bytes)},
      {"kv_offloading_size", py_float(c.kv_offloading_size)},
      {"kv_offloading_backend", c.kv_offloading_backend},
      {"_block_size_resolved", "True"},
  };
}

}  // namespace blis::vllm::metrics
