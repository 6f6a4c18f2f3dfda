// Latency kernel throughput: StepPricer::price() is on the simulator's hot path (one call
// per engine step), and kv_capacity() runs once per instance at start-up.
#include <benchmark/benchmark.h>

#include "catalog/catalog.h"
#include "engine/engine.h"
#include "kernel/deployment.h"
#include "kernel/kv_capacity.h"
#include "kernel/step_pricer.h"

namespace {

blis::kernel::Deployment deployment(const char* gpu, const char* model, int tp) {
  blis::kernel::Deployment d;
  blis::kernel::make_deployment(blis::catalog::Catalog::builtin(), gpu, model, tp, &d);
  return d;
}

blis::engine::Batch decode_batch(int requests, int context) {
  blis::engine::Batch b;
  for (int i = 0; i < requests; ++i) {
    b.requests.push_back({static_cast<blis::engine::RequestKey>(i), 1, 0, context + i, 0, true});
  }
  return b;
}

// 256 decoding requests on Llama-3.1-8B / H100 (dense GQA).
void BM_PriceDecode256Dense(benchmark::State& state) {
  const blis::kernel::StepPricer pricer(
      deployment("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  const blis::engine::Batch batch = decode_batch(256, 2000);
  for (auto _ : state) benchmark::DoNotOptimize(pricer.price(batch));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PriceDecode256Dense);

// The same on a MoE model with sliding-window layers (gpt-oss-120b, TP 2).
void BM_PriceDecode256Moe(benchmark::State& state) {
  const blis::kernel::StepPricer pricer(deployment("H100-SXM-80GB", "openai/gpt-oss-120b", 2));
  const blis::engine::Batch batch = decode_batch(256, 2000);
  for (auto _ : state) benchmark::DoNotOptimize(pricer.price(batch));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PriceDecode256Moe);

// A mixed step: 255 decodes plus one 2048-token prefill chunk on cached context.
void BM_PriceMixed(benchmark::State& state) {
  const blis::kernel::StepPricer pricer(
      deployment("H100-SXM-80GB", "meta-llama/Llama-3.1-8B-Instruct", 1));
  blis::engine::Batch batch = decode_batch(255, 2000);
  batch.requests.push_back({9999, 2048, 2048, 4096, 0, true});
  for (auto _ : state) benchmark::DoNotOptimize(pricer.price(batch));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_PriceMixed);

void BM_KvCapacity(benchmark::State& state) {
  const blis::kernel::Deployment d =
      deployment("H100-SXM-80GB", "meta-llama/Llama-3.1-70B-Instruct", 4);
  for (auto _ : state) benchmark::DoNotOptimize(blis::kernel::kv_capacity(d));
}
BENCHMARK(BM_KvCapacity);

}  // namespace
