// KVCacheManager: the KV edge cases of spec §9 (1-5, 25-27, 34, 35, 37) and every
// allocate_slots parameter (§6.5, §6.11).
#include "engine/vllm/kv/kv_cache_manager.h"

#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/invariants.h"
#include "engine/kv_test_util.h"

namespace blis::vllm {
namespace {

using testing::admit;
using testing::blocks_of;
using testing::iota_tokens;
using testing::make_request;

constexpr std::int32_t B = 4;

KVCacheManager make_kv(std::int32_t blocks, bool caching = true, std::int32_t max_len = 1024,
                       double watermark = 0) {
  KVCacheManagerConfig c;
  c.num_gpu_blocks = blocks;
  c.block_size = B;
  c.max_model_len = max_len;
  c.enable_caching = caching;
  c.watermark = watermark;
  return KVCacheManager(c);
}

TEST(KvEdgeCases, E01_BlockAlignedPromptFullyCachedRecomputesItsLastBlock) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(4 * B), B);
  ASSERT_TRUE(admit(kv, a).ok);  // caches all 4 blocks at schedule time
  Request b = make_request(1, iota_tokens(4 * B), B);
  const auto adm = admit(kv, b);
  ASSERT_TRUE(adm.ok);
  EXPECT_EQ(adm.hit_tokens, 3 * B);  // max_cache_hit_length = 4B - 1
  EXPECT_EQ(adm.scheduled, B);
  const auto ba = blocks_of(kv, a);
  const auto bb = blocks_of(kv, b);
  ASSERT_EQ(bb.size(), 4u);
  EXPECT_EQ(std::vector<std::int32_t>(bb.begin(), bb.begin() + 3),
            std::vector<std::int32_t>(ba.begin(), ba.begin() + 3));
  EXPECT_NE(bb[3], ba[3]);  // a NEW block although an identical cached one exists
  EXPECT_EQ(testing::check_kv_invariants(kv), "");
}

TEST(KvEdgeCases, E01b_EagleDropsTheLastMatchedBlock) {
  // single_type_kv_cache_manager.py find_longest_cache_hit(drop_eagle_block): the EAGLE head
  // needs the hidden states of the last matched block, so it is recomputed.
  KVCacheManagerConfig c;
  c.num_gpu_blocks = 32;
  c.block_size = B;
  c.max_model_len = 1024;
  c.use_eagle = true;
  KVCacheManager kv(c);
  Request a = make_request(0, iota_tokens(4 * B + 3), B);
  ASSERT_TRUE(admit(kv, a).ok);
  Request b = make_request(1, iota_tokens(4 * B + 3), B);
  const auto adm = admit(kv, b);
  EXPECT_EQ(adm.hit_tokens, 3 * B);  // 4 full blocks match, the last one is dropped
  EXPECT_EQ(adm.scheduled, B + 3);
}

TEST(KvEdgeCases, E02_UnalignedPromptWithCachedPrefixHitsEveryFullBlock) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(4 * B + 3), B);
  ASSERT_TRUE(admit(kv, a).ok);
  Request b = make_request(1, iota_tokens(4 * B + 3), B);
  const auto adm = admit(kv, b);
  EXPECT_EQ(adm.hit_tokens, 4 * B);
  EXPECT_EQ(adm.scheduled, 3);
}

TEST(KvEdgeCases, E03_ShortPromptsNeverHit) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(B - 1), B);
  ASSERT_TRUE(admit(kv, a).ok);
  Request b = make_request(1, iota_tokens(B - 1), B);
  EXPECT_TRUE(b.block_hashes.empty());
  EXPECT_EQ(admit(kv, b).hit_tokens, 0);
  Request one = make_request(2, iota_tokens(1), B);
  const auto adm = admit(kv, one);
  EXPECT_EQ(adm.hit_tokens, 0);
  EXPECT_EQ(adm.scheduled, 1);
}

TEST(KvEdgeCases, E04_IdenticalPromptsInOneStepShareBlocksAlreadyCached) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(3 * B + 1), B);
  Request b = make_request(1, iota_tokens(3 * B + 1), B);
  ASSERT_TRUE(admit(kv, a).ok);
  const auto adm = admit(kv, b);  // same step: a's blocks were cached by allocate_slots
  EXPECT_EQ(adm.hit_tokens, 3 * B);
  EXPECT_EQ(kv.block_pool().block(blocks_of(kv, a)[0]).ref_cnt, 2);
}

