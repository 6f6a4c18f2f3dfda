// Scheduler steps per second through the engine contract (schedule + complete), sync and
// async: 256 requests in steady decode, and a mixed prefill/decode load.
#include <benchmark/benchmark.h>

#include <deque>
#include <vector>

#include "engine/vllm/vllm_engine.h"

namespace {

using blis::vllm::VllmConfig;
using blis::vllm::VllmEngine;
namespace engine = blis::engine;

VllmConfig config(bool async) {
  VllmConfig c;
  c.block_size = 16;
  c.num_gpu_blocks = 65536;
  c.max_num_seqs = 256;
  c.max_num_batched_tokens = 8192;
  c.max_model_len = 8192;
  c.async_scheduling = async;
  return c;
}

engine::RequestSpec spec(engine::RequestKey key, std::int32_t prompt, std::int32_t max_tokens) {
  engine::RequestSpec s;
  s.key = key;
  s.id = std::to_string(key);
  s.prompt_token_ids.resize(static_cast<std::size_t>(prompt));
  for (std::int32_t i = 0; i < prompt; ++i)
    s.prompt_token_ids[static_cast<std::size_t>(i)] = static_cast<std::int32_t>(key * 7919 + i);
  s.max_tokens = max_tokens;
  return s;
}

// One engine step: fill the batch queue, complete the oldest pass. Returns finished count.
std::int32_t step(VllmEngine& e, std::deque<std::uint64_t>& fifo) {
  while (e.can_schedule(0)) {
    const engine::Batch* b = e.schedule(0);
    if (b == nullptr) break;
    fifo.push_back(b->id);
  }
  if (fifo.empty()) return 0;
  const engine::StepEvents& ev = e.complete(fifo.front(), {}, 0);
  fifo.pop_front();
  std::int32_t finished = 0;
  for (const auto& p : ev.progress) finished += p.finish != engine::FinishReason::kNone ? 1 : 0;
  return finished;
}

// 256 requests decoding; each finished request is replaced at once (prompt 128, 1024 outputs),
// so nearly every step is pure decode of 256 requests.
void BM_SchedulerSteadyDecode256(benchmark::State& state) {
  const bool async = state.range(0) != 0;
  VllmEngine e(config(async));
  engine::RequestKey next = 0;
  for (; next < 256; ++next) e.add_request(spec(next, 128, 1024), 0);
  std::deque<std::uint64_t> fifo;
  for (int i = 0; i < 20; ++i) step(e, fifo);
  for (auto _ : state) {
    const std::int32_t finished = step(e, fifo);
    for (std::int32_t k = 0; k < finished; ++k) e.add_request(spec(next++, 128, 1024), 0);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(async ? "async (2 in flight)" : "sync");
}
BENCHMARK(BM_SchedulerSteadyDecode256)->Arg(0)->Arg(1);

// Mixed load: a new 1024-token prompt every other step (chunked against a 2048-token
// budget) next to ~128 decoding requests with 256 outputs each.
void BM_SchedulerMixedPrefillDecode(benchmark::State& state) {
  const bool async = state.range(0) != 0;
  VllmConfig c = config(async);
  c.max_num_batched_tokens = 2048;
  VllmEngine e(c);
  engine::RequestKey next = 0;
  std::deque<std::uint64_t> fifo;
  std::int64_t steps = 0;
  for (auto _ : state) {
    if (steps++ % 2 == 0) e.add_request(spec(next++, 1024, 256), 0);
    step(e, fifo);
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["running"] = e.stats().num_running;
  state.SetLabel(async ? "async (2 in flight)" : "sync");
}
BENCHMARK(BM_SchedulerMixedPrefillDecode)->Arg(0)->Arg(1);

}  // namespace
