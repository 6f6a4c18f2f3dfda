// Workload generation speed: requests generated per second (items_per_second).
#include <benchmark/benchmark.h>

#include <deque>

#include "cluster/workload/workload.h"

namespace {

using namespace blis;
using namespace blis::cluster;

scenario::LengthDist lognormal(double mean, double std, double max) {
  scenario::LengthDist d;
  d.kind = scenario::LengthDist::Kind::kLognormal;
  d.mean = mean;
  d.std = std;
  d.max = max;
  return d;
}

scenario::Scenario one_client(scenario::Client c) {
  scenario::Scenario s;
  s.seed = 7;
  s.workload.clients.push_back(std::move(c));
  return s;  // no horizon: the stream never ends
}

// Open loop: poisson arrivals at 100 req/s, lognormal prompt (mean 512) and output (mean 128)
// lengths, 4 prefix groups of 256 tokens. No feedback needed.
void BM_PoissonLognormal(benchmark::State& state) {
  scenario::Client c;
  c.name = "chat";
  c.load.kind = scenario::Load::Kind::kRate;
  c.load.rate = 100;
  c.prompt_tokens = lognormal(512, 256, 4096);
  c.output_tokens = lognormal(128, 64, 1024);
  c.prefix = scenario::PrefixGroups{4, 256};
  auto w = make_workload(one_client(c));
  GeneratedRequest r;
  std::int64_t tokens = 0;
  for (auto _ : state) {
    w->pop(r);
    tokens += static_cast<std::int64_t>(r.prompt_token_ids.size());
    benchmark::DoNotOptimize(r.prompt_token_ids.data());
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["prompt_tokens/req"] =
      benchmark::Counter(static_cast<double>(tokens) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_PoissonLognormal);

// inference-perf shared_prefix with multi-turn chat (the "general" profile of the H100 runs:
// 9 system prompts x 5 users, 100 + 447 tokens, 248 output tokens) at 20 req/s. Each request
// is answered 2 s after it arrives; a turn whose prompt exceeds 4096 tokens fails (as the
// server rejects it), so its session's context stops growing, as in inference-perf.
void BM_SharedPrefixMultiTurn(benchmark::State& state) {
  scenario::Client c;
  c.name = "chat";
  c.load.kind = scenario::Load::Kind::kRate;
  c.load.rate = 20;
  c.load.arrival.kind = scenario::ArrivalProcess::Kind::kConstant;
  c.shared_prefix = scenario::SharedPrefix{9, 5, 100, 447, 248, state.range(0) != 0};
  auto w = make_workload(one_client(c));
  std::deque<std::pair<SimTime, GeneratedRequest>> in_flight;  // answers come in FIFO order
  GeneratedRequest r;
  std::int64_t tokens = 0;
  for (auto _ : state) {
    while (!in_flight.empty() && in_flight.front().first <= w->next_arrival()) {
      const auto& [done, req] = in_flight.front();
      const bool too_long = req.prompt_token_ids.size() + 248 > 4096;
      w->on_finished(req, too_long ? 0 : req.output_tokens, done);
      in_flight.pop_front();
    }
    w->pop(r);
    tokens += static_cast<std::int64_t>(r.prompt_token_ids.size());
    in_flight.emplace_back(r.arrival + 2 * kMicrosPerSecond, r);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["prompt_tokens/req"] =
      benchmark::Counter(static_cast<double>(tokens) / static_cast<double>(state.iterations()));
}
BENCHMARK(BM_SharedPrefixMultiTurn)->Arg(0)->Arg(1)->ArgName("multi_turn");

}  // namespace
