// Step pricing: each term against hand-computed values, the latency-kernel.md A.10 worked
// example, monotonicity properties, determinism and allocation-free pricing.
#include "kernel/step_pricer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>

#include "kernel/kv_capacity.h"
#include "kernel_test_support.h"

// Counts heap allocations, to prove price() makes none. (GCC flags malloc/free in replacement
// operators as mismatched; here they are the pair.)
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
static long g_allocations = 0;
void* operator new(std::size_t n) {
  ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace blis::kernel {
namespace {

using testing::decode_batch;
using testing::deploy;
using testing::prefill_batch;

// A toy deployment with round numbers: 1 layer, hidden 1024, 8 heads of 128 (MHA), FFN 4096,
// vocab 1024; 1000 TFLOPS (1e9 FLOP/us), 1 TB/s (1e6 B/us); GEMM ramp 0.5 * M / (M + 100),
// HBM derate 0.5, 3 us kernel floor, attention efficiency 0.5 * S / (S + 1000).
Deployment toy() {
  Deployment d;
  d.gpu.id = "toy";
  d.gpu.vendor = "nvidia";
  d.gpu.bf16_dense_tflops = 1000;
  d.gpu.hbm_bandwidth_bytes_per_s = 1e12;
  d.gpu.usable_memory_bytes = d.gpu.memory_bytes = std::int64_t{80} << 30;
  d.gpu.scale_up.bandwidth_bytes_per_s = 100e9;
  d.model.id = "toy";
  d.model.num_hidden_layers = 1;
  d.model.hidden_size = 1024;
  d.model.num_attention_heads = 8;
  d.model.num_key_value_heads = 8;
  d.model.head_dim = 128;
  d.model.intermediate_size = 4096;
  d.model.vocab_size = 1024;
  d.model.max_position_embeddings = 4096;
  auto& c = d.coefficients;
  c.gemm_bf16 = {0.5, 100};
  c.hbm_derate = 0.5;
  c.kernel_floor_us = 3;
  c.attention_decode_derate = 0.5;
  c.attention_prefill_eff_max = 0.5;
  c.attention_prefill_s_half = 1000;
  c.attention_floor_us = 4;
  c.misc_bytes_per_hidden = 12;
  c.host_step_us = 50;
  c.host_per_request_us = 2;
  c.graph_replay_us = 7;
  d.max_num_batched_tokens = 8192;
  d.max_num_seqs = 256;
  return d;
}

// max(compute, memory, floor) for y[M, n] = x[M, k] W[k, n] on the toy GPU, written out.
double toy_gemm_us(double m, double k, double n) {
  const double compute = 2 * m * k * n / (1e9 * 0.5 * m / (m + 100));
  const double memory = (k * n * 2 + m * (k + n) * 2) / (1e6 * 0.5);
  return std::max({compute, memory, 3.0});
}

TEST(StepPricer, GemmTermIsTheRooflineOfEachLinear) {
  const StepPricer p(toy());
  const StepCost c = p.price(prefill_batch(1000, 0));
  // qkv 1024 -> 3072, o 1024 -> 1024, gate_up 1024 -> 8192, down 4096 -> 1024, all at M=1000;
  // the LM head 1024 -> 1024 on the one sampled row.
  const double expected = toy_gemm_us(1000, 1024, 3072) + toy_gemm_us(1000, 1024, 1024) +
                          toy_gemm_us(1000, 1024, 8192) + toy_gemm_us(1000, 4096, 1024) +
                          toy_gemm_us(1, 1024, 1024);
  EXPECT_NEAR(c.gemm_us, expected, 1e-6 * expected);
  // Spot values: qkv at M=1000 is memory-bound, (1024*3072*2 + 1000*4096*2) / (1e6 * 0.5);
  // its compute would take 2*1000*1024*3072 / (1e9 * 0.5 * 1000/1100) = 13.84 us.
  EXPECT_NEAR(toy_gemm_us(1000, 1024, 3072), 28.966912, 1e-9);
  // An 8192 x 8192 GEMM at M = 10000 is compute-bound: 2*1e4*8192^2 / (1e9 * 0.5 * 1e4/10100)
  // = 2711.2 us against (8192^2 * 2 + 1e4 * 16384 * 2) / 5e5 = 923.6 us of traffic.
  EXPECT_NEAR(toy_gemm_us(10000, 8192, 8192), 2711.1981056, 1e-6);
  // The LM head at M=1 is memory-bound: (1024*1024*2 + 1*2048*2) / 5e5 = 4.202 us.
  EXPECT_NEAR(toy_gemm_us(1, 1024, 1024), 4.202496, 1e-6);
}

TEST(StepPricer, PrefillAttentionIsQuadraticAndComputeBound) {
  const StepPricer p(toy());
  const StepCost c = p.price(prefill_batch(1000, 3000));
  // pairs = c*p + c(c+1)/2 = 3,000,000 + 500,500; FLOPs = 2 * 8 heads * (128 + 128) * pairs;
  // efficiency 0.5 * 4000 / 5000 = 0.4; plus the 4 us per-layer floor.
  const double pairs = 1000.0 * 3000 + 1000.0 * 1001 / 2;
  const double expected = 2.0 * 8 * 256 * pairs / (1e9 * 0.4) + 4;
  EXPECT_NEAR(c.prefill_attention_us, expected, 1e-9 * expected);
  EXPECT_EQ(c.decode_attention_us, 0);
}

TEST(StepPricer, DecodeAttentionReadsTheWholeContext) {
  const StepPricer p(toy());
  const StepCost c = p.price(decode_batch(10, 999));
  // 10 requests x 1000 tokens x (2 x 8 x 128 x 2 B) = 40.96 MB at 1e6 B/us x 0.5, + 4 us.
  EXPECT_NEAR(c.decode_attention_us, 10 * 1000 * 4096.0 / 5e5 + 4, 1e-9);
  EXPECT_EQ(c.prefill_attention_us, 0);
}

TEST(StepPricer, HostAndOtherTerms) {
  const StepPricer p(toy());
  const StepCost c = p.price(decode_batch(10, 999));
  // Full CUDA graph for a uniform decode batch: step + 10 requests + one replay.
  EXPECT_DOUBLE_EQ(c.host_us, 50 + 2 * 10 + 7);
  // Norms/residuals/RoPE/activation (12 x hidden x 2 B) and the KV write, or the 2-kernel floor.
  EXPECT_DOUBLE_EQ(c.other_memory_us, std::max(6.0, 10 * (1024 * 2 * 12 + 4096.0) / 5e5));
  EXPECT_EQ(c.tp_comm_us, 0);
  EXPECT_EQ(c.moe_us, 0);
  EXPECT_EQ(c.total, static_cast<SimTime>(std::floor(c.sum_us() + 0.5)));
}

TEST(StepPricer, TensorParallelAllReduces) {
  Deployment d = toy();
  d.tp = 2;
  d.coefficients.allreduce_latency_us = 5;
  d.coefficients.allreduce_bus_efficiency = 0.5;
  const StepCost c = StepPricer(d).price(decode_batch(104, 99));
  // 2 all-reduces per layer of 104 x 1024 x 2 B, ring traffic 2 (tp-1)/tp = 1x, over
  // 100e9 B/s x 0.5; plus the logits gather of 104 rows x 1024 x 2 B x 1/2.
  const double all_reduce = 5 + 104 * 2048.0 / 5e4;
  const double gather = 5 + 104 * 1024 * 2 * 0.5 / 5e4;
  EXPECT_NEAR(c.tp_comm_us, 2 * all_reduce + gather, 1e-9);
}

TEST(StepPricer, AllReduceLatencyGrowsWithThePeers) {
  Deployment d = toy();
  d.coefficients.allreduce_latency_us = 3;
  d.coefficients.allreduce_latency_per_peer_us = 2;
  d.coefficients.allreduce_bus_efficiency = 0.5;
  double last = 0;
  for (int tp : {2, 4, 8}) {
    d.tp = tp;
    d.model.num_attention_heads = d.model.num_key_value_heads = 8;
    const StepCost c = StepPricer(d).price(decode_batch(1, 99));
    // One row: the fixed latency 3 + 2 (tp - 1) dominates each all-reduce.
    const double latency = 3 + 2.0 * (tp - 1);
    const double bytes = 2048.0 * 2 * (tp - 1) / tp;
    const double expected = 2 * (latency + bytes / 5e4) + latency + 2048.0 * (tp - 1) / tp / 5e4;
    EXPECT_NEAR(c.tp_comm_us, expected, 1e-9) << tp;
    EXPECT_GT(c.tp_comm_us, last);
    last = c.tp_comm_us;
  }
}

TEST(StepPricer, CudaGraphStepsArePaddedToTheCaptureSize) {
  // vLLM captures [1, 2, 4, 8, 16, ..., 248, 256, 272, ..., 512]: 9 decodes run as 16, 300 as
  // 304; above the largest size (here min(512, 2 x 256, 8192) = 512) nothing is padded.
  const StepPricer p(toy());
  const double lm9 = toy_gemm_us(9, 1024, 1024), lm16 = toy_gemm_us(16, 1024, 1024);
  EXPECT_NEAR(p.price(decode_batch(9, 99)).gemm_us - lm9,
              p.price(decode_batch(16, 99)).gemm_us - lm16, 1e-9);
  const double lm300 = toy_gemm_us(300, 1024, 1024), lm304 = toy_gemm_us(304, 1024, 1024);
  EXPECT_NEAR(p.price(decode_batch(300, 99)).gemm_us - lm300,
              p.price(decode_batch(304, 99)).gemm_us - lm304, 1e-9);
  // max_num_batched_tokens caps the largest capture size: at 200 the sizes run 8, 16, ..., 200,
  // so a 196-token step runs in the 200-token graph.
  Deployment d = toy();
  d.max_num_batched_tokens = 200;
  const StepPricer small(d);
  EXPECT_NEAR(small.price(decode_batch(196, 99)).gemm_us - toy_gemm_us(196, 1024, 1024),
              small.price(decode_batch(200, 99)).gemm_us - toy_gemm_us(200, 1024, 1024), 1e-9);
  Deployment e = toy();
  e.enforce_eager = true;
  const StepPricer eager(e);
  EXPECT_LT(eager.price(decode_batch(9, 99)).gemm_us, p.price(decode_batch(9, 99)).gemm_us);
  // max_num_seqs 130 caps the sizes at 260, off the 16-stride: vLLM captures up to 256 and
  // appends max_num_batched_tokens only when it is the cap, so 258 tokens run unpadded.
  Deployment f = toy();
  f.max_num_seqs = 130;
  const StepPricer seqs(f);
  EXPECT_NEAR(seqs.price(decode_batch(258, 99)).gemm_us - toy_gemm_us(258, 1024, 1024),
              eager.price(decode_batch(258, 99)).gemm_us - toy_gemm_us(258, 1024, 1024), 1e-9);
  EXPECT_NEAR(seqs.price(decode_batch(250, 99)).gemm_us - toy_gemm_us(250, 1024, 1024),
              seqs.price(decode_batch(256, 99)).gemm_us - toy_gemm_us(256, 1024, 1024), 1e-9);
}

TEST(StepPricer, DecodeAttentionPaysPerCallAndPerSequence) {
  Deployment d = toy();
  d.coefficients.attention_decode_per_seq_us = 0.5;
  const StepPricer p(d);
  // Equal KV bytes: 1 x 8000 tokens against 8 x 1000; the 8 sequences pay 7 x 0.5 us more.
  const double one = p.price(decode_batch(1, 7999)).decode_attention_us;
  const double eight = p.price(decode_batch(8, 999)).decode_attention_us;
  EXPECT_NEAR(eight - one, 7 * 0.5, 1e-9);
  EXPECT_NEAR(one, 8000 * 4096.0 / 5e5 + 4 + 0.5, 1e-9);
}

TEST(StepPricer, SamplerGrowsWithTheVocabularyAndTheRows) {
  Deployment d = toy();
  d.coefficients.sampler_step_us = 10;
  d.coefficients.sampler_per_kvocab_us = 2;
  d.coefficients.sampler_per_row_kvocab_us = 0.1;
  const StepPricer p(d);
  // vocab 1024 (padded to 64: 1024): 10 + 2 x 1.024 + 0.1 x rows x 1.024.
  EXPECT_NEAR(p.price(decode_batch(1, 99)).sampler_us, 10 + 2.048 + 0.1024, 1e-9);
  EXPECT_NEAR(p.price(decode_batch(10, 99)).sampler_us, 10 + 2.048 + 1.024, 1e-9);
  // A chunk that does not finish its prompt samples nothing.
  engine::Batch chunk = prefill_batch(100, 0);
  chunk.requests[0].samples = false;
  EXPECT_EQ(p.price(chunk).sampler_us, 0);
}

TEST(StepPricer, WorkedExampleLlama31_8bDecode32At1000) {
  // latency-kernel.md A.10: Llama-3.1-8B on H100, TP1, bf16, decode batch 32 at context 1000.
  // Weights ~15 GB (without the embedding lookup) at 0.8 x 3.35 TB/s = ~5.6 ms (at the
  // calibrated HBM derate, scaled by 0.8 / derate); KV read 32 x 1001 x 131072 B = 4.2 GB at
  // the decode-attention derate; about 7.7 ms in all, against a measured ITL of 7.8-9.0 ms at
  // comparable load.
  const StepPricer p(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  const catalog::GpuCoefficients& k = p.deployment().coefficients;
  const StepCost c = p.price(decode_batch(32, 1000));
  EXPECT_NEAR(c.gemm_us, 5650 * 0.8 / k.hbm_derate, 100);
  EXPECT_NEAR(c.decode_attention_us,
              32 * 1001 * 131072.0 / (3.35e6 * k.attention_decode_derate) +
                  32 * (k.attention_floor_us + 32 * k.attention_decode_per_seq_us),
              1.0);
  EXPECT_GT(c.total, 7000);
  EXPECT_LT(c.total, 9500);
}

TEST(StepPricer, MoeReadsOnlyTheExpertsTouched) {
  const StepPricer p(deploy("H100-SXM-80GB", "mistralai/Mixtral-8x7B-v0.1", 2));
  const catalog::GpuCoefficients& k = p.deployment().coefficients;
  // One expert on one rank: 3 x 4096 x (14336 / 2) x 2 bytes; 32 MoE layers at the expert
  // derate of 3.35 TB/s.
  const double expert_us = 32 * 3.0 * 4096 * 7168 * 2 / (3.35e6 * k.moe_expert_derate);
  // One token reads 2 of the 8 experts; 64 tokens read 8 (1 - (6/8)^64) = 8.0 of them.
  const double one = p.price(decode_batch(1, 100)).moe_us;
  EXPECT_GT(one, 2 * expert_us);
  EXPECT_LT(one, 2 * expert_us + 32 * (3 * k.kernel_floor_us + k.moe_routing_us + 1));
  // 64 tokens, written out: per layer the touched experts' weights plus the 128 routed rows'
  // activations (2 x 4096 + 3 x 7168 bf16), the arithmetic 2 x 128 x 3 x 4096 x 7168 at the
  // peak efficiency 0.903 of 989.5 TFLOPS, two grouped-GEMM floors and the router's (one
  // kernel floor each) and the routing kernels.
  const double touched = 8 * (1 - std::pow(0.75, 64));
  const double bytes = touched * 3.0 * 4096 * 7168 * 2 + 128.0 * (2 * 4096 + 3 * 7168) * 2;
  const double flops = 2.0 * 128 * 3 * 4096 * 7168;
  const double layer = bytes / (3.35e6 * k.moe_expert_derate) + flops / (989.5e6 * 0.903) +
                       3 * k.kernel_floor_us + k.moe_routing_us;
  EXPECT_NEAR(p.price(decode_batch(64, 100)).moe_us, 32 * layer, 1e-6 * 32 * layer);
}

TEST(StepPricer, MoreTokensAreNeverCheaper) {
  const catalog::Catalog& cat = catalog::Catalog::builtin();
  for (const auto& model : cat.model_ids()) {
    Deployment d;
    int tp = 1;
    for (; tp <= 8; tp *= 2) {
      if (!has_errors(make_deployment(cat, "H100-SXM-80GB", model, tp, &d))) break;
    }
    if (tp > 8) continue;
    const StepPricer p(d);
    SimTime last = 0;
    for (int chunk : {1, 16, 128, 511, 512, 513, 1024, 4096, 8192}) {
      const SimTime t = p.price(prefill_batch(chunk, 0)).total;
      EXPECT_GE(t, last) << model << " prefill " << chunk;
      last = t;
    }
    last = 0;
    for (int cached : {0, 100, 1000, 10000, 30000}) {
      const SimTime t = p.price(prefill_batch(1024, cached)).total;
      EXPECT_GE(t, last) << model << " cached " << cached;
      last = t;
    }
    last = 0;
    for (int batch : {1, 2, 8, 64, 255, 256, 257, 512, 513, 1000}) {
      const SimTime t = p.price(decode_batch(batch, 2000)).total;
      EXPECT_GE(t, last) << model << " decode batch " << batch;
      last = t;
    }
    last = 0;
    for (int ctx : {10, 100, 1000, 10000, 100000}) {
      const SimTime t = p.price(decode_batch(32, ctx)).total;
      EXPECT_GE(t, last) << model << " decode context " << ctx;
      last = t;
    }
  }
}

TEST(StepPricer, SlidingWindowCapsTheAttendedContext) {
  const StepPricer p(deploy("H100-SXM-80GB", "openai/gpt-oss-20b", 1));
  // Past the 128-token window only the 12 full layers read more context.
  const double a = p.price(decode_batch(64, 10000)).decode_attention_us;
  const double b = p.price(decode_batch(64, 20000)).decode_attention_us;
  const double per_token_all_layers =
      64 * 24 * 2048.0 / (3.35e6 * p.deployment().coefficients.attention_decode_derate);
  EXPECT_NEAR(b - a, 10000 * per_token_all_layers / 2, 1e-6 * b);
}

TEST(StepPricer, EmptyBatchCostsNothing) {
  const StepPricer p(toy());
  EXPECT_EQ(p.price(engine::Batch{}).total, 0);
}

TEST(StepPricer, PriceAllocatesNothing) {
  const StepPricer p(deploy("H100-SXM-80GB", "Qwen/Qwen3-30B-A3B", 2));
  engine::Batch mixed = decode_batch(255, 3000);
  mixed.requests.push_back({999, 1024, 1024, 4096, 0, true});
  const long before = g_allocations;
  StepCost c;
  for (int i = 0; i < 100; ++i) c = p.price(mixed);
  EXPECT_EQ(g_allocations, before);
  EXPECT_GT(c.total, 0);
}

TEST(StepPricer, PerHeadQkNormAddsTwoSmallKernelsPerLayer) {
  // Qwen3's q_norm and k_norm: two kernels per layer, at the kernel floor for a small step and
  // at the bytes of the queries and keys (read and written once each) for a large one.
  Deployment d = toy();
  const StepPricer plain(d);
  d.model.qk_norm = true;
  const StepPricer normed(d);
  const double small = normed.price(decode_batch(8, 99)).other_memory_us -
                       plain.price(decode_batch(8, 99)).other_memory_us;
  EXPECT_NEAR(small, 2 * 3.0, 1e-9);
  const double large = normed.price(prefill_batch(4096, 0)).other_memory_us -
                       plain.price(prefill_batch(4096, 0)).other_memory_us;
  EXPECT_NEAR(large, 2.0 * 4096 * (8 + 8) * 128 * 2 / (1e6 * 0.5), 1e-6);
}

TEST(StepPricer, TotalsAreDeterministic) {
  // The same constants are asserted natively and in WASM: dmath and IEEE-exact arithmetic
  // only, so both platforms produce these exact microseconds.
  const StepPricer llama(deploy("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  const StepPricer mixtral(deploy("H100-SXM-80GB", "mistralai/Mixtral-8x7B-v0.1", 2));
  const StepPricer deepseek(deploy("H200-SXM-141GB", "deepseek-ai/DeepSeek-V3", 8));
  engine::Batch mixed = decode_batch(100, 1500);
  mixed.requests.push_back({999, 700, 700, 2048, 0, true});
  const std::vector<SimTime> totals = {llama.price(decode_batch(32, 1000)).total,
                                       llama.price(prefill_batch(2048, 0)).total,
                                       llama.price(mixed).total,
                                       mixtral.price(decode_batch(77, 3333)).total,
                                       mixtral.price(mixed).total,
                                       deepseek.price(decode_batch(64, 4000)).total,
                                       deepseek.price(prefill_batch(4096, 8192)).total};
  EXPECT_EQ(totals, (std::vector<SimTime>{8744, 40943, 27402, 25849, 37419, 30146, 151351}));
}

}  // namespace
}  // namespace blis::kernel
