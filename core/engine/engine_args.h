#pragma once
// vLLM's engine arguments as a pool's `engine.args` holds them once the rules pack of its
// release has filled in every default (names are vLLM's own). The types sit below both the
// scenario (core/scenario, which holds them per pool) and the rules packs (rules/, which
// resolve them), so neither includes the other's headers for them.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blis::engine_args {

// Speculative decoding with supplied acceptance (the simulator does not run a draft model).
struct SpeculativeConfig {
  std::string method;  // e.g. "eagle", "ngram", "mtp"
  std::int32_t num_speculative_tokens = 0;
  double acceptance_rate = 0.7;  // per-draft-token acceptance probability
  std::string model;             // the draft model vLLM would load ("" = none); not run
};

struct KvTransferConfig {
  std::string kv_connector;  // e.g. "NixlConnector", "OffloadingConnector"
  std::string kv_role;       // kv_producer | kv_consumer | kv_both
  // OffloadingConnector (kv_connector_extra_config): CPU tier size and its block size in
  // tokens (a multiple of the GPU block_size; unset = the GPU block_size).
  std::optional<std::int64_t> cpu_bytes_to_use;
  std::optional<std::int32_t> offload_block_size;
  // The CPU spec's cache policy ("lru" or "arc"; unset = "lru") and store_threshold (a chunk
  // is stored once looked up that many times; below 2, or unset, no filtering).
  std::optional<std::string> eviction_policy;
  std::optional<std::int64_t> store_threshold;
  // kv_load_failure_policy ("recompute" or "fail"; unset = vLLM's default, "fail").
  std::optional<std::string> kv_load_failure_policy;
};

// vLLM engine arguments after the rules pack filled in the release's defaults. Names are
// vLLM's own.
struct VllmArgs {
  std::int32_t max_model_len = 0;
  std::int32_t max_num_seqs = 0;
  std::int32_t max_num_batched_tokens = 0;
  // SchedulerConfig.max_num_scheduled_tokens: the scheduler's per-step token budget; unset =
  // max_num_batched_tokens, less the drafter's slots with speculative decoding.
  std::optional<std::int32_t> max_num_scheduled_tokens;
  bool enable_chunked_prefill = true;
  bool enable_prefix_caching = true;
  std::int32_t block_size = 16;
  double gpu_memory_utilization = 0.9;
  std::optional<std::int64_t> kv_cache_memory_bytes;
  std::optional<std::int64_t> num_gpu_blocks_override;
  std::string kv_cache_dtype = "auto";
  std::string dtype = "auto";
  std::string quantization;  // empty = from the checkpoint
  std::int32_t long_prefill_token_threshold = 0;
  std::int32_t max_num_partial_prefills = 1;
  std::int32_t max_long_partial_prefills = 1;
  std::string scheduling_policy = "fcfs";
  bool async_scheduling = true;
  bool scheduler_reserve_full_isl = true;
  double watermark = 0.0;  // SchedulerConfig.watermark: KV blocks kept free at admission
  std::string prefix_caching_hash_algo = "sha256";
  bool enable_lora = false;
  std::int32_t max_loras = 1;
  std::int32_t max_lora_rank = 16;
  std::int32_t max_cpu_loras = 1;  // resolved: unset = max_loras
  std::string performance_mode = "balanced";
  bool enforce_eager = false;
  // CompilationConfig's CUDA graph settings (vllm/config/compilation.py) as the rules pack
  // resolved them: the mode after enforce_eager, optimization_level and the compilation mode
  // (NONE: no graphs), and the user's capture sizes and largest size (unset: vLLM's default).
  std::string cudagraph_mode = "FULL_AND_PIECEWISE";
  std::optional<std::vector<std::int32_t>> cudagraph_capture_sizes;
  std::optional<std::int32_t> max_cudagraph_capture_size;
  std::optional<SpeculativeConfig> speculative_config;
  std::optional<KvTransferConfig> kv_transfer_config;
  std::optional<double> kv_offloading_size_gib;  // CPU KV offload (vLLM: kv_offloading_size)
  std::string kv_offloading_backend = "native";
  // ParallelConfig.enable_expert_parallel: MoE experts sharded whole over the tp x dp ranks.
  bool enable_expert_parallel = false;
};

}  // namespace blis::engine_args
