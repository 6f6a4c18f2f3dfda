#include "kernel/parallel_cost.h"

#include <algorithm>

namespace blis::kernel {
namespace {

LinkCost from_fabric(const catalog::Fabric& f, double gpu_bandwidth) {
  LinkCost l;
  l.fabric = f.id;
  const double bw = gpu_bandwidth > 0 ? std::min(gpu_bandwidth, f.bandwidth_bytes_per_s)
                                      : f.bandwidth_bytes_per_s;
  l.bytes_per_us = bw * f.efficiency / 1e6;
  l.latency_us = f.latency_us;
  return l;
}

std::int32_t node_of(const Deployment& d, std::int32_t gpu) {
  return gpu / std::max(1, d.gpus_per_node);
}

}  // namespace

// Inside a node: the GPU's scale_up fabric (catalog latency and efficiency) at the GPU's own
// bandwidth on it; without that fabric's entry, the all-reduce coefficients the step pricer
// uses for tensor parallelism.
LinkCost intra_node_link(const Deployment& d) {
  if (d.intra_node_link.bandwidth_bytes_per_s > 0)
    return from_fabric(d.intra_node_link, d.gpu.scale_up.bandwidth_bytes_per_s);
  LinkCost l;
  l.bytes_per_us =
      d.gpu.scale_up.bandwidth_bytes_per_s * d.coefficients.allreduce_bus_efficiency / 1e6;
  l.latency_us = d.coefficients.allreduce_latency_us;
  return l;
}

// Between nodes: the scale-out fabric, one NIC per GPU at the fabric's bandwidth. Without
// one, the intra-node link (the deployment is then assumed to fit a node).
LinkCost inter_node_link(const Deployment& d) {
  if (d.inter_node_link.bandwidth_bytes_per_s > 0) return from_fabric(d.inter_node_link, 0);
  return intra_node_link(d);
}

std::int32_t instance_gpus(const Deployment& d) {
  return std::max(1, d.tp) * std::max(1, d.pp) * std::max(1, d.dp);
}

std::int32_t instance_nodes(const Deployment& d) {
  const std::int32_t n = std::max(1, d.gpus_per_node);
  return (instance_gpus(d) + n - 1) / n;
}

// GPU index = (dp_rank x pp + stage) x tp + tp_rank; the hand-off runs between the same tp
// rank of consecutive stages (DP rank 0 stands for all: every rank has the same layout when
// gpus_per_node is a multiple of tp x pp, and the worst case otherwise is not modelled).
bool pp_boundary_crosses_nodes(const Deployment& d, std::int32_t stage) {
  const std::int32_t tp = std::max(1, d.tp);
  for (std::int32_t r = 0; r < tp; ++r) {
    if (node_of(d, stage * tp + r) != node_of(d, (stage + 1) * tp + r)) return true;
  }
  return false;
}

bool ep_group_crosses_nodes(const Deployment& d) {
  const std::int32_t tp = std::max(1, d.tp), pp = std::max(1, d.pp);
  // Stage 0's ranks: (dp_rank x pp) x tp + tp_rank for every DP rank.
  const std::int32_t first = node_of(d, 0);
  for (std::int32_t r = 0; r < std::max(1, d.dp); ++r) {
    if (node_of(d, r * pp * tp + tp - 1) != first) return true;
  }
  return false;
}

namespace {

// One tensor-parallel rank's share of a hand-off: hidden_states and residual.
double handoff_bytes(const ModelShape& s, const Deployment& d, double tokens) {
  return 2.0 * tokens * static_cast<double>(s.hidden) * s.act_bytes /
         static_cast<double>(std::max(1, d.tp));
}

// What one GPU receives (and sends) in one ring all-gather or reduce-scatter.
double collective_bytes(const ModelShape& s, const Deployment& d, double max_rank_tokens) {
  return static_cast<double>(d.dp - 1) * max_rank_tokens * static_cast<double>(s.hidden) *
         s.act_bytes;
}

bool has_ep(const Deployment& d, const ModelShape& s, double max_rank_tokens) {
  return d.dp > 1 && s.moe_layers > 0 && max_rank_tokens > 0;
}

}  // namespace

double pp_handoff_us(const Deployment& d, const ModelShape& s, double tokens, std::int32_t stage) {
  if (d.pp <= 1 || tokens <= 0) return 0;
  const LinkCost link =
      pp_boundary_crosses_nodes(d, stage) ? inter_node_link(d) : intra_node_link(d);
  return link.us(handoff_bytes(s, d, tokens));
}

double pp_handoff_cross_node_us(const Deployment& d, const ModelShape& s, double tokens,
                                std::int32_t stage) {
  if (d.pp <= 1 || tokens <= 0 || !pp_boundary_crosses_nodes(d, stage)) return 0;
  const LinkCost link = inter_node_link(d);
  return link.bytes_per_us > 0 ? handoff_bytes(s, d, tokens) / link.bytes_per_us : 0;
}

double ep_all_to_all_us(const Deployment& d, const ModelShape& s, double max_rank_tokens) {
  if (!has_ep(d, s, max_rank_tokens)) return 0;
  const LinkCost link = ep_group_crosses_nodes(d) ? inter_node_link(d) : intra_node_link(d);
  // Per MoE layer: the all-gather (dispatch) and the reduce-scatter (combine).
  return static_cast<double>(s.moe_layers) * 2.0 * link.us(collective_bytes(s, d, max_rank_tokens));
}

double ep_all_to_all_cross_node_us(const Deployment& d, const ModelShape& s,
                                   double max_rank_tokens) {
  if (!has_ep(d, s, max_rank_tokens) || !ep_group_crosses_nodes(d)) return 0;
  const LinkCost link = inter_node_link(d);
  if (link.bytes_per_us <= 0) return 0;
  return static_cast<double>(s.moe_layers) * 2.0 * collective_bytes(s, d, max_rank_tokens) /
         link.bytes_per_us;
}

}  // namespace blis::kernel
