// Small pieces of the cluster: the time-series window, the stale signal board, the router's
// prefix index, the hash map.

#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>

#include "cluster/prefix_index.h"
#include "cluster/signal_board.h"
#include "sanitizer_share.h"
#include "util/percentiles.h"
#include "util/rng.h"

namespace blis::cluster {
namespace {

TEST(SignalBoard, WithoutStalenessTheViewIsLive) {
  SignalBoard b(2, 0);
  b.publish(1, 100, {3, 4, 0.5});
  EXPECT_EQ(b.view(1, 100).waiting, 3);
  EXPECT_EQ(b.view(0, 100).waiting, 0);
}

TEST(SignalBoard, TheViewLagsByTheStaleness) {
  SignalBoard b(1, 50);
  b.publish(0, 0, {1, 0, 0.1});
  b.publish(0, 30, {2, 0, 0.2});
  b.publish(0, 60, {3, 0, 0.3});
  EXPECT_EQ(b.view(0, 49).waiting, 0);  // nothing published by t = -1
  EXPECT_EQ(b.view(0, 50).waiting, 1);  // as of t = 0
  EXPECT_EQ(b.view(0, 79).waiting, 1);  // as of t = 29
  EXPECT_EQ(b.view(0, 80).waiting, 2);  // as of t = 30
  EXPECT_EQ(b.view(0, 500).waiting, 3);
  b.publish(0, 500, {9, 0, 0.9});
  b.publish(0, 500, {8, 0, 0.8});  // same instant: the last one wins
  EXPECT_EQ(b.view(0, 549).waiting, 3);
  EXPECT_EQ(b.view(0, 550).waiting, 8);
}

TEST(PrefixIndex, MatchesLeadingBlocksOfWhatWasRouted) {
  PrefixIndex idx(3, 4, 42);
  std::vector<std::int32_t> a{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13};  // 3 full blocks
  std::vector<std::int32_t> b{1, 2, 3, 4, 5, 6, 7, 8, 99, 98, 97, 96};     // shares 2
  std::vector<std::uint64_t> ha, hb;
  idx.hash_prompt(a, ha);
  idx.hash_prompt(b, hb);
  ASSERT_EQ(ha.size(), 3u);
  ASSERT_EQ(hb.size(), 3u);
  EXPECT_EQ(ha[0], hb[0]);
  EXPECT_EQ(ha[1], hb[1]);
  EXPECT_NE(ha[2], hb[2]);
  idx.add(1, ha);
  std::vector<std::int32_t> m;
  idx.match(hb, m);
  EXPECT_EQ(m, (std::vector<std::int32_t>{0, 2, 0}));
  idx.match(ha, m);
  EXPECT_EQ(m, (std::vector<std::int32_t>{0, 3, 0}));
}

// The prompt hash (four ids per multiply, the state in both operands) keeps distinct chained
// blocks apart: 2 x 10^5 blocks of small, similar ids per block size (a quarter under ASan) (the
// hardest case for a weak mixer), with block sizes that take the multiply, the pair round and the
// single-id round.
TEST(PrefixIndex, DistinctBlocksGetDistinctHashes) {
  for (const std::int32_t block : {16, 6, 3}) {
    PrefixIndex idx(1, block, 7);
    std::vector<std::uint64_t> all, h;
    const auto chains = static_cast<std::int32_t>(blis::test::sanitizer_share(800));
    for (std::int32_t chain = 0; chain < chains; ++chain) {
      std::vector<std::int32_t> prompt;
      for (std::int32_t depth = 0; depth < 250; ++depth)
        for (std::int32_t k = 0; k < block; ++k)
          prompt.push_back(k == depth % block ? chain : depth);
      idx.hash_prompt(prompt, h);
      all.insert(all.end(), h.begin(), h.end());
    }
    std::sort(all.begin(), all.end());
    EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end()) << block;
  }
}

TEST(PrefixIndex, EvictsLeastRecentlyAddedBeyondCapacity) {
  PrefixIndex idx(1, 1, 0);
  idx.set_capacity(0, 2);
  std::vector<std::uint64_t> h;
  idx.hash_prompt({5, 6, 7}, h);  // three chained blocks
  idx.add(0, h);
  EXPECT_EQ(idx.entries(0), 2u);
  std::vector<std::int32_t> m;
  idx.match(h, m);
  EXPECT_EQ(m[0], 0);  // the first block was evicted, so the chain breaks at once
}

}  // namespace
}  // namespace blis::cluster

#include "cluster/results.h"

