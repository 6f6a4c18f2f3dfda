#include "kernel/model_shape.h"

#include <algorithm>

namespace blis::kernel {

namespace {

std::int64_t round_up(std::int64_t x, std::int64_t m) {
  return m <= 0 ? x : (x + m - 1) / m * m;
}

std::int64_t bytes(double params, double bytes_per_param) {
  return static_cast<std::int64_t>(params * bytes_per_param + 0.5);
}

// How a weight group is stored and computed: the checkpoint's quantization (or vLLM's online
// FP8 when --quantization fp8 is given: all linear layers but the LM head).
struct Storage {
  double bytes;
  bool fp8_compute;
};

Storage storage_for(const Deployment& d, const char* group, double dtype_bytes) {
  const auto& q = d.model.quantization;
  const bool gpu_fp8 = d.gpu.fp8_dense_tflops > 0;
  if (q.applies_to(group)) {
    // W8A8-FP8 runs on FP8 tensor cores where the GPU has them; otherwise vLLM falls back to
    // weight-only kernels (Marlin) at the 16-bit rate, as do W4A16 and MXFP4 on Hopper
    // (latency-kernel.md A.2, BLIS roofline.go).
    return {q.weight_bytes_per_param, q.activation == "fp8" && gpu_fp8};
  }
  if (d.quantization == "fp8") return {1.0, gpu_fp8};
  return {dtype_bytes, false};
}

}  // namespace

double model_dtype_bytes(const Deployment& d) {
  const std::string& t = d.dtype == "auto" ? d.model.torch_dtype : d.dtype;
  return t == "float32" ? 4.0 : 2.0;
}

namespace {

// The MoE layers: routed experts (split over tp x dp ranks, or whole experts per rank with
// expert parallelism), the router and any shared experts.
void add_moe_layers(const Deployment& d, double wb, ModelShape& s) {
  const catalog::Model& m = d.model;
  const std::int32_t tp = std::max(1, d.tp);
  const std::int64_t hd = m.hidden_size;
  const auto& moe = m.moe;
  const Storage ex = storage_for(d, "experts", wb);
  s.experts = moe.num_experts;
  s.top_k = moe.experts_per_token;
  // vllm fused_moe/config.py FusedMoEParallelConfig.make: the MoE layers' tensor-parallel
  // group is flattened across the DP ranks (tp x dp); with enable_expert_parallel (and more
  // than one such rank) each rank owns E / (tp x dp) experts whole instead (ep_size = that
  // flattened size, tp_size 1; determine_expert_map gives the remainder to the first ranks).
  const std::int32_t moe_ranks = tp * std::max(1, d.dp);
  const bool use_ep = d.enable_expert_parallel && moe_ranks > 1;
  s.ep_size = use_ep ? moe_ranks : 1;
  s.local_experts = use_ep ? (moe.num_experts + moe_ranks - 1) / moe_ranks : moe.num_experts;
  const std::int32_t expert_tp = use_ep ? 1 : moe_ranks;
  // vllm quantization/mxfp4.py pads the per-rank intermediate size (Hopper: multiple of 256).
  s.expert_intermediate =
      round_up(moe.expert_intermediate_size / expert_tp,
               m.quantization.method.empty() ? 0 : m.quantization.pad_intermediate_to);
  s.expert_weight_bytes = ex.bytes;
  s.expert_fp8_compute = ex.fp8_compute;
  const double expert_params =
      static_cast<double>(s.local_experts) * 3.0 * hd * s.expert_intermediate;
  s.weights.experts += bytes(expert_params * s.moe_layers, ex.bytes);
  if (m.attention_bias) {
    // gpt-oss experts carry biases on gate_up and down (bf16).
    s.weights.experts += bytes(
        static_cast<double>(s.moe_layers) * s.local_experts * (2 * s.expert_intermediate + hd), wb);
  }
  // Router: replicated d x E in the model dtype.
  s.gemms.push_back({"router", hd, moe.num_experts, wb, false, s.moe_layers, GemmTerm::kMoe});
  s.weights.router += bytes(static_cast<double>(hd) * moe.num_experts * s.moe_layers, wb);
  if (moe.num_shared_experts > 0) {
    const Storage sh = storage_for(d, "shared_experts", wb);
    const std::int64_t fs = moe.shared_expert_intermediate_size * moe.num_shared_experts / tp;
    s.gemms.push_back(
        {"shared_gate_up", hd, 2 * fs, sh.bytes, sh.fp8_compute, s.moe_layers, GemmTerm::kMoe});
    s.gemms.push_back(
        {"shared_down", fs, hd, sh.bytes, sh.fp8_compute, s.moe_layers, GemmTerm::kMoe});
    s.weights.shared_experts += bytes(static_cast<double>(hd) * 3 * fs * s.moe_layers, sh.bytes);
  }
}

}  // namespace

ModelShape build_model_shape(const Deployment& d) {
  const catalog::Model& m = d.model;
  const std::int32_t tp = std::max(1, d.tp);
  const double wb = model_dtype_bytes(d);
  ModelShape s;
  s.layers = m.num_hidden_layers;
  s.hidden = m.hidden_size;
  s.vocab = m.vocab_size;
  s.act_bytes = wb;
  s.kv_elem_bytes = d.kv_cache_dtype.rfind("fp8", 0) == 0 ? 1.0
                    : d.kv_cache_dtype == "auto"          ? wb
                                                          : 2.0;
  s.heads = m.num_attention_heads / tp;
  s.mla = m.is_mla();
  const std::int64_t hd = m.hidden_size;

  // Attention layers by kind.
  s.window = m.layer_attention.window;
  for (std::int32_t i = 0; i < m.num_hidden_layers; ++i) {
    const auto kind = m.layer_attention_kind(i);
    if (kind == catalog::AttentionKind::kFull) {
      ++s.full_layers;
      ++s.kv_full_layers;
    } else {
      ++s.window_layers;
      if (kind == catalog::AttentionKind::kSliding) {
        ++s.kv_sliding_layers;
      } else {
        ++s.kv_full_layers;
      }
    }
  }

  const Storage attn = storage_for(d, "attention", wb);
  const std::int32_t L = m.num_hidden_layers;
  if (s.mla) {
    // DeepSeek MLA (vllm model_executor/models/deepseek_v2.py): fused q_a/kv_a projection
    // replicated on every rank, q_b and kv_b column-parallel, o_proj row-parallel. The cache
    // holds one latent (kv_lora_rank + qk_rope_head_dim) per token, not split by tp.
    const auto& a = m.mla;
    const std::int64_t qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    s.kv_heads = 0;
    // Absorbed decode attention multiplies against the 576-wide latent (QK) and the 512-wide
    // latent (PV) per head.
    s.qk_dim = a.kv_lora_rank + a.qk_rope_head_dim;
    s.v_dim = a.kv_lora_rank;
    s.kv_bytes_per_token_per_layer =
        bytes(static_cast<double>(a.kv_lora_rank + a.qk_rope_head_dim), s.kv_elem_bytes);
    const std::int64_t q_in = a.q_lora_rank > 0 ? a.q_lora_rank : hd;
    s.gemms.push_back(
        {"qkv_a_proj", hd,
         (a.q_lora_rank > 0 ? a.q_lora_rank : 0) + a.kv_lora_rank + a.qk_rope_head_dim, attn.bytes,
         attn.fp8_compute, L});
    s.gemms.push_back({"q_b_proj", q_in, s.heads * qk_head, attn.bytes, attn.fp8_compute, L});
    s.gemms.push_back({"kv_b_proj", a.kv_lora_rank,
                       s.heads * static_cast<std::int64_t>(a.qk_nope_head_dim + a.v_head_dim),
                       attn.bytes, attn.fp8_compute, L});
    s.gemms.push_back({"o_proj", s.heads * static_cast<std::int64_t>(a.v_head_dim), hd, attn.bytes,
                       attn.fp8_compute, L});
    s.weights.norms += bytes(static_cast<double>(L) * (a.q_lora_rank + a.kv_lora_rank), wb);
  } else {
    const std::int32_t kv = m.num_key_value_heads;
    s.kv_heads = kv >= tp ? kv / tp : 1;
    s.qk_dim = m.head_dim;
    s.v_dim = m.head_dim;
    s.kv_bytes_per_token_per_layer = bytes(2.0 * s.kv_heads * m.head_dim, s.kv_elem_bytes);
    const std::int64_t qkv_n = static_cast<std::int64_t>(s.heads + 2 * s.kv_heads) * m.head_dim;
    s.gemms.push_back({"qkv_proj", hd, qkv_n, attn.bytes, attn.fp8_compute, L});
    s.gemms.push_back({"o_proj", static_cast<std::int64_t>(s.heads) * m.head_dim, hd, attn.bytes,
                       attn.fp8_compute, L});
    if (m.attention_bias) s.weights.attention += bytes(static_cast<double>(L) * qkv_n, wb);
    if (m.qk_norm) s.weights.norms += bytes(2.0 * L * m.head_dim, wb);
  }
  for (const auto& g : s.gemms) {
    s.weights.attention += bytes(static_cast<double>(g.k) * g.n * g.layers, g.weight_bytes);
  }

  // Feed-forward: dense layers, MoE layers (routed experts + shared experts + router).
  std::int32_t dense_layers = 0;
  for (std::int32_t i = 0; i < L; ++i) {
    if (m.layer_is_moe(i)) {
      ++s.moe_layers;
    } else {
      ++dense_layers;
    }
  }
  if (dense_layers > 0) {
    const Storage mlp = storage_for(d, "dense_mlp", wb);
    const std::int64_t f = m.intermediate_size / tp;
    Gemm up{"gate_up_proj", hd, 2 * f, mlp.bytes, mlp.fp8_compute, dense_layers};
    Gemm down{"down_proj", f, hd, mlp.bytes, mlp.fp8_compute, dense_layers};
    s.weights.dense_mlp += bytes(static_cast<double>(hd) * 3 * f * dense_layers, mlp.bytes);
    s.gemms.push_back(up);
    s.gemms.push_back(down);
  }
  if (s.moe_layers > 0) add_moe_layers(d, wb, s);

  // Embedding and LM head: VocabParallelEmbedding pads the vocabulary to a multiple of 64 and
  // splits it across ranks; a tied LM head shares the embedding's weight.
  const std::int64_t vocab_rank = round_up(m.vocab_size, 64) / tp;
  s.weights.embedding = bytes(static_cast<double>(vocab_rank) * hd, wb);
  s.weights.lm_head = m.tie_word_embeddings ? 0 : s.weights.embedding;
  s.lm_head = {"lm_head", hd, vocab_rank, wb, false, 1};
  // RMSNorms: two per layer plus the final one, replicated.
  s.weights.norms += bytes((2.0 * L + 1.0) * hd, wb);
  // The rotary cos/sin cache vLLM builds for max_position_embeddings positions
  // (layers/rotary_embedding.py: cache = cache.to(dtype)).
  const std::int64_t rotary_dim = s.mla ? m.mla.qk_rope_head_dim : m.head_dim;
  s.weights.rotary_cache = bytes(static_cast<double>(m.max_position_embeddings) * rotary_dim, wb);
  // Extra parts (a vision tower) use tensor-parallel linears as well.
  s.weights.extra = bytes(static_cast<double>(m.extra_params) / tp, wb);
  return s;
}

}  // namespace blis::kernel
