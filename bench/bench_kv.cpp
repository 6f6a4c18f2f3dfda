// KV-cache manager throughput: allocate + free cycles (the admission path of every request)
// and the prefix lookup of a 4k-token prompt.
#include <benchmark/benchmark.h>

#include <numeric>
#include <vector>

#include "engine/vllm/kv/kv_cache_manager.h"
#include "engine/vllm/request.h"

namespace {

using blis::vllm::AllocateSlotsArgs;
using blis::vllm::KVCacheManager;
using blis::vllm::KVCacheManagerConfig;
using blis::vllm::Request;

KVCacheManagerConfig config(bool caching) {
  KVCacheManagerConfig c;
  c.num_gpu_blocks = 8192;
  c.block_size = 16;
  c.max_model_len = 8192;
  c.enable_caching = caching;
  return c;
}

Request request(std::int32_t slot, std::int32_t len, std::int32_t first_token, bool caching) {
  Request r;
  r.slot = slot;
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(len));
  std::iota(tokens.begin(), tokens.end(), first_token);
  blis::vllm::set_token_ids(r, std::move(tokens));
  r.num_prompt_tokens = len;
  if (caching) blis::vllm::update_block_hashes(r, 16);
  return r;
}

// One admission (lookup + allocate_slots for a 512-token prompt) and its free, per
// iteration. Distinct prompts, so blocks are reused with their cached hashes evicted.
void BM_KvAllocateFreeCycle(benchmark::State& state) {
  const bool caching = state.range(0) != 0;
  KVCacheManager kv(config(caching));
  std::vector<Request> reqs;
  for (std::int32_t i = 0; i < 64; ++i) reqs.push_back(request(0, 512, 100000 * (i + 1), caching));
  std::vector<std::int32_t> hits;
  std::size_t i = 0;
  for (auto _ : state) {
    Request& r = reqs[i++ % reqs.size()];
    hits.clear();
    const std::int32_t hit = kv.get_computed_blocks(r, hits);
    AllocateSlotsArgs args;
    args.num_new_computed_tokens = hit;
    args.new_computed_blocks = hits;
    args.full_sequence_must_fit = true;
    benchmark::DoNotOptimize(kv.allocate_slots(r, r.num_tokens() - hit, args, nullptr));
    kv.free(r);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(caching ? "prefix caching on" : "prefix caching off");
}
BENCHMARK(BM_KvAllocateFreeCycle)->Arg(1)->Arg(0);

// Same prompt each time: the admission hits every cached block (touch) and frees them.
void BM_KvAllocateFreeCycleWithHits(benchmark::State& state) {
  KVCacheManager kv(config(true));
  Request r = request(0, 512, 1, true);
  std::vector<std::int32_t> hits;
  for (auto _ : state) {
    hits.clear();
    const std::int32_t hit = kv.get_computed_blocks(r, hits);
    AllocateSlotsArgs args;
    args.num_new_computed_tokens = hit;
    args.new_computed_blocks = hits;
    benchmark::DoNotOptimize(kv.allocate_slots(r, r.num_tokens() - hit, args, nullptr));
    kv.free(r);
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KvAllocateFreeCycleWithHits);

// get_computed_blocks for a 4096-token prompt whose 256 blocks are all cached.
void BM_KvPrefixLookup4k(benchmark::State& state) {
  KVCacheManager kv(config(true));
  Request owner = request(0, 4096, 7, true);
  AllocateSlotsArgs args;
  kv.allocate_slots(owner, 4096, args, nullptr);
  Request probe = request(1, 4096, 7, true);
  std::vector<std::int32_t> hits;
  hits.reserve(256);
  for (auto _ : state) {
    hits.clear();
    benchmark::DoNotOptimize(kv.get_computed_blocks(probe, hits));
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["blocks_hit"] = static_cast<double>(hits.size());
}
BENCHMARK(BM_KvPrefixLookup4k);

// Hashing the 256 blocks of a 4096-token prompt (done once per request, at arrival).
void BM_KvBlockHashes4k(benchmark::State& state) {
  Request r = request(0, 4096, 7, false);
  for (auto _ : state) {
    r.block_hashes.clear();
    blis::vllm::update_block_hashes(r, 16);
    benchmark::DoNotOptimize(r.block_hashes.data());
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_KvBlockHashes4k);

}  // namespace
