#include "kernel/memory_profile.h"

#include <algorithm>
#include <string_view>

#include "kernel/cuda_graphs.h"

namespace blis::kernel {

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

  // CUDA graphs (kernel/cuda_graphs.h): under FULL_AND_PIECEWISE, piecewise graphs for every
  // capture size and full graphs for the uniform-decode sizes up to (1 + k) * max_num_seqs.
  // profile_cudagraph_memory measures the largest graph and extrapolates the others at a fixed
  // cost each, which grows with the kernels a graph holds (its layers).
  const CudaGraphPlan graphs = plan_cuda_graphs(d);
  const std::int32_t mixed = graphs.mixed_graph_count();
  const std::int32_t full = graphs.decode_graph_count();
  p.cuda_graph_count = mixed + full;
  if (p.cuda_graph_count > 0 && c.cuda_graph_in_budget) {
    const std::int64_t per_graph =
        c.cuda_graph_per_graph_per_layer_bytes * static_cast<std::int64_t>(s.layers);
    p.cuda_graph_bytes = forward_peak_bytes(d, s, graphs.max_size()) +
                         per_graph * std::max(0, mixed - 1) + per_graph * std::max(0, full - 1);
  }
  return p;
}

}  // namespace blis::kernel
