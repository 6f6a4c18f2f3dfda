#include "kernel/memory_profile.h"

#include <algorithm>
#include <string_view>

namespace blis::kernel {

std::int32_t count_capture_sizes(std::int32_t max_size) {
  std::int32_t n = 0;
  for (std::int32_t s : {1, 2, 4}) n += s <= max_size ? 1 : 0;
  for (std::int32_t s = 8; s <= std::min(max_size, 256); s += 8) ++n;
  for (std::int32_t s = 272; s <= max_size; s += 16) ++n;
  return n;
}

std::int64_t forward_peak_bytes(const Deployment& d, const ModelShape& s, std::int64_t tokens) {
  // The activation coefficients are the same in every profile.
  const auto& c = d.memory_coefficients;
  const double t = static_cast<double>(tokens);
  // Attention transient: the fused QKV output and the attention output (MLA: q, the
  // decompressed k/v of kv_b_proj, and the output).
  double attn_cols = 0;
  for (const auto& g : s.gemms) {
    if (g.term != GemmTerm::kDense) continue;
    if (std::string_view(g.name) == "qkv_proj" || std::string_view(g.name) == "q_b_proj" ||
        std::string_view(g.name) == "kv_b_proj") {
      attn_cols += static_cast<double>(g.n);
    }
  }
  attn_cols += static_cast<double>(s.heads) * s.v_dim;
  // Feed-forward transient: SwiGLU's gate_up output plus the activated half, or fused_moe's
  // intermediate caches ([T, k, 2F], [T*k, F], [T, k, hidden]).
  double mlp_cols = 0;
  for (const auto& g : s.gemms) {
    if (std::string_view(g.name) == "gate_up_proj") mlp_cols = std::max(mlp_cols, 1.5 * g.n);
  }
  if (s.moe_layers > 0) {
    const double moe_cols =
        static_cast<double>(s.top_k) * (3.0 * s.expert_intermediate + s.hidden) + s.experts;
    mlp_cols = std::max(mlp_cols, moe_cols);
  }
  const double cols = c.activation_hidden_streams * s.hidden +
                      std::max(attn_cols, c.activation_mlp_factor * mlp_cols);
  return static_cast<std::int64_t>(t * cols * s.act_bytes + 0.5);
}

MemoryProfile estimate_memory_profile(const Deployment& d, const ModelShape& s) {
  const catalog::MemoryCoefficients c = d.profiled_memory_coefficients();
  MemoryProfile p;
  const std::int64_t tokens = d.max_num_batched_tokens;
  p.forward_peak_bytes = forward_peak_bytes(d, s, tokens);
  // _dummy_sampler_run: logits for one row per request, min(max_num_seqs, tokens) rows, while
  // the forward's hidden states are still held.
  const std::int64_t rows = std::min<std::int64_t>(d.max_num_seqs, tokens);
  p.sampler_peak_bytes = static_cast<std::int64_t>(
      static_cast<double>(rows) * static_cast<double>(s.vocab) * c.sampler_bytes_per_logit +
      static_cast<double>(tokens) * static_cast<double>(s.hidden) * s.act_bytes + 0.5);
  p.activation_peak_bytes = std::max(p.forward_peak_bytes, p.sampler_peak_bytes);

  p.non_torch_bytes = c.non_torch_base_bytes;
  if (d.tp == 2) p.non_torch_bytes += c.nccl_bytes_tp2;
  if (d.tp > 2) p.non_torch_bytes += c.nccl_bytes_tp4_plus;
  if (d.pp > 1) p.non_torch_bytes += c.nccl_bytes_tp2;  // the stage-to-stage communicator

  if (!d.enforce_eager) {
    // CUDA graphs (FULL_AND_PIECEWISE): piecewise graphs for every capture size up to
    // min(2 * max_num_seqs, 512) and full graphs for the uniform-decode sizes up to
    // max_num_seqs. profile_cudagraph_memory measures the largest graph and extrapolates the
    // others at a fixed cost each, which grows with the kernels a graph holds (its layers).
    const std::int32_t max_size = std::min<std::int32_t>(
        {c.max_cudagraph_capture_size, 2 * d.max_num_seqs, d.max_num_batched_tokens});
    const std::int32_t piecewise = count_capture_sizes(max_size);
    const std::int32_t full = count_capture_sizes(std::min(max_size, d.max_num_seqs));
    p.cuda_graph_count = piecewise + full;
    if (c.cuda_graph_in_budget) {
      const std::int64_t per_graph =
          c.cuda_graph_per_graph_per_layer_bytes * static_cast<std::int64_t>(s.layers);
      p.cuda_graph_bytes = forward_peak_bytes(d, s, max_size) +
                           per_graph * std::max(0, piecewise - 1) +
                           per_graph * std::max(0, full - 1);
    }
  }
  return p;
}

}  // namespace blis::kernel
