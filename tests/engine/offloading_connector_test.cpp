// OffloadingConnector (connector/offloading_connector.h): the CPU tier's LRU manager, and
// the connector's decisions through VllmEngine (vllm offloading/scheduler.py,
// kv_offload/cpu/manager.py and policies/lru.py at 8d9b52f7).
// Tests are named after the rule.
#include "engine/vllm/connector/offloading_connector.h"

#include <gtest/gtest.h>

#include <memory>

#include "engine/engine_test_specs.h"
#include "engine/offload_node.h"
#include "engine/vllm/vllm_engine.h"

namespace blis::vllm {
namespace {

BlockHash offload_hash(std::uint64_t v) {
  return BlockHash{v, v * 31};
}

TEST(CpuOffloadingManager, EvictsTheLeastRecentlyUsedIdleChunk) {
  CpuOffloadingManager m(2);
  std::vector<BlockHash> out;
  const std::vector<BlockHash> a{offload_hash(1)}, b{offload_hash(2)}, c{offload_hash(3)};
  ASSERT_TRUE(m.prepare_store(a, out));
  ASSERT_TRUE(m.prepare_store(b, out));
  EXPECT_EQ(m.lookup(offload_hash(1)), LookupResult::kHitPending);  // the store is in flight
  m.complete_store(a);
  m.complete_store(b);
  EXPECT_EQ(m.lookup(offload_hash(1)), LookupResult::kHit);
  m.touch(a);  // offload_hash(1) becomes most recently used
  ASSERT_TRUE(m.prepare_store(c, out));
  EXPECT_EQ(m.lookup(offload_hash(2)), LookupResult::kMiss);
  EXPECT_EQ(m.lookup(offload_hash(1)), LookupResult::kHit);
  EXPECT_EQ(m.evictions(), 1u);
}

TEST(CpuOffloadingManager, TouchMakesTheFirstKeyMostRecentlyUsed) {
  // lru.py touch walks the keys backwards: of [1, 2], 1 ends up most recently used.
  CpuOffloadingManager m(2);
  std::vector<BlockHash> out;
  const std::vector<BlockHash> ab{offload_hash(1), offload_hash(2)}, c{offload_hash(3)};
  ASSERT_TRUE(m.prepare_store(ab, out));
  m.complete_store(ab);
  m.touch(ab);
  ASSERT_TRUE(m.prepare_store(c, out));
  EXPECT_EQ(m.lookup(offload_hash(2)), LookupResult::kMiss);
  EXPECT_EQ(m.lookup(offload_hash(1)), LookupResult::kHit);
}

TEST(CpuOffloadingManager, LoadingAndStoringChunksAreNeverEvicted) {
  CpuOffloadingManager m(2);
  std::vector<BlockHash> out;
  const std::vector<BlockHash> a{offload_hash(1)}, b{offload_hash(2)}, c{offload_hash(3)};
  ASSERT_TRUE(m.prepare_store(a, out));
  m.complete_store(a);
  m.prepare_load(a);                      // pinned by a load
  ASSERT_TRUE(m.prepare_store(b, out));   // not ready yet
  EXPECT_FALSE(m.prepare_store(c, out));  // nothing evictable: fails, changes nothing
  EXPECT_TRUE(out.empty());
  m.complete_load(a);
  ASSERT_TRUE(m.prepare_store(c, out));  // now offload_hash(1) can go
  EXPECT_EQ(m.lookup(offload_hash(1)), LookupResult::kMiss);
  // Every prepare_store with new chunks is an allocation, failed or not.
  EXPECT_EQ(m.take_stats().allocation_sizes.size(), 4u);
}

TEST(CpuOffloadingManager, AlreadyStoredChunksAreNotStoredAgain) {
  CpuOffloadingManager m(4);
  std::vector<BlockHash> out;
  const std::vector<BlockHash> a{offload_hash(1)}, ab{offload_hash(1), offload_hash(2)};
  ASSERT_TRUE(m.prepare_store(a, out));
  ASSERT_TRUE(m.prepare_store(ab, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], offload_hash(2));
}

engine::RequestSpec offload_spec(engine::RequestKey key, std::int32_t len, std::int32_t base,
                                 std::int32_t max_tokens) {
  return enginetest::prompt_spec(key, len, base, max_tokens, 90000);
}

using enginetest::OffloadNode;

TEST(OffloadingConnector, FullBlocksAreStoredAsTheyFill) {
  OffloadNode n(64);
  n.e.add_request(offload_spec(1, 20, 100, 2), 0);
  n.step(0);
  // 20 prompt tokens: two full offload blocks of 8 (4 GPU blocks) go to the CPU tier.
  ASSERT_EQ(n.pending.size(), 1u);
  EXPECT_EQ(n.pending[0].kind, engine::TransferKind::kOffloadStore);
  EXPECT_EQ(n.pending[0].num_blocks, 4);
  EXPECT_EQ(n.conn->cpu().num_stored(), 2);
}

TEST(OffloadingConnector, FinishedRequestFreesAtOnceWhileItsStoreIsInFlight) {
  OffloadNode n(64);
  n.e.add_request(offload_spec(1, 16, 100, 1), 0);
  n.step(0);  // prefill + the one token: finished
  EXPECT_EQ(n.e.stats().num_running + n.e.stats().num_waiting, 0);
  // request_finished never delays the free; the store is still in flight.
  EXPECT_EQ(n.e.stats().num_free_blocks, 15);
  EXPECT_EQ(n.conn->num_jobs(), 1u);
  n.finish_transfers(10);
  EXPECT_EQ(n.conn->num_jobs(), 0u);
}

TEST(OffloadingConnector, ReallocatingABlockOfAPendingStoreFlushesIt) {
  OffloadNode n(64);
  n.e.add_request(offload_spec(1, 16, 100, 1), 0);
  n.step(0);  // finished; its 2-chunk store is in flight and its blocks are free
  EXPECT_EQ(n.conn->num_jobs(), 1u);
  // A prompt that needs every free block reuses the finished request's blocks.
  n.e.add_request(offload_spec(2, 58, 5000, 1), 10);
  n.step(10);
  const OffloadMeta& m = n.conn->last_meta();
  ASSERT_EQ(m.jobs_to_flush.size(), 1u);
  EXPECT_EQ(m.jobs_to_flush[0], 0);
  // The worker waited for it within the step: done once the step's output is applied, so
  // the transfer's later completion changes nothing.
  const std::size_t jobs = n.conn->num_jobs();
  for (const auto& t : n.pending) {
    if (t.id == 0) n.e.transfer_finished(t, 20);
  }
  EXPECT_EQ(n.conn->num_jobs(), jobs);
}

TEST(OffloadingConnector, AFailedAllocationIsCountedAndRetried) {
  OffloadNode n(1);  // room for one chunk; the request fills two in one step
  n.e.add_request(offload_spec(1, 20, 100, 3), 0);
  n.step(0);
  EXPECT_EQ(n.conn->cpu().num_stored(), 0);
  n.step(10);  // retried (the store index did not move), failing again
  // The engine hands the connector's stats to the metrics every step.
  const std::string m = n.e.metrics_text(10, "");
  EXPECT_NE(m.find("vllm:kv_offload_allocation_failure_total{engine=\"0\",model_name=\"\"} 2.0"),
            std::string::npos)
      << m;
  // Failed attempts are allocations too (manager.py records the size first).
  EXPECT_NE(m.find("vllm:kv_offload_cpu_allocation_size_count{engine=\"0\",model_name=\"\"} 2.0"),
            std::string::npos);
}

TEST(OffloadingConnector, OnlyPromptTokensAreOffloaded) {
  OffloadNode n(64);
  n.e.add_request(offload_spec(1, 8, 100, 12), 0);  // 8 prompt tokens, 12 outputs
  for (SimTime t = 0; t < 20; ++t) n.step(t * 10);
  // One chunk of prompt; the 12 output tokens (a chunk and a half) are never stored.
  EXPECT_EQ(n.conn->cpu().num_stored(), 1);
}

TEST(OffloadingConnector, CpuHitAfterGpuEvictionLoadsAsyncThenComputesOneToken) {
  OffloadNode n(64);
  n.e.add_request(offload_spec(1, 24, 100, 1), 0);
  n.step(0);
  n.finish_transfers(5);
  // A long unrelated prompt takes every GPU block: the first prompt's cached blocks go.
  n.e.add_request(offload_spec(2, 58, 5000, 1), 10);
  n.step(10);
  n.finish_transfers(15);
  // The first prompt again: no GPU hit, three offload blocks (24 tokens) on the CPU tier.
  n.e.add_request(offload_spec(3, 24, 100, 2), 20);
  EXPECT_EQ(n.step(20), nullptr);  // waiting for the load: nothing runs
  EXPECT_EQ(n.e.stats().num_waiting, 1);
  ASSERT_EQ(n.pending.size(), 1u);
  EXPECT_EQ(n.pending[0].kind, engine::TransferKind::kOffloadLoad);
  EXPECT_EQ(n.pending[0].num_blocks, 6);
  EXPECT_EQ(n.conn->last_meta().load_jobs.size(), 1u);
  n.finish_transfers(30);
  ASSERT_NE(n.step(40), nullptr);
  ASSERT_EQ(n.last.requests.size(), 1u);
  EXPECT_EQ(n.last.requests[0].context_before, 23);  // the last token recomputed for logits
  EXPECT_EQ(n.last.requests[0].num_tokens, 1);
  const std::string m = n.e.metrics_text(40, "");
  EXPECT_NE(m.find("vllm:external_prefix_cache_hits_total{engine=\"0\",model_name=\"\"} 24.0"),
            std::string::npos);
}

TEST(OffloadingConnector, NothingIsLoadedBelowOneOffloadBlock) {
  OffloadNode n(64);
  n.e.add_request(offload_spec(1, 12, 100, 1), 0);  // one full offload block (8 tokens) stored
  n.step(0);
  n.finish_transfers(5);
  n.e.add_request(offload_spec(2, 58, 5000, 1), 10);
  n.step(10);
  n.finish_transfers(15);
  // Same first 8 tokens, then different: the 8-token CPU hit is one block, so it loads.
  n.e.add_request(offload_spec(3, 9, 100, 1), 20);
  n.step(20);
  ASSERT_EQ(n.pending.size(), 1u);
  EXPECT_EQ(n.pending[0].kind, engine::TransferKind::kOffloadLoad);
  n.finish_transfers(25);
  n.step(30);
  // A prompt of 7 tokens has no full offload block: no lookup hit, computed on the GPU.
  n.e.add_request(offload_spec(4, 7, 100, 1), 40);
  ASSERT_NE(n.step(40), nullptr);
  EXPECT_EQ(n.last.requests[0].num_tokens, 7 - n.last.requests[0].context_before);
}

}  // namespace
}  // namespace blis::vllm
