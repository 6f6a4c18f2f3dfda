#pragma once
// LoRA costs (docs/latency-model.md "LoRA"): the bytes one adapter holds on one GPU, the
// time to copy it over the GPU's host link, and the per-step overhead of vLLM's punica
// kernels (SGMV shrink + expand) for the adapters active in a batch.
//
// Adapter size, per GPU of a tensor-parallel group: rank x (slices x in + out) x dtype bytes
// for each linear vLLM wraps with a LoRA layer (qkv_proj: 3 A slices, o_proj, gate_up_proj:
// 2 A slices, down_proj), times the layers it sits in; in/out are the sharded dims of the
// model shape (a column-parallel layer shards B, a row-parallel one A, as vllm/lora/layers
// do). MoE expert LoRA and MLA projections are not counted.

#include <cstdint>

#include "catalog/entries.h"
#include "kernel/deployment.h"

namespace blis::kernel {

class LoraCost {
 public:
  // `max_lora_rank`: vLLM's slot buffers are allocated at this rank (lora_a_stacked /
  // lora_b_stacked in vllm/lora/layers/base_linear.py), and the punica kernels run over it.
  LoraCost(const Deployment& d, std::int32_t max_lora_rank);

  // Bytes of an adapter of rank `rank` on one GPU.
  std::int64_t adapter_bytes(std::int32_t rank) const;
  // Microseconds to copy `bytes` over `host` (latency + bytes at the achieved bandwidth).
  double load_us(std::int64_t bytes, const catalog::Fabric& host) const;
  // Extra GPU time of a step with `active` distinct adapters over `lora_tokens` tokens of
  // LoRA requests: the slot buffers of the active adapters streamed from HBM once per step
  // plus the shrink/expand arithmetic (an estimate: see the .cpp).
  double step_us(std::int32_t active, std::int64_t lora_tokens) const;

 private:
  double dims_per_rank_ = 0;  // sum over wrapped linears and layers of slices x in + out
  double dtype_bytes_ = 2;
  std::int32_t max_rank_ = 16;
  double hbm_bytes_per_us_ = 0, flops_per_us_ = 0;
};

}  // namespace blis::kernel
