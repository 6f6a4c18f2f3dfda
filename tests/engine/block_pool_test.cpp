// BlockPool: null block, allocation order, eviction of reused cached blocks, touch, free
// order (FORMAT.md difference 2), usage, reset.
#include "engine/vllm/kv/block_pool.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace blis::vllm {
namespace {

BlockHash h(std::uint64_t v) {
  return BlockHash{v, v * 31 + 7};
}

std::vector<std::int32_t> take(BlockPool& p, std::int32_t n) {
  std::vector<std::int32_t> out;
  p.get_new_blocks(n, out);
  return out;
}

TEST(BlockPool, BlockZeroIsTheNullBlock) {
  BlockPool p(5, true);
  EXPECT_TRUE(p.block(0).is_null);
  EXPECT_EQ(p.get_num_free_blocks(), 4);
  EXPECT_EQ(take(p, 4), (std::vector<std::int32_t>{1, 2, 3, 4}));
  EXPECT_THROW(take(p, 1), std::logic_error);
}

TEST(BlockPool, UsageIgnoresTheNullBlock) {
  // Spec §9.34: N = 101 blocks, 50 in use -> 1 - 50/100.
  BlockPool p(101, true);
  take(p, 50);
  EXPECT_DOUBLE_EQ(p.get_usage(), 0.5);
  BlockPool one(1, true);
  EXPECT_EQ(one.get_usage(), 0.0);
}

TEST(BlockPool, NewBlocksHaveRefOne) {
  BlockPool p(4, true);
  const auto b = take(p, 2);
  EXPECT_EQ(p.block(b[0]).ref_cnt, 1);
  EXPECT_EQ(p.block(b[1]).ref_cnt, 1);
}

TEST(BlockPool, CachedBlocksStayHittableWhileFreeAndLoseTheirHashWhenReused) {
  BlockPool p(4, true);  // 3 usable
  const auto b = take(p, 2);
  const BlockHash hs[] = {h(1), h(2)};
  p.cache_full_blocks(hs, b, 0, 2);
  EXPECT_EQ(p.get_cached_block(h(1)), b[0]);
  p.free_blocks_reversed(b);  // tail first: queue 3, b1, b0
  EXPECT_EQ(p.free_queue().all_free_blocks(), (std::vector<std::int32_t>{3, b[1], b[0]}));
  EXPECT_EQ(p.get_cached_block(h(2)), b[1]);
  // Untouched blocks go first; then the least recently freed cached block is evicted.
  EXPECT_EQ(take(p, 1), (std::vector<std::int32_t>{3}));
  EXPECT_EQ(take(p, 1), (std::vector<std::int32_t>{b[1]}));
  EXPECT_EQ(p.get_cached_block(h(2)), kNoBlock);
  EXPECT_FALSE(p.block(b[1]).has_hash);
  EXPECT_EQ(p.get_cached_block(h(1)), b[0]);
}

TEST(BlockPool, TouchTakesFreeBlocksOutOfTheQueue) {
  BlockPool p(4, true);
  const auto b = take(p, 1);
  const BlockHash hs[] = {h(9)};
  p.cache_full_blocks(hs, b, 0, 1);
  p.free_blocks(b);
  EXPECT_EQ(p.block(b[0]).ref_cnt, 0);
  EXPECT_EQ(p.get_num_free_blocks(), 3);
  p.touch(b);
  EXPECT_EQ(p.block(b[0]).ref_cnt, 1);
  EXPECT_EQ(p.get_num_free_blocks(), 2);
  p.touch(b);  // a second holder
  EXPECT_EQ(p.block(b[0]).ref_cnt, 2);
  p.free_blocks(b);
  EXPECT_EQ(p.get_num_free_blocks(), 2);
  p.free_blocks(b);
  EXPECT_EQ(p.get_num_free_blocks(), 3);
  EXPECT_THROW(p.free_blocks(b), std::logic_error);  // double free
}

TEST(BlockPool, UnhashedFreedBlocksGoToTheFrontWithCachingOn) {
  BlockPool p(6, true);       // 5 usable
  const auto a = take(p, 3);  // 1 2 3; queue 4 5
  const BlockHash hs[] = {h(1)};
  p.cache_full_blocks(hs, a, 0, 1);  // only block 1 is full
  p.free_blocks_reversed(a);         // order 3, 2, 1: 3 and 2 unhashed -> front, 1 -> tail
  EXPECT_EQ(p.free_queue().all_free_blocks(), (std::vector<std::int32_t>{3, 2, 4, 5, 1}));
}

TEST(BlockPool, WithCachingOffEveryFreedBlockGoesToTheTail) {
  BlockPool p(6, false);
  const auto a = take(p, 3);
  p.free_blocks_reversed(a);
  EXPECT_EQ(p.free_queue().all_free_blocks(), (std::vector<std::int32_t>{4, 5, 3, 2, 1}));
}

TEST(BlockPool, DuplicateHashesReturnTheOldestAndSurviveEachOthersEviction) {
  BlockPool p(5, true);
  const auto a = take(p, 1);
  const auto b = take(p, 1);
  const BlockHash hs[] = {h(5)};
  p.cache_full_blocks(hs, a, 0, 1);
  p.cache_full_blocks(hs, b, 0, 1);
  EXPECT_EQ(p.hash_index().num_entries(), 2);
  EXPECT_EQ(p.hash_index().num_hashes(), 1);
  EXPECT_EQ(p.get_cached_block(h(5)), a[0]);
  p.evict_blocks(a);
  EXPECT_EQ(p.get_cached_block(h(5)), b[0]);
  p.evict_blocks(b);
  EXPECT_EQ(p.get_cached_block(h(5)), kNoBlock);
  EXPECT_EQ(p.block(b[0]).ref_cnt, 1);  // eviction keeps ref counts
}

TEST(BlockPool, CacheFullBlocksLeavesHashedAndNullBlocksAlone) {
  BlockPool p(4, true);
  const auto a = take(p, 1);
  const BlockHash first[] = {h(1)};
  p.cache_full_blocks(first, a, 0, 1);
  const BlockHash other[] = {h(2)};
  p.cache_full_blocks(other, a, 0, 1);  // already hashed: unchanged
  EXPECT_EQ(p.block(a[0]).block_hash, h(1));
  const std::int32_t null_table[] = {0};
  p.cache_full_blocks(other, null_table, 0, 1);
  EXPECT_FALSE(p.block(0).has_hash);
}

TEST(BlockPool, ResetPrefixCacheNeedsEveryBlockFree) {
  BlockPool p(4, true);
  const auto a = take(p, 1);
  const BlockHash hs[] = {h(3)};
  p.cache_full_blocks(hs, a, 0, 1);
  EXPECT_FALSE(p.reset_prefix_cache());
  p.free_blocks(a);
  EXPECT_TRUE(p.reset_prefix_cache());
  EXPECT_EQ(p.get_cached_block(h(3)), kNoBlock);
  EXPECT_FALSE(p.block(a[0]).has_hash);
  EXPECT_EQ(p.hash_index().num_entries(), 0);
}

}  // namespace
}  // namespace blis::vllm