TEST(KvEdgeCases, E05_HitLimitedToTheFirstRequestsScheduledChunk) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(6 * B), B);
  ASSERT_TRUE(admit(kv, a, 2 * B + 2).ok);  // chunk covers 2 full blocks
  Request b = make_request(1, iota_tokens(6 * B), B);
  EXPECT_EQ(admit(kv, b).hit_tokens, 2 * B);
}

TEST(KvEdgeCases, E25_EvictableHitBlocksCountAgainstFreeSpace) {
  KVCacheManager kv = make_kv(6);  // 5 usable
  Request a = make_request(0, iota_tokens(2 * B + 1), B);
  ASSERT_TRUE(admit(kv, a).ok);                        // 3 blocks, 2 cached
  kv.free(a);                                          // all 5 free; 2 of them cached hits
  Request b = make_request(1, iota_tokens(5 * B), B);  // hits 2, needs 3 new
  // 3 new + 2 evictable hits = 5 <= 5 free: fits.
  KVCacheManager kv2 = make_kv(6);
  Request a2 = make_request(0, iota_tokens(2 * B + 1), B);
  ASSERT_TRUE(admit(kv2, a2).ok);
  kv2.free(a2);
  Request c = make_request(2, iota_tokens(6 * B), B);  // hits 2, needs 4 new: 6 > 5
  const auto adm = admit(kv2, c);
  EXPECT_FALSE(adm.ok);
  EXPECT_EQ(kv2.num_free_blocks(), 5);  // nothing changed
  EXPECT_TRUE(admit(kv, b).ok);
  EXPECT_EQ(kv.num_free_blocks(), 0);
}

TEST(KvEdgeCases, E26_EvictionRemovesTheHashDeepestBlockFirst) {
  KVCacheManager kv = make_kv(6);  // 5 usable
  Request x = make_request(0, iota_tokens(3 * B + 1), B);
  ASSERT_TRUE(admit(kv, x).ok);  // blocks 1 2 3 (cached) + 4 (partial)
  kv.free(x);                    // reverse order: 4 unhashed -> front; 3, 2, 1 -> tail
  Request filler = make_request(1, iota_tokens(3 * B, 5000), B);
  ASSERT_TRUE(admit(kv, filler).ok);  // takes 4, 5, then evicts 3 (X's deepest)
  Request again = make_request(2, iota_tokens(3 * B + 1), B);
  std::vector<std::int32_t> hits;
  EXPECT_EQ(kv.get_computed_blocks(again, hits), 2 * B);  // a shorter prefix survives
}

TEST(KvEdgeCases, E27_FirstAllocationsGetIdsInOrderAndFreedHashedBlocksComeLast) {
  KVCacheManager kv = make_kv(10);
  Request a = make_request(0, iota_tokens(2 * B), B);
  ASSERT_TRUE(admit(kv, a).ok);
  EXPECT_EQ(blocks_of(kv, a), (std::vector<std::int32_t>{1, 2}));
  kv.free(a);  // both hashed -> tail
  Request b = make_request(1, iota_tokens(3 * B, 900), B);
  ASSERT_TRUE(admit(kv, b).ok);
  EXPECT_EQ(blocks_of(kv, b), (std::vector<std::int32_t>{3, 4, 5}));
}

TEST(KvEdgeCases, E34_UsageCountsCachedFreeBlocksAsFree) {
  KVCacheManager kv = make_kv(101);
  Request a = make_request(0, iota_tokens(50 * B), B);
  ASSERT_TRUE(admit(kv, a).ok);
  EXPECT_DOUBLE_EQ(kv.usage(), 0.5);
  kv.free(a);
  EXPECT_DOUBLE_EQ(kv.usage(), 0.0);
}

