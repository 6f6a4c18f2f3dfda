#include "kernel/step_pricer.h"

#include <algorithm>
#include <cmath>

#include "kernel/kv_capacity.h"
#include "kernel/parallel_cost.h"
#include "util/det_math.h"

namespace blis::kernel {

namespace {

// Query-key pairs a chunk of c new tokens after p cached ones computes under a causal mask,
// when each query sees at most `window` keys (window <= 0: unlimited). Token j (1-based) of
// the chunk sees min(p + j, window) keys.
double attended_pairs(double c, double p, double window) {
  const double full = c * p + c * (c + 1) / 2;
  if (window <= 0 || p + c <= window) return full;
  if (p >= window) return c * window;
  // Positions p+1 .. window see themselves and all before; the rest see `window`.
  const double ramp = window * (window + 1) / 2 - p * (p + 1) / 2;
  return ramp + (p + c - window) * window;
}

double ramp_efficiency(const catalog::GemmRamp& r, double m) {
  return r.eps_max * m / (m + r.m_half);
}

}  // namespace

StepPricer::StepPricer(const Deployment& d)
    : d_(d), shape_(build_model_shape(d)), c_(d.coefficients) {
  bf16_flops_per_us_ = d.gpu.bf16_dense_tflops * 1e6;
  fp8_flops_per_us_ =
      d.gpu.fp8_dense_tflops > 0 ? d.gpu.fp8_dense_tflops * 1e6 : bf16_flops_per_us_;
  hbm_bytes_per_us_ = d.gpu.hbm_bandwidth_bytes_per_s / 1e6;
  link_bytes_per_us_ = d.gpu.scale_up.bandwidth_bytes_per_s / 1e6;
  const catalog::Model& m = d.model;
  if (shape_.mla) {
    prefill_flops_per_pair_ =
        2.0 * shape_.heads * (m.mla.qk_nope_head_dim + m.mla.qk_rope_head_dim + m.mla.v_head_dim);
  } else {
    prefill_flops_per_pair_ = 2.0 * shape_.heads * (shape_.qk_dim + shape_.v_dim);
  }
  decode_flops_per_pair_ = 2.0 * shape_.heads * (shape_.qk_dim + shape_.v_dim);
  // The capture sizes and graph mode vLLM sets up (kernel/cuda_graphs.h).
  graphs_ = plan_cuda_graphs(d);
  max_graph_tokens_ = graphs_.max_size();
  for (const auto& g : shape_.gemms) {
    (g.term == GemmTerm::kMoe ? moe_gemms_ : dense_gemms_).push_back(g);
  }
  expert_bytes_ = 3.0 * static_cast<double>(shape_.hidden) *
                  static_cast<double>(shape_.expert_intermediate) * shape_.expert_weight_bytes;
}

double StepPricer::gemm_time_us(const Gemm& g, double m) const {
  if (m <= 0) return 0;
  const catalog::GemmRamp& ramp = g.fp8_compute ? c_.gemm_fp8 : c_.gemm_bf16;
  const double peak = g.fp8_compute ? fp8_flops_per_us_ : bf16_flops_per_us_;
  const double k = static_cast<double>(g.k), n = static_cast<double>(g.n);
  const double flops = 2.0 * m * k * n;
  const double bytes = k * n * g.weight_bytes + m * (k + n) * shape_.act_bytes;
  const double compute_us = flops / (peak * ramp_efficiency(ramp, m));
  const double memory_us = bytes / (hbm_bytes_per_us_ * c_.hbm_derate);
  return std::max({compute_us, memory_us, c_.kernel_floor_us});
}

double StepPricer::padded_tokens(double tokens, bool uniform_decode) const {
  const auto n = static_cast<std::int32_t>(std::ceil(tokens));
  if (graphs_.dispatch(n, uniform_decode) == GraphRun::kEager) return tokens;
  return static_cast<double>(graphs_.padded(n));
}

// Routed experts (latency-kernel.md A.5): the weights of the experts the batch touches,
// n_eff = E (1 - ((E - k) / E)^N) under uniform routing, read at the expert derate (fused_moe
// streams whole expert matrices), plus their arithmetic at the GEMM's peak efficiency, added
// rather than overlapped (blis-latency-kernel's fit on expert GEMMs), plus the routing kernels
// (top-k softmax, token sort/align, the weighted combine). The ramp's low end is itself
// memory-bound, so applying it to the arithmetic as well would count small batches' weight
// reads twice. Router and shared experts are GEMMs.
// With expert parallelism a rank holds local_experts of the E and receives the share 1/ep of
// the routed rows.
double StepPricer::moe_time_us(double tokens, double routed_tokens) const {
  const ModelShape& s = shape_;
  double us = 0;
  for (const Gemm& g : moe_gemms_) us += g.layers * gemm_time_us(g, tokens);
  if (s.moe_layers <= 0 || routed_tokens <= 0) return us;
  const double e = s.experts, k = s.top_k;
  const double touched = s.local_experts * (1.0 - dmath::pow((e - k) / e, routed_tokens));
  const double f = static_cast<double>(s.expert_intermediate);
  const double hidden = static_cast<double>(s.hidden);
  const double rows_routed = routed_tokens * k / s.ep_size;
  const double derate = c_.moe_expert_derate > 0 ? c_.moe_expert_derate : c_.hbm_derate;
  const double bytes =
      touched * expert_bytes_ + rows_routed * (2.0 * hidden + 3.0 * f) * s.act_bytes;
  const double flops = 2.0 * rows_routed * 3.0 * hidden * f;
  const catalog::GemmRamp& ramp = s.expert_fp8_compute ? c_.gemm_fp8 : c_.gemm_bf16;
  const double peak = s.expert_fp8_compute ? fp8_flops_per_us_ : bf16_flops_per_us_;
  const double layer_us = (bytes / (hbm_bytes_per_us_ * derate) + flops / (peak * ramp.eps_max)) *
                              c_.moe_routing_imbalance +
                          2.0 * c_.kernel_floor_us + c_.moe_routing_us;
  return us + s.moe_layers * layer_us;
}

// Tensor parallelism: two all-reduces of [tokens, hidden] per layer (after attention and after
// the MLP/MoE), ring traffic 2(tp-1)/tp of the message (latency-kernel.md A.6), with a fixed
// latency that grows with the number of peers (vLLM's one-shot custom all-reduce reads every
// peer's buffer; Vidur h100_dgx: about 7 us at 2 GPUs, 20-40 us at 4-8); the LM head's logits
// are gathered. Pipeline stages send the hidden state and residual on.
double StepPricer::tp_comm_time_us(double tokens, double rows) const {
  const ModelShape& s = shape_;
  const double tp = d_.tp;
  const double link = link_bytes_per_us_ * c_.allreduce_bus_efficiency;
  const double latency = c_.allreduce_latency_us + c_.allreduce_latency_per_peer_us * (tp - 1);
  double us = 0;
  if (d_.tp > 1) {
    const double message = tokens * static_cast<double>(s.hidden) * s.act_bytes;
    us += 2.0 * s.layers * (latency + message * 2.0 * (tp - 1) / tp / link);
    if (rows > 0) {
      us += latency + rows * static_cast<double>(s.vocab) * s.act_bytes * (tp - 1) / tp / link;
    }
  }
  return us;
}

// Pipeline parallelism (latency-kernel.md A.6): a pass crosses the stages one after another,
// so its latency is the sum of the stages' work (the layer terms priced above, over all
// layers) plus every boundary's hand-off; the next pass enters the first stage once the
// busiest stage is free. Each stage does its layers' share (vllm/distributed/utils.py
// get_pp_indices) of the layer terms and launches its own graphs; the last stage also runs
// the LM head and the sampler.
void StepPricer::add_pipeline(StepCost& cost, double tokens, double lm_head_us) const {
  const ModelShape& s = shape_;
  const double layer_us = cost.gemm_us - lm_head_us + cost.prefill_attention_us +
                          cost.decode_attention_us + cost.moe_us + cost.tp_comm_us +
                          cost.other_memory_us + cost.ep_comm_us;
  const auto ranges = stage_ranges(s.layers, d_.pp);
  double busiest = 0;
  for (std::size_t i = 0; i < ranges.size(); ++i) {
    const double share =
        static_cast<double>(ranges[i].second - ranges[i].first) / std::max(1, s.layers);
    const bool last = i + 1 == ranges.size();
    const double send = last ? 0 : pp_handoff_us(d_, s, tokens, static_cast<std::int32_t>(i));
    cost.pp_handoff_us += send;
    if (!last)
      cost.cross_node_us += pp_handoff_cross_node_us(d_, s, tokens, static_cast<std::int32_t>(i));
    const double stage =
        layer_us * share + (last ? lm_head_us + cost.sampler_us : 0) + cost.host_us + send;
    busiest = std::max(busiest, stage);
  }
  cost.pp_stage_us = busiest;
}

StepPricer::BatchTotals StepPricer::tally(const engine::Batch& batch) const {
  const ModelShape& s = shape_;
  const double window = s.window;
  const double kvb = static_cast<double>(s.kv_bytes_per_token_per_layer);
  BatchTotals t;
  std::int32_t decode_width = -1;
  const double attn_eff_max = c_.attention_prefill_eff_max;
  for (const engine::ScheduledRequest& r : batch.requests) {
    if (r.num_tokens <= 0) continue;
    const double c = r.num_tokens, p = r.context_before;
    t.tokens += c;
    t.requests += 1;
    if (r.samples) t.rows += 1.0 + r.num_spec_tokens;
    if (r.num_prefill_tokens > 0) {
      // Prefill chunk (FlashAttention varlen): compute-bound, quadratic in the chunk; the
      // efficiency grows with the attended length (latency-kernel.md A.3). A chunk that shares
      // the step with decodes is priced in the same mixed batch (one pass of the linears).
      t.any_prefill = true;
      t.uniform_decode = false;
      const double attended = p + c;
      const double eff = attn_eff_max * attended / (attended + c_.attention_prefill_s_half);
      const double flops =
          prefill_flops_per_pair_ * (s.full_layers * attended_pairs(c, p, 0) +
                                     s.window_layers * attended_pairs(c, p, window));
      t.pf_compute_us += flops / (bf16_flops_per_us_ * eff);
      t.pf_bytes += kvb * (s.full_layers * attended +
                           s.window_layers * (std::min(p, window > 0 ? window : p) + c));
    } else {
      // Decode (and spec-decode verification): reads the whole cached context once
      // (latency-kernel.md A.4).
      t.decodes += 1;
      if (decode_width < 0) decode_width = r.num_tokens;
      if (r.num_tokens != decode_width) t.uniform_decode = false;
      const double kv_len = p + c;
      const double windowed = window > 0 ? std::min(kv_len, window) : kv_len;
      t.dc_bytes += kvb * (s.full_layers * kv_len + s.window_layers * windowed);
      t.dc_flops +=
          decode_flops_per_pair_ * c * (s.full_layers * kv_len + s.window_layers * windowed);
    }
  }
  return t;
}

StepCost StepPricer::price_in_group(const engine::Batch& batch, double group_max_tokens) const {
  StepCost cost;
  const bool in_group = group_max_tokens >= 0 && d_.dp > 1;
  const ModelShape& s = shape_;
  const double kvb = static_cast<double>(s.kv_bytes_per_token_per_layer);
  const BatchTotals t = tally(batch);
  double tokens = t.tokens;
  const double rows = t.rows, requests = t.requests, decodes = t.decodes;
  const double pf_compute_us = t.pf_compute_us, pf_bytes = t.pf_bytes;
  const double dc_bytes = t.dc_bytes, dc_flops = t.dc_flops;
  const bool any_prefill = t.any_prefill, uniform_decode = t.uniform_decode;
  // An idle DP rank runs a dummy pass of one token (gpu_model_runner _dummy_run), padded
  // like the others.
  if (in_group && tokens <= 0) tokens = 1;
  if (tokens <= 0) return cost;
  const double layers = s.layers;
  const double hbm = hbm_bytes_per_us_ * c_.hbm_derate;
  // Inside a CUDA graph the linears, norms and all-reduces run on the padded batch; DP ranks
  // pad to the group's largest count when the graphs are on.
  const GraphRun run =
      graphs_.dispatch(static_cast<std::int32_t>(std::ceil(tokens)), uniform_decode && decodes > 0);
  const double own_graph_tokens = padded_tokens(tokens, uniform_decode && decodes > 0);
  const double group_graph_tokens =
      in_group ? padded_tokens(std::max(tokens, group_max_tokens), uniform_decode && decodes > 0)
               : own_graph_tokens;
  const bool dp_pad = in_group && max_graph_tokens_ > 0 && group_graph_tokens <= max_graph_tokens_;
  const double graph_tokens = dp_pad ? group_graph_tokens : own_graph_tokens;

  // Dense GEMMs: every token goes through every linear; the LM head only for sampled rows.
  for (const Gemm& g : dense_gemms_) cost.gemm_us += g.layers * gemm_time_us(g, graph_tokens);
  const double lm_head_us = gemm_time_us(s.lm_head, rows);
  cost.gemm_us += lm_head_us;

  // Attention.
  if (any_prefill) {
    cost.prefill_attention_us =
        std::max(pf_compute_us, pf_bytes / hbm) + layers * c_.attention_floor_us;
  }
  if (decodes > 0) {
    // Paged decode attention: a fixed cost per call, a cost per sequence (split-KV scheduling,
    // block-table walk, the merge of the splits) and the KV read (InferSim H100 FlashInfer
    // decode: about 10 us + bytes at 78% of peak per layer, GQA and MHA alike).
    cost.decode_attention_us =
        std::max(dc_bytes / (hbm_bytes_per_us_ * c_.attention_decode_derate),
                 dc_flops / (bf16_flops_per_us_ * c_.attention_prefill_eff_max)) +
        layers * (c_.attention_floor_us + c_.attention_decode_per_seq_us * decodes);
  }

  // DP on an MoE model: the routed experts see every rank's tokens (the all-gather), each
  // rank contributing the group's largest count (kernel/parallel_cost.h).
  const double group_tokens = in_group ? std::max(graph_tokens, group_graph_tokens) : graph_tokens;
  cost.moe_us = moe_time_us(graph_tokens, in_group ? group_tokens * d_.dp : graph_tokens);
  if (in_group) {
    cost.ep_comm_us = ep_all_to_all_us(d_, s, group_tokens);
    cost.cross_node_us += ep_all_to_all_cross_node_us(d_, s, group_tokens);
  }
  cost.tp_comm_us = tp_comm_time_us(graph_tokens, rows);

  // Other memory traffic: norms, residual adds, RoPE, activation and the KV-cache write, a
  // few fused memory-bound kernels per layer (latency-kernel.md A.7).
  const double misc_bytes =
      graph_tokens * (static_cast<double>(s.hidden) * s.act_bytes * c_.misc_bytes_per_hidden) +
      tokens * kvb;
  cost.other_memory_us = layers * std::max(2.0 * c_.kernel_floor_us, misc_bytes / hbm);
  // Per-head q/k RMSNorm (vllm/model_executor/models/qwen3.py Qwen3Attention.forward: q_norm,
  // k_norm before the rotary embedding): two more small kernels per layer, each reading and
  // writing the step's queries or keys.
  if (d_.model.qk_norm) {
    const double qk_bytes = 2.0 * graph_tokens * (s.heads + s.kv_heads) * s.qk_dim * s.act_bytes;
    cost.other_memory_us += layers * std::max(2.0 * c_.kernel_floor_us, qk_bytes / hbm);
  }

  // Sampler (vllm/v1/sample/sampler.py Sampler.forward: logits to fp32, temperature, top-k/p,
  // softmax, the sampling draw; outside the CUDA graphs): passes over the vocabulary per step
  // and per sampled row (Vidur cpu_overheads_a100 sampler_e2e grows with both).
  if (rows > 0) {
    const double kvocab = static_cast<double>(s.vocab) / 1000.0;
    cost.sampler_us = c_.sampler_step_us + c_.sampler_per_kvocab_us * kvocab +
                      c_.sampler_per_row_kvocab_us * rows * kvocab;
  }

  // Host (latency-kernel.md A.8): CPU work per step and per request not hidden by async
  // scheduling, plus launching the step. vLLM replays a full CUDA graph for uniform decode
  // batches, piecewise graphs (attention launched between the pieces) for mixed batches up to
  // the largest capture size, and launches kernels one by one above it or with enforce_eager.
  // Launches run ahead of the GPU, so only the part the GPU work does not cover is exposed,
  // and never less than one graph replay: total = GPU time + max(replay, launches - GPU time).
  cost.host_us = c_.host_step_us + c_.host_per_request_us * requests;
  const double gpu_us = cost.gemm_us + cost.prefill_attention_us + cost.decode_attention_us +
                        cost.moe_us + cost.tp_comm_us + cost.other_memory_us + cost.sampler_us +
                        cost.ep_comm_us;
  double launch_us = layers * c_.eager_kernels_per_layer * c_.eager_per_kernel_us;
  // The graph the step runs in (kernel/cuda_graphs.h CudaGraphPlan::dispatch): a full graph
  // is one replay, a piecewise one launches attention between its pieces, eager launches all.
  if (run != GraphRun::kEager) {
    launch_us = c_.graph_replay_us;
    if (run == GraphRun::kPiecewise) launch_us += layers * c_.piecewise_per_layer_us;
  }
  cost.host_us += std::max(c_.graph_replay_us, launch_us - gpu_us);

  if (d_.pp > 1) add_pipeline(cost, graph_tokens, lm_head_us);

  // Deterministic rounding: every term is a finite non-negative double computed with
  // IEEE-exact operations and dmath, so floor(x + 0.5) is the same natively and in WASM.
  cost.total = static_cast<SimTime>(std::floor(cost.sum_us() + 0.5));
  return cost;
}

}  // namespace blis::kernel
