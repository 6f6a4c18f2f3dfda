// schedule() and complete() are allocation-free in steady state: a global operator new that
// counts, armed only around a window of steady decode steps.
#include <gtest/gtest.h>

#include <cstdlib>
#include <new>

#include "engine/vllm/vllm_engine.h"

namespace {
bool g_counting = false;
long g_allocations = 0;
}  // namespace

// The replacement pairs malloc with free on purpose; GCC's mismatched-new-delete check sees
// the inlined `delete` of a `new` expression and cannot tell the two are replaced together.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

void* operator new(std::size_t n) {
  if (g_counting) ++g_allocations;
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept {
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  std::free(p);
}

namespace blis::vllm {
namespace {

void run_steady_state(bool async, bool caching) {
  VllmConfig c;
  c.block_size = 16;
  c.num_gpu_blocks = 4096;
  c.max_num_seqs = 64;
  c.max_num_batched_tokens = 4096;
  c.max_model_len = 4096;
  c.enable_prefix_caching = caching;
  c.async_scheduling = async;
  VllmEngine e(c);
  for (engine::RequestKey k = 0; k < 64; ++k) {
    engine::RequestSpec s;
    s.key = k;
    s.id = "r";
    s.id += std::to_string(k);
    s.prompt_token_ids.assign(100 + static_cast<std::size_t>(k), static_cast<std::int32_t>(k));
    s.max_tokens = 2000;
    e.add_request(s, 0);
  }
  std::vector<std::uint64_t> fifo;
  fifo.reserve(4);
  const engine::StepOutcome none;
  auto step = [&] {
    while (e.can_schedule(0)) {
      const engine::Batch* b = e.schedule(0);
      if (b == nullptr) break;
      fifo.push_back(b->id);
    }
    e.complete(fifo.front(), none, 0);
    fifo.erase(fifo.begin());
  };
  for (int i = 0; i < 50; ++i) step();  // prefill and warm-up
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 500; ++i) step();
  g_counting = false;
  EXPECT_EQ(g_allocations, 0) << (async ? "async" : "sync") << (caching ? " caching" : "");
  EXPECT_EQ(e.stats().num_running, 64);
}

TEST(AllocationFree, SteadyDecodeSync) {
  run_steady_state(false, true);
}
TEST(AllocationFree, SteadyDecodeAsync) {
  run_steady_state(true, true);
}
TEST(AllocationFree, SteadyDecodeWithoutPrefixCaching) {
  run_steady_state(true, false);
}

}  // namespace
}  // namespace blis::vllm
