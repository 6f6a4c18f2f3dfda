#pragma once
// What vLLM's start-up profiling reserves besides weights and KV cache (v1
// worker/gpu_worker.py determine_available_memory):
//   torch peak increase  profile_run: a forward pass of max_num_batched_tokens tokens, then
//                        the sampler on min(max_num_seqs, max_num_batched_tokens) rows
//   non-torch increase   allocations outside PyTorch made during profiling (library
//                        workspaces, NCCL buffers connected on first use)
//   CUDA graphs          profile_cudagraph_memory's estimate (subtracted since vLLM 0.21)

#include <cstdint>

#include "kernel/deployment.h"
#include "kernel/model_shape.h"

namespace blis::kernel {

struct MemoryProfile {
  std::int64_t forward_peak_bytes = 0;     // the forward pass's transient peak
  std::int64_t sampler_peak_bytes = 0;     // logits and sampler temporaries
  std::int64_t activation_peak_bytes = 0;  // torch peak increase: the larger of the two
  std::int64_t non_torch_bytes = 0;
  std::int64_t cuda_graph_bytes = 0;
  std::int32_t cuda_graph_count = 0;  // graphs vLLM captures (piecewise + full)
};

MemoryProfile estimate_memory_profile(const Deployment& d, const ModelShape& s);

// Bytes of the forward pass's transient peak for `tokens` tokens on one rank.
std::int64_t forward_peak_bytes(const Deployment& d, const ModelShape& s, std::int64_t tokens);

}  // namespace blis::kernel
