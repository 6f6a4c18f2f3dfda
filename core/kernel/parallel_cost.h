#pragma once
// The communication that pipeline and expert parallelism add to a step, and where an
// instance's GPUs sit (docs/parallelism.md).
//
// Placement: an instance's GPUs are numbered dp-rank-major, then pipeline stage, then tensor
// rank (tp innermost), and a node holds gpus_per_node consecutive GPUs: tp stays inside a
// node, and pipeline stages and DP ranks spill over to the next node first. A transfer
// between GPUs of one node crosses the intra-node link (the GPU's scale_up fabric), one
// between nodes the inter-node link (the scenario's scale-out fabric).
//
// Prices are bytes / (bandwidth x efficiency) + the fabric's fixed latency, as if the links
// were the step's alone. The cluster makes the part that crosses nodes a flow on its network
// (cross_node_us below; docs/networking.md), so it shares the NICs with the KV transfers in
// flight. What is estimated: the placement rule (vLLM leaves it to the launcher), a node's
// size (the deployment's gpus_per_node), and the collectives' algorithms (ring all-gather /
// reduce-scatter, a point-to-point send).

#include <cstdint>
#include <string>

#include "kernel/deployment.h"
#include "kernel/model_shape.h"

namespace blis::kernel {

// A link as the kernel prices it.
struct LinkCost {
  std::string fabric;       // catalog fabric id ("" = the GPU's scale_up coefficients)
  double bytes_per_us = 0;  // achieved: per-GPU bandwidth x efficiency
  double latency_us = 0;    // fixed cost per transfer
  double us(double bytes) const {
    return latency_us + (bytes_per_us > 0 ? bytes / bytes_per_us : 0);
  }
};

LinkCost intra_node_link(const Deployment& d);
LinkCost inter_node_link(const Deployment& d);

// How many GPUs the instance uses (tp x pp x dp) and on how many nodes they sit.
std::int32_t instance_gpus(const Deployment& d);
std::int32_t instance_nodes(const Deployment& d);
// True when the hand-off from stage `stage` to stage + 1 crosses a node boundary.
bool pp_boundary_crosses_nodes(const Deployment& d, std::int32_t stage);
// True when the ranks of one MoE layer's dispatch (the dp x tp ranks of one stage) are not
// all on one node.
bool ep_group_crosses_nodes(const Deployment& d);

// Pipeline parallelism: the hand-off from stage `stage` to the next of a step computing
// `tokens` tokens. vLLM sends IntermediateTensors (hidden_states and residual:
// vllm/model_executor/models/utils.py make_empty_intermediate_tensors_factory) with
// send_tensor_dict, each tensor-parallel rank sending its 1/tp slice over its own link
// (vllm/distributed/parallel_state.py GroupCoordinator.send_tensor_dict all_gather_group).
double pp_handoff_us(const Deployment& d, const ModelShape& s, double tokens, std::int32_t stage);
// Of that, the bandwidth term when the boundary crosses nodes (0 when it does not): one
// tensor-parallel rank's slice over its NIC.
double pp_handoff_cross_node_us(const Deployment& d, const ModelShape& s, double tokens,
                                std::int32_t stage);

// Data parallelism on an MoE model: the dispatch and combine of every MoE layer. vLLM's
// default all2all backend (vllm/config/parallel.py all2all_backend "allgather_reducescatter")
// all-gathers the DP ranks' hidden states before the experts and reduce-scatters their
// outputs after, each rank padded to the largest rank's token count
// (vllm/v1/worker/dp_utils.py coordinate_batch_across_dp). Ring: each GPU receives and sends
// (dp - 1) x max_rank_tokens x hidden x activation bytes per collective.
double ep_all_to_all_us(const Deployment& d, const ModelShape& s, double max_rank_tokens);
// Of that, the bandwidth terms when the group crosses nodes (0 when it does not).
double ep_all_to_all_cross_node_us(const Deployment& d, const ModelShape& s,
                                   double max_rank_tokens);

}  // namespace blis::kernel
