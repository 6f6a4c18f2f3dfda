// Property test: 100,000 random admissions (prefix lookups and hits), decode growth,
// frees and lookups on KVCacheManager, the way the scheduler drives it, with the named KV
// invariants checked after every operation (tests/engine/invariants.h).
#include <gtest/gtest.h>

#include <vector>

#include "engine/invariants.h"
#include "engine/kv_test_util.h"
#include "sanitizer_share.h"
#include "util/rng.h"

namespace blis::vllm {
namespace {

void run(bool caching, std::uint64_t seed, std::int32_t ops) {
  constexpr std::int32_t kBlock = 4;
  constexpr std::int32_t kSlots = 10;
  KVCacheManagerConfig c;
  c.num_gpu_blocks = 64;
  c.block_size = kBlock;
  c.max_model_len = 160;
  c.enable_caching = caching;
  KVCacheManager kv(c);
  Rng rng(seed);
  // A few shared prefixes so admissions hit each other's blocks.
  std::vector<std::vector<std::int32_t>> prefixes;
  for (int p = 0; p < 4; ++p)
    prefixes.push_back(
        testing::iota_tokens(static_cast<std::int32_t>(rng.uniform_int(4, 40)), 1000 * (p + 1)));
  std::vector<Request> reqs(kSlots);
  std::vector<bool> live(kSlots, false);
  std::int64_t admitted = 0, grown = 0, freed = 0;
  for (std::int32_t op = 0; op < ops; ++op) {
    const auto s = static_cast<std::int32_t>(rng.uniform_int(0, kSlots - 1));
    Request& r = reqs[static_cast<std::size_t>(s)];
    if (!live[static_cast<std::size_t>(s)]) {
      // Admit a new request: shared prefix + own tokens, first chunk or whole prompt.
      std::vector<std::int32_t> tokens = prefixes[static_cast<std::size_t>(rng.uniform_int(0, 3))];
      tokens.resize(
          static_cast<std::size_t>(rng.uniform_int(1, static_cast<std::int64_t>(tokens.size()))));
      const auto extra = rng.uniform_int(0, 30);
      for (std::int64_t k = 0; k < extra; ++k)
        tokens.push_back(static_cast<std::int32_t>(rng.uniform_int(0, 50)));
      r = testing::make_request(s, tokens, kBlock, caching);
      AllocateSlotsArgs args;
      args.full_sequence_must_fit = rng.uniform01() < 0.5;
      args.num_lookahead_tokens = static_cast<std::int32_t>(rng.uniform_int(0, 3));
      const auto budget = static_cast<std::int32_t>(rng.uniform_int(1, 64));
      if (testing::admit(kv, r, budget, args).ok) {
        live[static_cast<std::size_t>(s)] = true;
        ++admitted;
      }
    } else if (rng.uniform01() < 0.25) {
      kv.free(r);
      live[static_cast<std::size_t>(s)] = false;
      ++freed;
    } else {
      // Grow: finish the prefill chunk by chunk, then decode one token at a time.
      std::int32_t n = r.num_tokens() - r.num_computed_tokens;
      if (n == 0) {
        if (r.num_tokens() >= c.max_model_len - 1) {
          kv.free(r);
          live[static_cast<std::size_t>(s)] = false;
          continue;
        }
        append_output_token(r, static_cast<std::int32_t>(rng.uniform_int(0, 50)));
        if (caching) update_block_hashes(r, kBlock);
        n = 1;
      }
      n = std::min(n, static_cast<std::int32_t>(rng.uniform_int(1, 16)));
      AllocateSlotsArgs args;
      args.num_lookahead_tokens = static_cast<std::int32_t>(rng.uniform_int(0, 2));
      if (kv.allocate_slots(r, n, args, nullptr)) {
        r.num_computed_tokens += n;
        ++grown;
      } else {
        kv.free(r);  // the scheduler would preempt it
        live[static_cast<std::size_t>(s)] = false;
        ++freed;
      }
    }
    const std::string v = testing::check_kv_invariants(kv);
    ASSERT_EQ(v, "") << "after op " << op;
  }
  EXPECT_GT(admitted, ops / 20);
  EXPECT_GT(grown, ops / 10);
  EXPECT_GT(freed, ops / 40);
}

TEST(KvProperty, HundredThousandOperationsKeepTheInvariantsWithCaching) {
  run(true, 21, static_cast<std::int32_t>(blis::test::sanitizer_share(100000)));
}

TEST(KvProperty, TwentyThousandOperationsKeepTheInvariantsWithoutCaching) {
  run(false, 22, static_cast<std::int32_t>(blis::test::sanitizer_share(20000)));
}

}  // namespace
}  // namespace blis::vllm
