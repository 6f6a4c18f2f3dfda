// Cluster event throughput as the instance count grows. Each instance gets the same load
// (10 requests/s of a chat workload on Llama-3.1-8B / H100, 4 prefix groups per instance), so
// the work per instance is constant: if the per-event cost does not grow with the instance
// count, events/s stays flat from 1 to 64 instances. The weighted router scores every
// instance per request (allowed: O(instances) per routing decision, not per event).
// Run: build/native/bench/blis_bench --benchmark_filter=Cluster
#include <benchmark/benchmark.h>

#include <string>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace {

std::string scenario_json(int instances, const char* policy_json) {
  const int rate = 10 * instances;
  return std::string(R"({
    "schema": "blis/scenario/v1", "name": "bench", "seed": 1,
    "horizon": {"duration_s": 20, "drain": true},
    "pools": [{"name": "p", "role": "unified", "instances": )") +
         std::to_string(instances) + R"(,
      "hardware": "H100-SXM-80GB", "model": "meta-llama/Llama-3.1-8B-Instruct",
      "parallelism": {"tp": 1, "pp": 1, "dp": 1},
      "engine": {"kind": "vllm", "release": "0.32.0", "args": {"max_model_len": 8192}}}],
    "router": )" +
         policy_json + R"(,
    "workload": {"clients": [{"name": "chat", "load": {"rate": )" +
         std::to_string(rate) + R"(, "arrival": "poisson"},
      "prompt_tokens": {"dist": "lognormal", "mean": 800, "std": 300, "min": 16, "max": 4000},
      "output_tokens": {"dist": "lognormal", "mean": 200, "std": 100, "min": 4, "max": 1000},
      "prefix": {"groups": )" +
         std::to_string(4 * instances) + R"(, "tokens": 500}}]},
    "outputs": {"timeseries_interval_ms": 1000, "per_request": false}
  })";
}

void run_cluster(benchmark::State& state, const char* policy_json) {
  const int n = static_cast<int>(state.range(0));
  const std::string json = scenario_json(n, policy_json);
  std::uint64_t events = 0, steps = 0;
  for (auto _ : state) {
    blis::cluster::Simulation sim;
    const auto ds = sim.load(json, blis::scenario::DecodeOptions{});
    if (blis::has_errors(ds)) {
      state.SkipWithError(ds.front().message.c_str());
      return;
    }
    const auto r = sim.run();
    events += sim.events_processed();
    steps += r.steps;
  }
  state.counters["events_per_s"] =
      benchmark::Counter(static_cast<double>(events), benchmark::Counter::kIsRate);
  state.counters["events"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  state.counters["steps"] = static_cast<double>(steps) / static_cast<double>(state.iterations());
}

void BM_ClusterRoundRobin(benchmark::State& state) {
  run_cluster(state, R"({"policy": "round-robin"})");
}
void BM_ClusterWeighted(benchmark::State& state) {
  run_cluster(state, R"({"policy": "weighted", "scorers": [{"name": "prefix-cache", "weight": 2},
    {"name": "queue-depth", "weight": 1}, {"name": "kv-utilization", "weight": 1}],
    "signal_staleness_ms": 50})");
}

}  // namespace

BENCHMARK(BM_ClusterRoundRobin)->Arg(1)->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ClusterWeighted)->Arg(1)->Arg(4)->Arg(16)->Arg(64)->Unit(benchmark::kMillisecond);