TEST(KvEdgeCases, E35_SkipReadingPrefixCacheMeansNoLookupAndNoStats) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(3 * B), B);
  ASSERT_TRUE(admit(kv, a).ok);
  Request b = make_request(1, iota_tokens(3 * B), B);
  b.skip_reading_prefix_cache = true;
  const auto adm = admit(kv, b);
  EXPECT_EQ(adm.hit_tokens, 0);
  const PrefixCacheStats s = kv.take_prefix_cache_stats();
  EXPECT_EQ(s.requests, 1);  // only a was counted
  // b's blocks are still cached for others.
  Request c = make_request(2, iota_tokens(3 * B + 1), B);
  std::vector<std::int32_t> hits;
  EXPECT_EQ(kv.get_computed_blocks(c, hits), 3 * B);
}

TEST(KvEdgeCases, E37_CommonPrefixCountsBlocksEveryHolderShares) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(3 * B + 2), B);
  Request b = make_request(1, iota_tokens(3 * B + 2), B);
  ASSERT_TRUE(admit(kv, a).ok);
  ASSERT_TRUE(admit(kv, b).ok);
  EXPECT_EQ(kv.get_num_common_prefix_blocks(a), 3);
  Request c = make_request(2, iota_tokens(2 * B, 7000), B);
  ASSERT_TRUE(admit(kv, c).ok);
  EXPECT_EQ(kv.get_num_common_prefix_blocks(a), 0);
  KVCacheManager off = make_kv(32, /*caching=*/false);
  Request d = make_request(0, iota_tokens(3 * B), B, false);
  ASSERT_TRUE(admit(off, d).ok);
  EXPECT_EQ(off.get_num_common_prefix_blocks(d), 0);  // NoPrefixCache coordinator
}

TEST(KvAllocateSlots, LookaheadSlotsAreAllocatedNotCached) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(2 * B), B);
  AllocateSlotsArgs args;
  args.num_lookahead_tokens = B + 1;
  ASSERT_TRUE(admit(kv, a, 0, args).ok);
  EXPECT_EQ(blocks_of(kv, a).size(), 4u);  // ceil((2B + B + 1) / B)
  EXPECT_EQ(kv.single_type_manager().num_cached_blocks(a.slot), 2);
}

TEST(KvAllocateSlots, SlotsAreCappedAtMaxModelLen) {
  KVCacheManager kv = make_kv(32, true, /*max_len=*/2 * B + 1);
  Request a = make_request(0, iota_tokens(2 * B), B);
  AllocateSlotsArgs args;
  args.num_lookahead_tokens = 4 * B;
  ASSERT_TRUE(admit(kv, a, 0, args).ok);
  EXPECT_EQ(blocks_of(kv, a).size(), 3u);
}

TEST(KvAllocateSlots, ExternalTokensGetFreshBlocksAndDelayedCaching) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(4 * B), B);
  AllocateSlotsArgs args;
  args.num_external_computed_tokens = 3 * B;
  args.delay_cache_blocks = true;
  // An async KV load: no new tokens computed this step.
  ASSERT_TRUE(kv.allocate_slots(a, 0, args, nullptr));
  EXPECT_EQ(blocks_of(kv, a).size(), 3u);
  EXPECT_EQ(kv.single_type_manager().num_cached_blocks(a.slot), 0);  // delayed
  std::vector<std::int32_t> hits;
  Request b = make_request(1, iota_tokens(4 * B), B);
  EXPECT_EQ(kv.get_computed_blocks(b, hits), 0);
  // The load lands: the scheduler caches what arrived.
  kv.cache_blocks(a, 3 * B);
  EXPECT_EQ(kv.get_computed_blocks(b, hits), 3 * B);
  AllocateSlotsArgs none;
  EXPECT_THROW(kv.allocate_slots(b, 0, none, nullptr), std::logic_error);
}

TEST(KvAllocateSlots, FullSequenceMustFitGatesAdmissionOnTheWholePrompt) {
  KVCacheManager kv = make_kv(6);  // 5 usable
  Request a = make_request(0, iota_tokens(6 * B), B);
  AllocateSlotsArgs gate;
  gate.full_sequence_must_fit = true;
  EXPECT_FALSE(admit(kv, a, B, gate).ok);  // the first chunk fits, the whole prompt not
  EXPECT_TRUE(admit(kv, a, B).ok);         // without the gate only the chunk is checked
}

