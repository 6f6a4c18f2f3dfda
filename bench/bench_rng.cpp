// Sampler throughput: the workload generator draws several numbers per request.
#include <benchmark/benchmark.h>

#include "util/rng.h"

static void BM_RngNextU64(benchmark::State& state) {
  blis::Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(rng.next_u64());
}
BENCHMARK(BM_RngNextU64);

static void BM_RngLognormal(benchmark::State& state) {
  blis::Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(rng.lognormal_mean_std(500.0, 200.0));
}
BENCHMARK(BM_RngLognormal);

static void BM_RngGamma(benchmark::State& state) {
  blis::Rng rng(1);
  for (auto _ : state) benchmark::DoNotOptimize(rng.gamma(0.25, 4.0));
}
BENCHMARK(BM_RngGamma);
