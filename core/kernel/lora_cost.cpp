#include "kernel/lora_cost.h"

#include <cstring>

#include "kernel/model_shape.h"

namespace blis::kernel {
namespace {

// LoRA A matrices per wrapped linear: vllm/lora/layers/column_parallel_linear.py keeps one A
// per output slice of the merged layers (MergedQKVParallelLinearWithLoRA: q, k, v;
// MergedColumnParallelLinearWithLoRA: gate, up). 0 = not wrapped here.
int slices(const char* name) {
  if (std::strcmp(name, "qkv_proj") == 0) return 3;
  if (std::strcmp(name, "gate_up_proj") == 0) return 2;
  if (std::strcmp(name, "o_proj") == 0 || std::strcmp(name, "down_proj") == 0) return 1;
  return 0;
}

}  // namespace

LoraCost::LoraCost(const Deployment& d, std::int32_t max_lora_rank)
    : dtype_bytes_(model_dtype_bytes(d)), max_rank_(max_lora_rank) {
  const ModelShape shape = build_model_shape(d);
  for (const Gemm& g : shape.gemms) {
    const int s = slices(g.name);
    if (s == 0) continue;
    dims_per_rank_ += static_cast<double>(g.layers) * (static_cast<double>(s) * g.k + g.n);
  }
  hbm_bytes_per_us_ = d.gpu.hbm_bandwidth_bytes_per_s / 1e6 * d.coefficients.hbm_derate;
  flops_per_us_ = d.gpu.bf16_dense_tflops * 1e6;
}

std::int64_t LoraCost::adapter_bytes(std::int32_t rank) const {
  return static_cast<std::int64_t>(static_cast<double>(rank) * dims_per_rank_ * dtype_bytes_);
}

double LoraCost::load_us(std::int64_t bytes, const catalog::Fabric& host) const {
  if (bytes <= 0 || host.bandwidth_bytes_per_s <= 0) return 0;
  const double eff = host.efficiency > 0 ? host.efficiency : 1.0;
  return host.latency_us + static_cast<double>(bytes) / (host.bandwidth_bytes_per_s * eff / 1e6);
}

// Estimate. The punica kernels (vllm/lora/ops/triton_ops lora_shrink / lora_expand) run
// over the stacked slot buffers at max_lora_rank: shrink reads x and A, expand reads B and
// adds into y. At decode-sized batches they are memory bound, so the dominant term is each
// active adapter's A and B read from HBM once per step at the achieved weight-streaming rate
// (hbm_derate); the arithmetic, 2 x tokens x max_lora_rank x (slices x in + out) per layer,
// is added at the bf16 dense peak (a lower bound: the skinny GEMMs run well below peak, but
// the term is small next to the base model's GEMMs). Launch overheads are inside the CUDA
// graph replay the step pricer already counts.
double LoraCost::step_us(std::int32_t active, std::int64_t lora_tokens) const {
  if (active <= 0) return 0;
  const double weight_bytes = static_cast<double>(active) * adapter_bytes(max_rank_);
  const double memory_us = hbm_bytes_per_us_ > 0 ? weight_bytes / hbm_bytes_per_us_ : 0;
  const double flops = 2.0 * static_cast<double>(lora_tokens) * max_rank_ * dims_per_rank_;
  const double compute_us = flops_per_us_ > 0 ? flops / flops_per_us_ : 0;
  return memory_us + compute_us;
}

}  // namespace blis::kernel