TEST(KvAllocateSlots, WatermarkKeepsBlocksFreeForWaitingRequestsOnlyWhenOthersRun) {
  KVCacheManager kv = make_kv(10, true, 1024, /*watermark=*/0.2);  // int(0.2 * 10) = 2
  EXPECT_EQ(kv.watermark_blocks(), 2);
  Request a = make_request(0, iota_tokens(8 * B), B);  // 8 of 9 free
  AllocateSlotsArgs busy;
  busy.has_scheduled_reqs = true;
  EXPECT_FALSE(admit(kv, a, 0, busy).ok);  // 8 + 2 > 9
  AllocateSlotsArgs alone;
  alone.has_scheduled_reqs = false;
  EXPECT_TRUE(admit(kv, a, 0, alone).ok);
  // A running request (not WAITING/PREEMPTED) is not held back by the watermark.
  append_output_token(a, 1);
  EXPECT_TRUE(kv.allocate_slots(a, 1, busy, nullptr));  // takes the last free block
}

TEST(KvAllocateSlots, ReservedBlocksAreKeptFree) {
  KVCacheManager kv = make_kv(10);
  Request a = make_request(0, iota_tokens(8 * B), B);
  AllocateSlotsArgs args;
  args.reserved_blocks = 2;
  EXPECT_FALSE(admit(kv, a, 0, args).ok);
  args.reserved_blocks = 1;
  EXPECT_TRUE(admit(kv, a, 0, args).ok);
}

TEST(KvAllocateSlots, FailureChangesNothing) {
  KVCacheManager kv = make_kv(4);
  Request a = make_request(0, iota_tokens(2 * B), B);
  ASSERT_TRUE(admit(kv, a).ok);
  kv.free(a);
  Request b = make_request(1, iota_tokens(5 * B), B);
  EXPECT_FALSE(admit(kv, b).ok);
  EXPECT_FALSE(kv.single_type_manager().has_blocks_entry(b.slot));
  EXPECT_EQ(kv.block_pool().block(1).ref_cnt, 0);
  EXPECT_EQ(testing::check_kv_invariants(kv), "");
}

TEST(KvPrefixStats, CountsFreshAndResumedAdmissionsApartAndResetsWhenTaken) {
  KVCacheManager kv = make_kv(32);
  Request a = make_request(0, iota_tokens(2 * B + 1), B);
  ASSERT_TRUE(admit(kv, a).ok);
  Request b = make_request(1, iota_tokens(2 * B + 1), B);
  b.num_preemptions = 1;
  ASSERT_TRUE(admit(kv, b).ok);
  const PrefixCacheStats s = kv.take_prefix_cache_stats();
  EXPECT_EQ(s.requests, 1);
  EXPECT_EQ(s.queries, 2 * B + 1);
  EXPECT_EQ(s.hits, 0);
  EXPECT_EQ(s.preempted_requests, 1);
  EXPECT_EQ(s.preempted_queries, 2 * B + 1);
  EXPECT_EQ(s.preempted_hits, 2 * B);
  EXPECT_EQ(kv.take_prefix_cache_stats().requests, 0);
  EXPECT_EQ(kv.cumulative_prefix_cache_stats().requests, 1);
}

TEST(KvResetPrefixCache, OnlyWhenNothingIsHeldAndMarksTheStats) {
  KVCacheManager kv = make_kv(16);
  Request a = make_request(0, iota_tokens(2 * B), B);
  ASSERT_TRUE(admit(kv, a).ok);
  EXPECT_FALSE(kv.reset_prefix_cache());
  kv.free(a);
  EXPECT_TRUE(kv.reset_prefix_cache());
  EXPECT_TRUE(kv.take_prefix_cache_stats().reset);
  std::vector<std::int32_t> hits;
  Request b = make_request(1, iota_tokens(2 * B + 1), B);
  EXPECT_EQ(kv.get_computed_blocks(b, hits), 0);
}

TEST(KvFree, FreesTheTableTailFirst) {
  KVCacheManager kv = make_kv(8);
  Request a = make_request(0, iota_tokens(3 * B), B);
  ASSERT_TRUE(admit(kv, a).ok);
  kv.free(a);
  const auto q = kv.block_pool().free_queue().all_free_blocks();
  EXPECT_EQ(q, (std::vector<std::int32_t>{4, 5, 6, 7, 3, 2, 1}));
  kv.free(a);  // freeing twice is a no-op
  EXPECT_EQ(kv.num_free_blocks(), 7);
}

}  // namespace
}  // namespace blis::vllm
