// The A100 entry against A100 measurements (issue 11: each A100 term from measurement, not
// carried over from H100). The points are copied from Vidur's A100 profiles
// (github.com/microsoft/vidur, data/profiling/a100/attention.csv at e2d00e9, and
// data/profiling/compute/{a100,h100}/*/mlp.csv at 7d47513; medians, Kineto kernel time):
// FlashAttention-2 paged attention of 32 query / 4 KV heads per GPU (Llama-2-70B at TP 2),
// and the A100/H100 time ratio of the same fp16 linears.
#include <cmath>

#include "kernel/step_pricer.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::decode_batch;
using testing::deploy;
using testing::prefill_batch;

struct Point {
  int a, b;            // decode: batch, context; prefill: chunk, cached
  double measured_us;  // one layer
};

// Decode rows at batch 16-128 and context 512-4032.
const Point kDecode[] = {
    {16, 512, 36},   {16, 1024, 57},   {16, 2048, 72},   {16, 4032, 91},
    {32, 512, 37},   {32, 1024, 64},   {32, 2048, 108},  {32, 4032, 192},
    {64, 512, 72},   {64, 1024, 122},  {64, 2048, 219},  {64, 4032, 407},
    {128, 512, 114}, {128, 1024, 192}, {128, 2048, 349}, {128, 4032, 667},
};
// Prefill rows: chunks of 256-2048 tokens after 0-2048 cached ones.
const Point kPrefill[] = {
    {256, 0, 33},      {256, 1024, 72},  {256, 2048, 110},  {512, 0, 72},
    {512, 1024, 147},  {512, 2048, 224}, {1024, 0, 216},    {1024, 1024, 320},
    {1024, 2048, 425}, {2048, 0, 681},   {2048, 1024, 846}, {2048, 2048, 1027},
};

const char* kGpu = "A100-SXM-80GB";
const char* kModel = "meta-llama/Llama-2-70b-hf";  // 64 q / 8 kv heads, head dim 128

TEST(A100Profile, DecodeAttentionFollowsVidursFlashAttention2Profile) {
  const Deployment d = deploy(kGpu, kModel, 2);
  const StepPricer p(d);
  const double layers = p.shape().layers;
  double model_sum = 0, measured_sum = 0;
  for (const Point& pt : kDecode) {
    const double us = p.price(decode_batch(pt.a, pt.b)).decode_attention_us / layers;
    EXPECT_NEAR(us / pt.measured_us, 1.0, 0.45) << "batch " << pt.a << " context " << pt.b;
    model_sum += us, measured_sum += pt.measured_us;
  }
  // Over the grid the term adds up to the measured time (least squares in time).
  EXPECT_NEAR(model_sum / measured_sum, 1.0, 0.10);
}

TEST(A100Profile, PrefillAttentionRunsAtFlashAttention2sMeasuredEfficiency) {
  const Deployment d = deploy(kGpu, kModel, 2);
  const StepPricer p(d);
  const double layers = p.shape().layers;
  double model_sum = 0, measured_sum = 0;
  for (const Point& pt : kPrefill) {
    const double us = p.price(prefill_batch(pt.a, pt.b)).prefill_attention_us / layers;
    EXPECT_NEAR(us / pt.measured_us, 1.0, 0.35) << "chunk " << pt.a << " cached " << pt.b;
    model_sum += us, measured_sum += pt.measured_us;
  }
  EXPECT_NEAR(model_sum / measured_sum, 1.0, 0.15);
  // FA2 on A100 reaches far less of its peak than FA3 on H100: the same chunk costs more
  // than the 3.2x peak ratio (H100 FA3 efficiency from InferSim, A100 from the rows above).
  const StepPricer h(deploy("H100-SXM-80GB", kModel, 2));
  const double ratio = p.price(prefill_batch(2048, 2048)).prefill_attention_us /
                       h.price(prefill_batch(2048, 2048)).prefill_attention_us;
  EXPECT_GT(ratio, 4.0);
}

TEST(A100Profile, DecodeStepRatioToH100IsVidursGemmRatio) {
  // Vidur's fp16 linears of Llama-2-7B/70B, CodeLlama-34B, InternLM-20B and Qwen-72B at TP
  // 1-4 take 1.76-1.82x as long on A100 as on H100 at M <= 64 (median per M over the
  // matched GEMMs), 2.0x at 128 and 3.0-3.1x from 1024 tokens on.
  const StepPricer a(deploy(kGpu, kModel, 2));
  const StepPricer h(deploy("H100-SXM-80GB", kModel, 2));
  for (int batch : {1, 8, 32, 64}) {
    const double r =
        a.price(decode_batch(batch, 512)).gemm_us / h.price(decode_batch(batch, 512)).gemm_us;
    EXPECT_GT(r, 1.70) << batch;
    EXPECT_LT(r, 1.90) << batch;
  }
  const double large =
      a.price(prefill_batch(2048, 0)).gemm_us / h.price(prefill_batch(2048, 0)).gemm_us;
  EXPECT_GT(large, 2.8);
  EXPECT_LT(large, 3.3);
}

TEST(A100Profile, GemmRatioGrowsWithTheBatchAsVidursDoes) {
  // The same Vidur linears, the four of a layer summed, median over the 16 model/TP pairs:
  // 1.92-1.98x at M = 80-128 and 2.5x at 256 (A100's BF16 peak is a third of H100's, so the
  // GEMMs leave the memory-bound regime earlier). Issue 11 looked here for A100's missing
  // 5-15%; the kernel follows the profile.
  const StepPricer a(deploy(kGpu, kModel, 2));
  const StepPricer h(deploy("H100-SXM-80GB", kModel, 2));
  const double r128 =
      a.price(decode_batch(128, 512)).gemm_us / h.price(decode_batch(128, 512)).gemm_us;
  EXPECT_GT(r128, 1.85);
  EXPECT_LT(r128, 2.10);
  const double r256 =
      a.price(decode_batch(256, 512)).gemm_us / h.price(decode_batch(256, 512)).gemm_us;
  EXPECT_GT(r256, 2.30);
  EXPECT_LT(r256, 2.80);
}

TEST(A100Profile, SmallKernelsRatioIsVidursNormRopeActivationRatio) {
  // Vidur's RMSNorms, RoPE, SiLU-and-mul and residual adds at M <= 64: 1.17-1.5x as long on
  // A100 as on H100 (an RMSNorm 7 against 6 us), the regime the small-kernel floor prices.
  const StepPricer a(deploy(kGpu, kModel, 2));
  const StepPricer h(deploy("H100-SXM-80GB", kModel, 2));
  const double r = a.price(decode_batch(32, 512)).other_memory_us /
                   h.price(decode_batch(32, 512)).other_memory_us;
  EXPECT_GT(r, 1.15);
  EXPECT_LT(r, 1.50);
}

}  // namespace
}  // namespace blis::kernel
