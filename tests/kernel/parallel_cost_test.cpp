// Pipeline and expert parallelism in the kernel (kernel/parallel_cost.h, docs/parallelism.md):
// placement, hand-off and dispatch/combine prices, expert sharding and per-stage time.
#include "kernel/parallel_cost.h"

#include "kernel/step_pricer.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::decode_batch;
using testing::deploy;
using testing::prefill_batch;

Deployment with_links(Deployment d) {
  const auto& c = catalog::Catalog::builtin();
  d.intra_node_link = *c.find_fabric(d.gpu.scale_up.fabric);
  d.inter_node_link = *c.find_fabric("ib-ndr");
  return d;
}

TEST(Placement, TensorRanksStayInANodeStagesSpillOver) {
  Deployment d = with_links(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 4));
  d.pp = 2;
  EXPECT_EQ(instance_gpus(d), 8);
  EXPECT_EQ(instance_nodes(d), 1);
  EXPECT_FALSE(pp_boundary_crosses_nodes(d, 0));
  d.tp = 8;  // 16 GPUs: stage 1 on the second node
  EXPECT_EQ(instance_nodes(d), 2);
  EXPECT_TRUE(pp_boundary_crosses_nodes(d, 0));
  d.gpus_per_node = 16;
  EXPECT_FALSE(pp_boundary_crosses_nodes(d, 0));
}

TEST(PipelineHandoff, ScalesWithTokensAndCrossesTheSlowerLinkBetweenNodes) {
  Deployment d = with_links(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 8));
  d.pp = 2;
  const ModelShape s = build_model_shape(d);
  const double one = pp_handoff_us(d, s, 1000, 0);
  const double two = pp_handoff_us(d, s, 2000, 0);
  // Bytes: 2 (hidden, residual) x tokens x 8192 x 2 bytes / tp 8, over IB NDR at
  // 50 GB/s x 0.85 = 42500 B/us, + 50 us.
  const double bytes = 2.0 * 1000 * 8192 * 2 / 8;
  EXPECT_NEAR(one, 50.0 + bytes / 42500.0, 1e-9);
  EXPECT_NEAR(two - 50.0, 2.0 * (one - 50.0), 1e-9);
  d.gpus_per_node = 16;  // both stages on one node: NVLink
  EXPECT_LT(pp_handoff_us(d, s, 1000, 0), one);
}

TEST(PipelineStages, TheBusiestStageHoldsTheGpusForAboutOneStageShare) {
  Deployment d1 = with_links(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 4));
  Deployment d2 = d1;
  d2.pp = 2;
  const StepCost one = StepPricer(d1).price(prefill_batch(2048, 0));
  const StepCost two = StepPricer(d2).price(prefill_batch(2048, 0));
  EXPECT_EQ(one.pp_stage_us, 0);
  EXPECT_EQ(one.pp_handoff_us, 0);
  EXPECT_GT(two.pp_handoff_us, 0);
  // Latency: the whole model plus the hand-off; occupancy: about half of it.
  EXPECT_NEAR(two.sum_us(), one.sum_us() + two.pp_handoff_us, 1e-6 * one.sum_us());
  EXPECT_GT(two.pp_stage_us, 0.4 * two.sum_us());
  EXPECT_LT(two.pp_stage_us, 0.65 * two.sum_us());
}

TEST(ExpertParallel, ExpertsAreShardedOverTheDpTimesTpRanks) {
  Deployment d = deploy("H100-SXM-80GB", "Qwen/Qwen3-30B-A3B", 1);
  const ModelShape base = build_model_shape(d);
  EXPECT_EQ(base.ep_size, 1);
  EXPECT_EQ(base.local_experts, 128);
  d.dp = 4;  // without EP: the experts are tensor-parallel over tp x dp = 4
  const ModelShape flat = build_model_shape(d);
  EXPECT_EQ(flat.local_experts, 128);
  EXPECT_EQ(flat.expert_intermediate, base.expert_intermediate / 4);
  d.enable_expert_parallel = true;  // with EP: 32 whole experts per rank
  const ModelShape ep = build_model_shape(d);
  EXPECT_EQ(ep.ep_size, 4);
  EXPECT_EQ(ep.local_experts, 32);
  EXPECT_EQ(ep.expert_intermediate, base.expert_intermediate);
  EXPECT_LT(ep.weights.experts, base.weights.experts / 3);
}

