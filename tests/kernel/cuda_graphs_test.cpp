// kernel/cuda_graphs.h: the capture sizes and graph modes of vLLM 8d9b52f7
// (vllm/config/vllm.py VllmConfig._set_cudagraph_sizes, vllm/v1/cudagraph_dispatcher.py), and
// how the step pricer and the memory profile use them.

#include "kernel/cuda_graphs.h"

#include "kernel/memory_profile.h"
#include "kernel/model_shape.h"
#include "kernel/step_pricer.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::decode_batch;
using testing::deploy;
using testing::prefill_batch;

Deployment h100_8b() {
  Deployment d = deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1);
  d.max_num_batched_tokens = 8192;
  d.max_num_seqs = 1024;
  return d;
}

TEST(CudaGraphs, DefaultSizesFollowSetCudagraphSizes) {
  // min(1024 * 2, 512) = 512: [1, 2, 4], 8..248 by 8, 256..512 by 16.
  const CudaGraphPlan p = plan_cuda_graphs(h100_8b());
  EXPECT_EQ(p.mode, CudaGraphMode::kFullAndPiecewise);
  ASSERT_EQ(p.capture_sizes.size(), 3u + 31u + 17u);
  EXPECT_EQ(p.capture_sizes[3], 8);
  EXPECT_EQ(p.max_size(), 512);
  EXPECT_EQ(p.padded(9), 16);
  EXPECT_EQ(p.padded(513), 0);
  // max_num_batched_tokens 100 is the cap and off the stride: it is captured itself.
  Deployment d = h100_8b();
  d.max_num_batched_tokens = 100;
  EXPECT_EQ(plan_cuda_graphs(d).max_size(), 100);
  EXPECT_EQ(plan_cuda_graphs(d).padded(97), 100);
  // Speculative decoding: min(max_num_seqs * (1 + k) * 2, 512); 32 x 4 x 2 = 256.
  d = h100_8b();
  d.max_num_seqs = 32;
  d.num_speculative_tokens = 3;
  EXPECT_EQ(plan_cuda_graphs(d).max_size(), 256);
  EXPECT_EQ(plan_cuda_graphs(d).decode_full_max_tokens, 128);
  // performance_mode interactivity: every size up to 32, then the usual stride.
  d = h100_8b();
  d.performance_mode = "interactivity";
  const CudaGraphPlan i = plan_cuda_graphs(d);
  EXPECT_EQ(i.padded(9), 9);
  EXPECT_EQ(i.padded(33), 40);
}

TEST(CudaGraphs, UserSizesAreDeduplicatedSortedAndCappedByTheBatch) {
  Deployment d = h100_8b();
  d.cudagraph_capture_sizes = std::vector<std::int32_t>{64, 8, 1, 8, 99999};
  const CudaGraphPlan p = plan_cuda_graphs(d);
  EXPECT_EQ(p.capture_sizes, (std::vector<std::int32_t>{1, 8, 64}));
  EXPECT_EQ(p.max_size(), 64);  // the user's list decides, not min(2 x max_num_seqs, 512)
  // A user cap off the stride truncates to the largest default size below it.
  d = h100_8b();
  d.max_cudagraph_capture_size = 100;
  EXPECT_EQ(plan_cuda_graphs(d).max_size(), 96);
}

TEST(CudaGraphs, ModesAndEnforceEager) {
  Deployment d = h100_8b();
  d.enforce_eager = true;
  d.cudagraph_mode = "FULL";
  EXPECT_TRUE(plan_cuda_graphs(d).capture_sizes.empty());  // enforce_eager wins
  d = h100_8b();
  d.cudagraph_mode = "NONE";
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(8, true), GraphRun::kEager);
  d.cudagraph_mode = "FULL_DECODE_ONLY";
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(8, true), GraphRun::kFull);
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(8, false), GraphRun::kEager);
  d.cudagraph_mode = "PIECEWISE";
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(8, true), GraphRun::kPiecewise);
  d.cudagraph_mode = "FULL";
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(300, false), GraphRun::kFull);
  d.cudagraph_mode = "FULL_AND_PIECEWISE";
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(300, false), GraphRun::kPiecewise);
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(513, false), GraphRun::kEager);
  // Uniform decode of 1000 requests pads to 1008 > 1 x max_num_seqs... but 1000 > 512: eager.
  EXPECT_EQ(plan_cuda_graphs(d).dispatch(1000, true), GraphRun::kEager);
}

TEST(CudaGraphs, AStepAboveASmallerCaptureListIsPricedEager) {
  // 44 decodes: inside the default list (padded to the 48-token full graph), above a user list
  // [1, 2, 4, 8] (eager: unpadded, every kernel launched).
  const Deployment base = h100_8b();
  Deployment small = base, eager = base;
  small.cudagraph_capture_sizes = std::vector<std::int32_t>{1, 2, 4, 8};
  eager.enforce_eager = true;
  const engine::Batch b = decode_batch(44, 2000);
  const StepCost with_graphs = StepPricer(base).price(b);
  const StepCost above_list = StepPricer(small).price(b);
  const StepCost eager_cost = StepPricer(eager).price(b);
  EXPECT_EQ(above_list.total, eager_cost.total);
  EXPECT_DOUBLE_EQ(above_list.host_us, eager_cost.host_us);
  EXPECT_LT(above_list.gemm_us, with_graphs.gemm_us);  // no padding to 48
  EXPECT_DOUBLE_EQ(above_list.gemm_us, eager_cost.gemm_us);
  // Inside the small list the step is a graph again (8 decodes: a full graph).
  const engine::Batch b8 = decode_batch(8, 2000);
  EXPECT_EQ(StepPricer(small).price(b8).total, StepPricer(base).price(b8).total);
}

TEST(CudaGraphs, FullDecodeOnlyRunsMixedBatchesEager) {
  Deployment fdo = h100_8b(), eager = h100_8b();
  fdo.cudagraph_mode = "FULL_DECODE_ONLY";
  eager.enforce_eager = true;
  const engine::Batch mixed = prefill_batch(100, 0);
  EXPECT_EQ(StepPricer(fdo).price(mixed).total, StepPricer(eager).price(mixed).total);
  const engine::Batch dec = decode_batch(16, 1000);
  EXPECT_EQ(StepPricer(fdo).price(dec).total, StepPricer(h100_8b()).price(dec).total);
  // No piecewise graphs are captured: the memory profile counts only the full decode graphs.
  const ModelShape s = build_model_shape(fdo);
  const MemoryProfile pf = estimate_memory_profile(fdo, s);
  const MemoryProfile pd = estimate_memory_profile(h100_8b(), s);
  EXPECT_EQ(pd.cuda_graph_count, 51 + 51);  // piecewise 51 + full decode sizes <= 1024
  EXPECT_EQ(pf.cuda_graph_count, 51);
  EXPECT_LT(pf.cuda_graph_bytes, pd.cuda_graph_bytes);
}

}  // namespace
}  // namespace blis::kernel
