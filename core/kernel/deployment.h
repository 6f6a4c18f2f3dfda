#pragma once
// Deployment: one vLLM instance as the kernel prices it: the GPU and model (copied from the
// catalog), the parallelism and the engine arguments that change step times or memory, and
// the coefficients (data from catalog/coefficients, so calibration needs no code change).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "catalog/catalog.h"
#include "rules/rules.h"
#include "util/diagnostic.h"
#include "util/release.h"

namespace blis::kernel {

// The start-up memory profiles that size the KV cache (catalog/coefficients/vllm-memory.json),
// by the names a scenario's engine.memory_profile and `blis price` use: the current one
// (vLLM >= 0.21: Triton top-k/top-p sampler warm-up, CUDA graph estimate subtracted) and
// vLLM <= 0.15's (the catalog's legacy_profile: sort-based sampler warm-up, CUDA graphs
// captured after the KV cache was sized).
inline constexpr const char* kMemoryProfileCurrent = "current";
inline constexpr const char* kMemoryProfileVllm015 = "vllm-0.15";
const std::vector<std::string>& memory_profile_names();

struct Deployment {
  catalog::Gpu gpu;
  catalog::Model model;
  std::int32_t tp = 1;
  std::int32_t pp = 1;
  // Data parallelism: the engine-core ranks this instance's MoE layers span (1 = none), and
  // whether their experts are sharded whole over the dp x tp ranks (enable_expert_parallel)
  // rather than tensor-parallel across them (kernel/parallel_cost.h).
  std::int32_t dp = 1;
  bool enable_expert_parallel = false;
  // Placement (kernel/parallel_cost.h): GPUs per node, and the links between GPUs inside a
  // node and between nodes. A link with no bandwidth is the GPU's own scale_up link.
  std::int32_t gpus_per_node = 8;
  catalog::Fabric intra_node_link, inter_node_link;
  // vLLM engine arguments (names as in vLLM).
  std::string kv_cache_dtype = "auto";  // auto | bfloat16 | float16 | fp8 | fp8_e4m3 | fp8_e5m2
  std::int32_t block_size = 16;
  double gpu_memory_utilization = 0.9;
  // 0 until set: make_deployment fills vLLM's defaults for the GPU from the rules pack
  // (vllm_batch_defaults), and validate_deployment refuses a value below 1.
  std::int32_t max_num_batched_tokens = 0;
  std::int32_t max_num_seqs = 0;
  std::int64_t max_model_len = 0;  // 0: the model's max_position_embeddings
  std::optional<std::int64_t> kv_cache_memory_bytes;
  std::optional<std::int64_t> num_gpu_blocks_override;
  bool enforce_eager = false;
  // CompilationConfig's CUDA graph settings as the rules pack resolved them (kernel/cuda_graphs.h):
  // the mode (NONE, PIECEWISE, FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE; vLLM's default at
  // optimization level O2 is FULL_AND_PIECEWISE), the user's capture sizes and largest size
  // (unset: vLLM derives them), and what the default sizes depend on.
  std::string cudagraph_mode = "FULL_AND_PIECEWISE";
  std::optional<std::vector<std::int32_t>> cudagraph_capture_sizes;
  std::optional<std::int32_t> max_cudagraph_capture_size;
  std::int32_t num_speculative_tokens = 0;  // k of speculative decoding (0 = off)
  std::string performance_mode = "balanced";
  std::string dtype = "auto";  // auto | bfloat16 | float16 | float32
  std::string quantization;    // "" = as the checkpoint; "fp8" = vLLM's online FP8
  catalog::GpuCoefficients coefficients;
  catalog::MemoryCoefficients memory_coefficients;
  // Which profile of memory_coefficients sizes the KV cache: one of memory_profile_names().
  std::string memory_profile = kMemoryProfileCurrent;

  // memory_coefficients as memory_profile applies them (the legacy values for "vllm-0.15").
  catalog::MemoryCoefficients profiled_memory_coefficients() const {
    return memory_profile == kMemoryProfileVllm015 ? memory_coefficients.legacy()
                                                   : memory_coefficients;
  }

  std::int64_t effective_max_model_len() const {
    return max_model_len > 0 ? max_model_len : model.max_position_embeddings;
  }
};

// The GPU as vLLM's platform reports it (device name and total memory), for the rules
// pack's hardware-dependent defaults and checks.
rules::HardwareFacts hardware_facts(const catalog::Gpu& gpu);

// vLLM's defaults for the OpenAI server on this GPU (EngineArgs.get_batch_defaults) in
// `release`: the rules pack's table (rules::batch_defaults), not a copy of it.
rules::BatchDefaultsRow vllm_batch_defaults(const catalog::Gpu& gpu,
                                            std::string_view release = kDefaultVllmRelease);

// A Deployment of catalog entries with vLLM's defaults in kDefaultVllmRelease (batch limits
// for the GPU, block size 64 for MLA models on NVIDIA Hopper/Blackwell, max_model_len from
// the model). Unknown ids and invalid combinations come back as Diagnostics (pointer "" =
// the deployment).
Diagnostics make_deployment(const catalog::Catalog& catalog, const std::string& gpu_id,
                            const std::string& model_id, std::int32_t tp, Deployment* out);

// The rules vLLM enforces on these settings, with vLLM's own reasons (heads divisible by tp,
// block size, memory utilization range, quantization consistency), and a known memory profile.
Diagnostics validate_deployment(const Deployment& d);

}  // namespace blis::kernel