namespace blis::cluster {
namespace {

TEST(WindowSample, IsTheSamplesPercentileInMilliseconds) {
  WindowSample w;
  Percentiles ps;
  Rng rng(5);
  for (int i = 0; i < 777; ++i) {
    const std::int64_t v = rng.uniform_int(0, 50'000);
    w.add(v, i % 3 == 0 ? 2 : 1);
    ps.add(static_cast<double>(v), i % 3 == 0 ? 2 : 1);
  }
  for (double p : {0.0, 50.0, 99.0, 100.0}) {
    EXPECT_EQ(w.percentile_ms(p), ps.percentile(p) / 1e3) << p;
  }
  w.clear();
  // An empty window has no percentile (a gap in timeseries.json), not 0 ms.
  EXPECT_TRUE(std::isnan(w.percentile_ms(50)));
}

}  // namespace
}  // namespace blis::cluster

#include <map>

#include "cluster/flat_hash_map.h"

namespace blis::cluster {
namespace {

TEST(FlatHashMap, BehavesLikeAMapUnderRandomOperations) {
  FlatHashMap m;
  std::map<std::uint64_t, std::uint32_t> ref;
  Rng rng(9);
  for (int i = 0; i < 20000; ++i) {
    // Small key range so that erases hit, with clustered keys to exercise probe runs.
    const std::uint64_t k = static_cast<std::uint64_t>(rng.uniform_int(1, 3000));
    if (rng.uniform01() < 0.4) {
      m.erase(k);
      ref.erase(k);
    } else {
      const auto v = static_cast<std::uint32_t>(rng.uniform_int(0, 1000000));
      m.put(k, v);
      ref[k] = v;
    }
    if (i % 97 == 0) {
      for (std::uint64_t q = 1; q <= 3000; ++q) {
        const auto it = ref.find(q);
        ASSERT_EQ(m.find(q), it == ref.end() ? FlatHashMap::kMissing : it->second) << q;
      }
    }
  }
  EXPECT_EQ(m.size(), ref.size());
}

TEST(PrefixIndex, SeveralInstancesCanHoldAHash) {
  PrefixIndex idx(3, 2, 1);
  std::vector<std::uint64_t> h;
  idx.hash_prompt({1, 2, 3, 4}, h);
  idx.add(0, h);
  idx.add(2, h);
  idx.add(2, h);  // refreshing does not duplicate
  std::vector<std::int32_t> m;
  idx.match(h, m);
  EXPECT_EQ(m, (std::vector<std::int32_t>{2, 0, 2}));
  EXPECT_EQ(idx.entries(2), 2u);
}

}  // namespace
}  // namespace blis::cluster

#include <algorithm>
#include <list>

namespace blis::cluster {
namespace {

// The index's LRU (a queue of versioned touches) against a plain linked-list LRU per
// instance: after random adds over a small hash space (many refreshes, evictions, shared
// hashes), every instance holds exactly the reference's hashes, and matches agree.
TEST(PrefixIndex, EvictionOrderIsThatOfALinkedLru) {
  constexpr std::size_t kInstances = 3;
  PrefixIndex idx(kInstances, 1, 0);
  const std::int64_t caps[kInstances] = {5, 40, 300};
  std::vector<std::list<std::uint64_t>> ref(kInstances);  // most recent first
  for (std::size_t i = 0; i < kInstances; ++i) idx.set_capacity(i, caps[i]);
  Rng rng(17);
  std::vector<std::uint64_t> hashes;
  std::vector<std::int32_t> m;
  for (std::int64_t op = 0; op < blis::test::sanitizer_share(30000); ++op) {
    const auto inst = static_cast<std::size_t>(rng.uniform_int(0, kInstances - 1));
    hashes.clear();
    const std::int64_t n = rng.uniform_int(1, 12);
    for (std::int64_t k = 0; k < n; ++k)
      hashes.push_back(static_cast<std::uint64_t>(rng.uniform_int(1, op % 2 == 0 ? 60 : 2000)));
    idx.add(inst, hashes);
    std::list<std::uint64_t>& lru = ref[inst];
    for (const std::uint64_t h : hashes) {
      auto it = std::find(lru.begin(), lru.end(), h);
      if (it != lru.end()) {
        lru.erase(it);
      } else if (static_cast<std::int64_t>(lru.size()) >= caps[inst]) {
        lru.pop_back();
      }
      lru.push_front(h);
    }
    ASSERT_EQ(idx.entries(inst), lru.size());
    if (op % 50 != 0) continue;
    // What each reference LRU holds, as a table (a list search per hash made this test take
    // 33 s under ASan).
    std::vector<std::vector<char>> held(kInstances, std::vector<char>(2001, 0));
    for (std::size_t i = 0; i < kInstances; ++i)
      for (const std::uint64_t h : ref[i]) held[i][h] = 1;
    for (std::uint64_t h = 1; h <= 2000; ++h) {
      idx.match({h}, m);
      for (std::size_t i = 0; i < kInstances; ++i)
        ASSERT_EQ(m[i], static_cast<std::int32_t>(held[i][h]))
            << "op " << op << " hash " << h << " instance " << i;
    }
  }
}

}  // namespace
}  // namespace blis::cluster
