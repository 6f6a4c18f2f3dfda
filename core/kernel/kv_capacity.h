#pragma once
// KV capacity: how many KV-cache blocks vLLM allocates for a deployment ("# GPU blocks",
// cache_config.num_gpu_blocks), following v1's start-up path: Worker.determine_available_memory
// (requested = total * gpu_memory_utilization, minus weights, the profile run's activation
// peak, non-torch allocations and the CUDA graph estimate), then kv_cache_utils
// get_kv_cache_config (bytes per block per layer, layers sharing a block id, the max_model_len
// check). Everything is per GPU; with pipeline parallelism the stage with the fewest blocks
// decides, as vLLM unifies the stages' configs.

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernel/deployment.h"
#include "kernel/memory_profile.h"
#include "kernel/model_shape.h"

namespace blis::kernel {

struct KvCapacity {
  bool fits = false;
  std::string reason;  // why it does not fit ("" when it fits)

  // Blocks of one full-attention block table, the null block included: what the engine
  // schedules with. vLLM's "# GPU blocks" for single-group models; for hybrid models (sliding
  // window, chunked local attention) the shared pool scaled to one group's share, i.e. "GPU
  // KV cache size" / block_size.
  std::int64_t num_gpu_blocks = 0;
  std::int64_t pool_blocks = 0;      // KVCacheConfig.num_blocks: the pool all groups share
  std::int64_t kv_cache_tokens = 0;  // "GPU KV cache size": max_concurrency x max_model_len
  double max_concurrency = 0;        // requests of max_model_len tokens that fit at once
  std::int64_t max_model_len = 0;

  std::int32_t block_size = 16;
  std::int64_t page_bytes = 0;        // one block of one layer on one GPU
  std::int32_t kv_cache_groups = 1;   // block tables per request (hybrid models: > 1)
  std::int32_t layers_per_group = 0;  // layers that share one block id (one memory pool each)
  std::int64_t full_blocks_per_request = 0;  // one max_model_len request in one full group
  std::int64_t pool_blocks_per_request = 0;  // ... in all its groups
  std::int64_t bytes_per_block = 0;          // page_bytes * layers_per_group
  std::int64_t kv_bytes_per_token = 0;       // per GPU, all attention layers cached in full

  // The memory budget of one GPU (of the limiting pipeline stage).
  std::int64_t total_memory_bytes = 0;      // what the device reports
  std::int64_t requested_memory_bytes = 0;  // total * gpu_memory_utilization
  std::int64_t weights_bytes = 0;
  std::int64_t activation_peak_bytes = 0;
  std::int64_t non_torch_bytes = 0;
  std::int64_t cuda_graph_bytes = 0;
  std::int64_t available_kv_bytes = 0;          // may be negative when nothing is left
  std::int64_t kv_bytes_for_max_model_len = 0;  // one max_model_len request (vLLM's check)
  std::int64_t estimated_max_model_len = 0;     // the longest request that would fit
  WeightBytes weights;
  MemoryProfile profile;
};

KvCapacity kv_capacity(const Deployment& d);

// The [first, last) layer range of each of `pp` pipeline stages (vllm/distributed/utils.py
// get_pp_indices).
std::vector<std::pair<std::int32_t, std::int32_t>> stage_ranges(std::int32_t layers,
                                                                std::int32_t pp);

// KV bytes one GPU holds per token (all its layers; with pp > 1, one stage's share). A P/D
// transfer moves this per token over each GPU's own link in parallel.
std::int64_t kv_bytes_per_token(const Deployment& d);

}  // namespace blis::kernel
