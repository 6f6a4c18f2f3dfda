#pragma once
// ModelShape: what one tensor-parallel rank of a deployment holds and computes, derived once
// from the model's config and vLLM's sharding rules (column/row-parallel linears, KV heads
// replicated when there are fewer than tp, vocabulary padded to 64 and split, MoE experts
// split along their intermediate size). Both the step pricer and the memory budget use it.

#include <cstdint>
#include <vector>

#include "kernel/deployment.h"

namespace blis::kernel {

// Which StepCost term a GEMM belongs to.
enum class GemmTerm { kDense, kMoe };

// One linear layer on one rank: y[M, n] = x[M, k] * W[k, n], present in `layers` layers.
struct Gemm {
  const char* name = "";
  std::int64_t k = 0, n = 0;
  double weight_bytes = 2;   // per parameter, including quantization scales
  bool fp8_compute = false;  // runs at the FP8 tensor-core rate
  std::int32_t layers = 0;
  GemmTerm term = GemmTerm::kDense;
};

// Weight bytes per rank, by part (vLLM's "Model loading took X GiB" is their sum).
struct WeightBytes {
  std::int64_t embedding = 0, lm_head = 0, attention = 0, dense_mlp = 0, experts = 0,
               shared_experts = 0, router = 0, norms = 0, rotary_cache = 0, extra = 0;
  std::int64_t total() const {
    return embedding + lm_head + attention + dense_mlp + experts + shared_experts + router + norms +
           rotary_cache + extra;
  }
};

struct ModelShape {
  std::int32_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t vocab = 0;                         // logits columns after the all-gather
  std::int32_t heads = 0;                         // query heads per rank
  std::int32_t kv_heads = 0;                      // KV heads per rank (0 for MLA)
  std::int32_t qk_dim = 0, v_dim = 0;             // per-head dims the attention kernel multiplies
  double act_bytes = 2;                           // bytes per activation element
  double kv_elem_bytes = 2;                       // bytes per KV-cache element
  std::int64_t kv_bytes_per_token_per_layer = 0;  // on this rank
  bool mla = false;

  // Attention layers by kind (chunked local attention counts as windowed for compute).
  std::int32_t full_layers = 0, window_layers = 0;
  std::int32_t window = 0;
  // KV-cache layers: vLLM disables the hybrid KV cache manager for chunked local attention
  // (VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE off), so those layers cache fully.
  std::int32_t kv_full_layers = 0, kv_sliding_layers = 0;

  std::vector<Gemm> gemms;  // per-layer linears (attention, dense MLP, shared experts, router)
  Gemm lm_head;             // runs on the sampled rows only

  // Routed experts (fused MoE).
  std::int32_t moe_layers = 0, experts = 0, top_k = 0;
  // Expert parallelism: ranks the experts are sharded over (1 = none) and the experts one
  // rank holds (all of them without EP).
  std::int32_t ep_size = 1, local_experts = 0;
  std::int64_t expert_intermediate = 0;  // per rank, after padding
  double expert_weight_bytes = 2;
  bool expert_fp8_compute = false;

  WeightBytes weights;
};

ModelShape build_model_shape(const Deployment& d);

// Bytes per parameter of the unquantized weights (model dtype after the `dtype` override).
double model_dtype_bytes(const Deployment& d);

}  // namespace blis::kernel