TEST(ExpertParallel, DispatchAndCombineScaleWithTokensAndPeers) {
  Deployment d = with_links(deploy("H100-SXM-80GB", "Qwen/Qwen3-30B-A3B", 1));
  d.enable_expert_parallel = true;
  d.dp = 2;
  const ModelShape s = build_model_shape(d);
  EXPECT_EQ(ep_all_to_all_us(d, s, 0), 0);
  const double lat = 2.0 * s.moe_layers * 10.0;  // nvlink4: 10 us per collective
  const double t64 = ep_all_to_all_us(d, s, 64) - lat;
  const double t128 = ep_all_to_all_us(d, s, 128) - lat;
  EXPECT_NEAR(t128, 2 * t64, 1e-9 * t128);
  d.dp = 4;  // three peers instead of one
  EXPECT_NEAR(ep_all_to_all_us(d, build_model_shape(d), 64) - lat, 3 * t64, 1e-9 * t64);
  Deployment dense = with_links(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  dense.dp = 2;
  EXPECT_EQ(ep_all_to_all_us(dense, build_model_shape(dense), 64), 0);
}

TEST(ExpertParallel, APricedGroupStepAddsTheCollectives) {
  Deployment d = with_links(deploy("H100-SXM-80GB", "Qwen/Qwen3-30B-A3B", 1));
  d.enable_expert_parallel = true;
  d.dp = 2;
  const StepPricer p(d);
  const engine::Batch b = decode_batch(32, 1000);
  const StepCost alone = p.price(b);
  const StepCost group = p.price_in_group(b, 32);
  EXPECT_EQ(alone.ep_comm_us, 0);
  EXPECT_GT(group.ep_comm_us, 0);
  EXPECT_GT(group.moe_us, alone.moe_us);  // the experts see both ranks' tokens
  const StepCost dummy = p.price_in_group(engine::Batch{}, 32);
  EXPECT_GT(dummy.total, 0);
  EXPECT_EQ(dummy.decode_attention_us, 0);
  EXPECT_EQ(dummy.sampler_us, 0);
}

}  // namespace
}  // namespace blis::kernel

namespace blis::kernel {
namespace {

// The part of a step's communication that crosses nodes, which the cluster puts on its
// network as a flow (docs/networking.md "Collectives"): the bandwidth terms alone, 0 inside
// a node.
TEST(CrossNode, TheStepReportsTheBandwidthTimeOfItsInterNodeTransfers) {
  Deployment d = testing::deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 4);
  const auto& c = catalog::Catalog::builtin();
  d.intra_node_link = *c.find_fabric(d.gpu.scale_up.fabric);
  d.inter_node_link = *c.find_fabric("ib-ndr");
  d.pp = 2;
  d.gpus_per_node = 4;  // stage 1 on the second node
  const ModelShape s = build_model_shape(d);
  const StepCost two_nodes = StepPricer(d).price(testing::prefill_batch(2048, 0));
  // The step pads 2048 tokens to a captured size or runs them as they are; either way the
  // cross-node part is the hand-off without its 50 us latency.
  EXPECT_GT(two_nodes.cross_node_us, 0);
  EXPECT_NEAR(two_nodes.cross_node_us, two_nodes.pp_handoff_us - 50.0, 1e-9);
  EXPECT_NEAR(pp_handoff_cross_node_us(d, s, 1000, 0), 2.0 * 1000 * 8192 * 2 / 4 / 42500.0, 1e-9);
  d.gpus_per_node = 8;  // both stages on one node
  EXPECT_EQ(StepPricer(d).price(testing::prefill_batch(2048, 0)).cross_node_us, 0);
  EXPECT_EQ(pp_handoff_cross_node_us(d, s, 1000, 0), 0);

  // Expert parallelism: dp 2 ranks on two 1-GPU nodes.
  Deployment m = testing::deploy("H100-SXM-80GB", "Qwen/Qwen3-30B-A3B", 1);
  m.intra_node_link = *c.find_fabric(m.gpu.scale_up.fabric);
  m.inter_node_link = *c.find_fabric("ib-ndr");
  m.enable_expert_parallel = true;
  m.dp = 2;
  m.gpus_per_node = 1;
  const ModelShape ms = build_model_shape(m);
  const double lat = 2.0 * ms.moe_layers * 50.0;
  EXPECT_NEAR(ep_all_to_all_cross_node_us(m, ms, 64), ep_all_to_all_us(m, ms, 64) - lat, 1e-6);
  m.gpus_per_node = 8;
  EXPECT_EQ(ep_all_to_all_cross_node_us(m, ms, 64), 0);
}

}  // namespace
}  // namespace blis::kernel
