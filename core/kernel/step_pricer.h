#pragma once
// StepPricer: how long one engine step (one forward pass) takes on a deployment, with the
// reason. The model is a sum of per-resource times (latency-kernel.md A.1, blis-latency-kernel's
// "NoOverlap"): each term is the roofline of its kernels, max(compute / (peak * efficiency),
// bytes / (bandwidth * derate)), with measured efficiency curves from catalog/coefficients.
// price() allocates nothing and is O(batch size).

#include <cstdint>
#include <vector>

#include "engine/engine.h"
#include "kernel/cuda_graphs.h"
#include "kernel/deployment.h"
#include "kernel/model_shape.h"
#include "util/sim_time.h"

namespace blis::kernel {

// One step's time, in microseconds, and where it went.
struct StepCost {
  SimTime total = 0;   // sum of the terms, rounded to the nearest microsecond (halves up)
  double gemm_us = 0;  // dense linears (QKV, O, MLP, MLA projections, LM head)
  double prefill_attention_us = 0;
  double decode_attention_us = 0;
  double moe_us = 0;           // routed experts, shared experts, router
  double tp_comm_us = 0;       // all-reduces (and pipeline sends)
  double other_memory_us = 0;  // norms, residuals, RoPE, activations, KV writes
  double sampler_us = 0;       // logits processing and sampling (outside the CUDA graphs)
  double host_us = 0;          // scheduling, graph launch, exposed kernel launches
  double ep_comm_us = 0;       // DP MoE dispatch/combine (kernel/parallel_cost.h)
  double pp_handoff_us = 0;    // pipeline stage-to-stage sends, all boundaries
  // Pipeline parallelism: how long the pass holds the busiest stage (its layers' share of the
  // layer terms, the last stage's LM head and sampler, launches, its outgoing send), i.e. when
  // the next pass can enter the pipeline. 0 without PP. Not part of the total (the latency).
  double pp_stage_us = 0;
  // Of ep_comm_us and pp_handoff_us, the bandwidth terms of the transfers that cross nodes
  // (the inter-node link's bytes / rate, as if alone): what the cluster puts on its network
  // as a flow (docs/networking.md). Not part of the total (already in those terms).
  double cross_node_us = 0;
  double sum_us() const {
    return gemm_us + prefill_attention_us + decode_attention_us + moe_us + tp_comm_us +
           other_memory_us + sampler_us + host_us + ep_comm_us + pp_handoff_us;
  }
};

class StepPricer {
 public:
  explicit StepPricer(const Deployment& d);
  StepCost price(const engine::Batch& batch) const { return price_in_group(batch, -1); }
  // The pass of one data-parallel rank of an MoE model stepping in lockstep with the others
  // (cluster/dp_engine.h): `group_max_tokens` is the largest token count among the ranks
  // this step. Every rank is padded to it under CUDA graphs
  // (vllm/v1/worker/dp_utils.py coordinate_batch_across_dp), the routed experts run on the
  // whole group's gathered tokens, and the dispatch/combine is added. An empty `batch` is
  // the dummy pass of an idle rank (vllm/v1/engine/core.py execute_dummy_batch). A negative
  // value prices the batch on its own (price()).
  StepCost price_in_group(const engine::Batch& batch, double group_max_tokens) const;

  const ModelShape& shape() const { return shape_; }
  const Deployment& deployment() const { return d_; }

 private:
  double gemm_time_us(const Gemm& g, double m) const;
  // Routed experts on `routed_tokens` (the DP group's gathered tokens), router and shared
  // experts on the rank's own `tokens`.
  double moe_time_us(double tokens, double routed_tokens) const;
  // The pipeline terms of a priced pass (pp > 1): hand-offs and the busiest stage.
  void add_pipeline(StepCost& cost, double tokens, double lm_head_us) const;
  double tp_comm_time_us(double tokens, double rows) const;
  // Tokens the step's kernels run on: a step inside a CUDA graph is padded to the smallest
  // captured size that holds it (vllm/v1/cudagraph_dispatcher.py dispatch); an eager step is not.
  double padded_tokens(double tokens, bool uniform_decode) const;
  // What a batch's requests add up to: tokens, sampled rows, and the attention work of its
  // prefill chunks and its decodes (and spec-decode verifications).
  struct BatchTotals {
    double tokens = 0, rows = 0, requests = 0, decodes = 0;
    double pf_compute_us = 0, pf_bytes = 0, dc_bytes = 0, dc_flops = 0;
    bool any_prefill = false, uniform_decode = true;
  };
  BatchTotals tally(const engine::Batch& batch) const;

  Deployment d_;
  ModelShape shape_;
  catalog::GpuCoefficients c_;
  double bf16_flops_per_us_ = 0, fp8_flops_per_us_ = 0;
  double hbm_bytes_per_us_ = 0;
  double link_bytes_per_us_ = 0;
  // FLOPs per query-key pair per layer on one rank: 2 * heads * (qk_dim + v_dim). MLA prefill
  // runs on decompressed heads (qk 192, v 128); MLA decode on the absorbed latent (576, 512).
  double prefill_flops_per_pair_ = 0, decode_flops_per_pair_ = 0;
  std::int32_t max_graph_tokens_ = 0;
  CudaGraphPlan graphs_;  // capture sizes and graph mode (empty sizes: every step eager)
  std::vector<Gemm> dense_gemms_, moe_gemms_;
  double expert_bytes_ = 0;  // one routed expert's weights on this rank
};

}  // namespace blis::kernel
