// Property test: 120,000 random allocate / free / touch / cache / evict / lookup operations
// on BlockPool, compared after every operation with a plain reference model of vLLM's rules
// (block_pool.py, kv_cache_utils.py FreeKVCacheBlockQueue): free + in use = total, no block
// both free and referenced, ref counts equal holders, the hash index agrees with the block
// hashes, and the free queue is in exactly the LRU order the rules give.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "engine/vllm/kv/block_pool.h"
#include "sanitizer_share.h"
#include "util/rng.h"

namespace blis::vllm {
namespace {

BlockHash hash_of(std::int32_t k) {
  return BlockHash{0x1234u + static_cast<std::uint64_t>(k), static_cast<std::uint64_t>(k) * 977u};
}

// The reference model: obviously-correct containers, no intrusive links.
struct Model {
  std::int32_t n;
  bool caching;
  std::deque<std::int32_t> queue;  // head .. tail
  std::vector<std::int32_t> ref;
  std::vector<std::int32_t> hash;                           // -1 = none
  std::map<std::int32_t, std::vector<std::int32_t>> index;  // hash key -> blocks, oldest first

  Model(std::int32_t blocks, bool c)
      : n(blocks),
        caching(c),
        ref(static_cast<std::size_t>(blocks), 0),
        hash(static_cast<std::size_t>(blocks), -1) {
    for (std::int32_t i = 1; i < n; ++i) queue.push_back(i);  // block 0 is the null block
  }
  void evict(std::int32_t b) {
    const std::int32_t k = hash[static_cast<std::size_t>(b)];
    if (k < 0) return;
    auto& v = index[k];
    v.erase(std::find(v.begin(), v.end(), b));
    if (v.empty()) index.erase(k);
    hash[static_cast<std::size_t>(b)] = -1;
  }
  std::vector<std::int32_t> get_new(std::int32_t count) {
    std::vector<std::int32_t> out;
    for (std::int32_t i = 0; i < count; ++i) {
      const std::int32_t b = queue.front();
      queue.pop_front();
      if (caching) evict(b);
      ref[static_cast<std::size_t>(b)] = 1;
      out.push_back(b);
    }
    return out;
  }
  void touch(const std::vector<std::int32_t>& bs) {
    for (const std::int32_t b : bs) {
      if (ref[static_cast<std::size_t>(b)] == 0)
        queue.erase(std::find(queue.begin(), queue.end(), b));
      ++ref[static_cast<std::size_t>(b)];
    }
  }
  void free(const std::vector<std::int32_t>& ordered) {
    std::vector<std::int32_t> front, back;
    for (const std::int32_t b : ordered) {
      if (--ref[static_cast<std::size_t>(b)] != 0) continue;
      (caching && hash[static_cast<std::size_t>(b)] < 0 ? front : back).push_back(b);
    }
    queue.insert(queue.begin(), front.begin(), front.end());
    queue.insert(queue.end(), back.begin(), back.end());
  }
  void cache(std::int32_t b, std::int32_t k) {
    if (hash[static_cast<std::size_t>(b)] >= 0) return;
    hash[static_cast<std::size_t>(b)] = k;
    index[k].push_back(b);
  }
  std::int32_t lookup(std::int32_t k) const {
    const auto it = index.find(k);
    return it == index.end() ? kNoBlock : it->second.front();
  }
};

std::string compare(const BlockPool& p, const Model& m, std::int32_t num_hashes) {
  const auto q = p.free_queue().all_free_blocks();
  if (!std::equal(q.begin(), q.end(), m.queue.begin(), m.queue.end()))
    return "free queue order differs";
  if (p.get_num_free_blocks() != static_cast<std::int32_t>(m.queue.size()))
    return "free count differs";
  std::int32_t used = 0;
  for (std::int32_t b = 1; b < m.n; ++b) {
    const KVCacheBlock& blk = p.block(b);
    if (blk.ref_cnt != m.ref[static_cast<std::size_t>(b)])
      return "ref count of block " + std::to_string(b);
    if (blk.has_hash != (m.hash[static_cast<std::size_t>(b)] >= 0))
      return "hash flag of block " + std::to_string(b);
    if (blk.has_hash && blk.block_hash != hash_of(m.hash[static_cast<std::size_t>(b)]))
      return "hash of block " + std::to_string(b);
    if ((blk.ref_cnt == 0) != p.free_queue().contains(b)) return "block both free and referenced";
    used += blk.ref_cnt > 0 ? 1 : 0;
  }
  if (used + p.get_num_free_blocks() != m.n - 1) return "free + in use != total";
  for (std::int32_t k = 0; k < num_hashes; ++k) {
    if (p.get_cached_block(hash_of(k)) != m.lookup(k)) return "lookup of hash " + std::to_string(k);
  }
  return "";
}

void run_property(bool caching, std::uint64_t seed, std::int32_t ops) {
  constexpr std::int32_t kBlocks = 48;
  constexpr std::int32_t kHashes = 40;
  BlockPool pool(kBlocks, caching);
  Model model(kBlocks, caching);
  Rng rng(seed);
  std::vector<std::vector<std::int32_t>> holders;  // each holder's block table
  for (std::int32_t op = 0; op < ops; ++op) {
    const std::int64_t kind = rng.uniform_int(0, 9);
    if (kind <= 2) {  // allocate
      const auto want = static_cast<std::int32_t>(rng.uniform_int(1, 6));
      if (want > pool.get_num_free_blocks()) continue;
      std::vector<std::int32_t> got;
      pool.get_new_blocks(want, got);
      ASSERT_EQ(got, model.get_new(want)) << "op " << op;
      holders.push_back(got);
    } else if (kind <= 4 && !holders.empty()) {  // free a holder, tail first or in order
      const auto h = static_cast<std::size_t>(
          rng.uniform_int(0, static_cast<std::int64_t>(holders.size()) - 1));
      std::vector<std::int32_t> blocks = holders[h];
      holders.erase(holders.begin() + static_cast<std::ptrdiff_t>(h));
      if (rng.uniform01() < 0.7) {
        pool.free_blocks_reversed(blocks);
        std::reverse(blocks.begin(), blocks.end());
      } else {
        pool.free_blocks(blocks);
      }
      model.free(blocks);
    } else if (kind <= 6 && caching) {  // prefix hit: look hashes up and touch the hits
      std::vector<std::int32_t> hits;
      const auto count = rng.uniform_int(1, 4);
      for (std::int64_t i = 0; i < count; ++i) {
        const auto k = static_cast<std::int32_t>(rng.uniform_int(0, kHashes - 1));
        const std::int32_t b = pool.get_cached_block(hash_of(k));
        ASSERT_EQ(b, model.lookup(k)) << "op " << op;
        if (b != kNoBlock && std::find(hits.begin(), hits.end(), b) == hits.end())
          hits.push_back(b);
      }
      if (hits.empty()) continue;
      pool.touch(hits);
      model.touch(hits);
      holders.push_back(hits);
    } else if (kind <= 8 && !holders.empty() && caching) {  // cache a full block
      auto& table = holders[static_cast<std::size_t>(
          rng.uniform_int(0, static_cast<std::int64_t>(holders.size()) - 1))];
      const auto i =
          static_cast<std::size_t>(rng.uniform_int(0, static_cast<std::int64_t>(table.size()) - 1));
      const auto k = static_cast<std::int32_t>(rng.uniform_int(0, kHashes - 1));
      const BlockHash hs[] = {hash_of(k)};
      const std::int32_t one[] = {table[i]};
      pool.cache_full_blocks(hs, one, 0, 1);
      model.cache(table[i], k);
    } else if (caching) {  // evict a block's hash (KV-load failure path)
      const auto b = static_cast<std::int32_t>(rng.uniform_int(1, kBlocks - 1));
      const std::int32_t one[] = {b};
      pool.evict_blocks(one);
      model.evict(b);
    }
    const std::string diff = compare(pool, model, kHashes);
    ASSERT_EQ(diff, "") << "after op " << op;
  }
}

TEST(BlockPoolProperty, MatchesTheReferenceModelWithCaching) {
  run_property(true, 11, static_cast<std::int32_t>(blis::test::sanitizer_share(100000)));
}

TEST(BlockPoolProperty, MatchesTheReferenceModelWithoutCaching) {
  run_property(false, 12, static_cast<std::int32_t>(blis::test::sanitizer_share(20000)));
}

}  // namespace
}  // namespace blis::vllm
