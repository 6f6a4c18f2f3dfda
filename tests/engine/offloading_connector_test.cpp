// OffloadingConnector (connector/offloading_connector.h): the CPU tier's LRU, and the
// connector's decisions through VllmEngine (spec vllm-metrics-connector-config.md §B.7).
// Tests are named after the rule.
#include "engine/vllm/connector/offloading_connector.h"

#include <gtest/gtest.h>

#include <memory>

#include "engine/engine_test_specs.h"
#include "engine/vllm/vllm_engine.h"

namespace blis::vllm {
namespace {

BlockHash h(std::uint64_t v) {
  return BlockHash{v, v * 31};
}

TEST(CpuBlockLru, EvictsTheLeastRecentlyUsedReadyBlock) {
  CpuBlockLru lru(2);
  std::vector<BlockHash> out;
  const BlockHash ab[] = {h(1), h(2)};
  ASSERT_TRUE(lru.prepare_store(ab, out));
  EXPECT_EQ(out.size(), 2u);
  EXPECT_FALSE(lru.ready(h(1)));  // not visible before its write completes
  lru.complete_store(h(1));
  lru.complete_store(h(2));
  lru.touch(h(1));  // 2 is now the least recently used
  const BlockHash c[] = {h(3)};
  ASSERT_TRUE(lru.prepare_store(c, out));
  EXPECT_TRUE(lru.contains(h(1)));
  EXPECT_FALSE(lru.contains(h(2)));
  EXPECT_EQ(lru.evictions(), 1u);
}

TEST(CpuBlockLru, PinnedAndStoringBlocksAreNeverEvicted) {
  CpuBlockLru lru(2);
  std::vector<BlockHash> out;
  const BlockHash ab[] = {h(1), h(2)};
  ASSERT_TRUE(lru.prepare_store(ab, out));
  lru.complete_store(h(1));  // h(2) is still being written
  lru.pin(h(1));             // and h(1) is being loaded
  const BlockHash c[] = {h(3)};
  EXPECT_FALSE(lru.prepare_store(c, out));  // nothing evictable: nothing stored
  EXPECT_TRUE(out.empty());
  EXPECT_TRUE(lru.contains(h(1)));
  EXPECT_TRUE(lru.contains(h(2)));
  lru.unpin(h(1));
  EXPECT_TRUE(lru.prepare_store(c, out));
  EXPECT_FALSE(lru.contains(h(1)));
}

TEST(CpuBlockLru, AlreadyStoredBlocksAreNotStoredAgain) {
  CpuBlockLru lru(4);
  std::vector<BlockHash> out;
  const BlockHash a[] = {h(1)};
  ASSERT_TRUE(lru.prepare_store(a, out));
  const BlockHash ab[] = {h(1), h(2)};
  ASSERT_TRUE(lru.prepare_store(ab, out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0], h(2));
}

VllmConfig small() {
  return enginetest::small_engine_config(16, 60, false);
}  // 15 usable blocks

engine::RequestSpec spec(engine::RequestKey key, std::int32_t len, std::int32_t base,
                         std::int32_t max_tokens) {
  return enginetest::prompt_spec(key, len, base, max_tokens, 90000);
}

struct Node {
  explicit Node(std::int64_t cpu_blocks) : e(small()) {
    OffloadingConfig oc;
    oc.num_cpu_blocks = cpu_blocks;
    oc.gpu_block_size = 4;
    oc.offload_block_size = 8;
    auto c = std::make_unique<OffloadingConnector>(oc);
    conn = c.get();
    e.own_connector(std::move(c));
  }
  // One synchronous pass; transfers handed out are kept in `pending`.
  const engine::Batch* step(SimTime now) {
    const engine::Batch* b = e.schedule(now);
    e.take_transfers(pending);
    if (b != nullptr) {
      last = *b;
      e.complete(b->id, {}, now);
    }
    return b;
  }
  void finish_transfers(SimTime now) {
    std::vector<engine::TransferRequest> ts;
    ts.swap(pending);
    for (const auto& t : ts) e.transfer_finished(t, now);
  }
  VllmEngine e;
  OffloadingConnector* conn = nullptr;
  std::vector<engine::TransferRequest> pending;
  engine::Batch last;
};

TEST(OffloadingConnector, FullBlocksAreStoredAsTheyFill) {
  Node n(64);
  n.e.add_request(spec(1, 20, 100, 2), 0);
  n.step(0);
  // 20 prompt tokens: two full offload blocks of 8 (4 GPU blocks) go to the CPU tier.
  ASSERT_EQ(n.pending.size(), 1u);
  EXPECT_EQ(n.pending[0].kind, engine::TransferKind::kOffloadStore);
  EXPECT_EQ(n.pending[0].num_blocks, 4);
  EXPECT_EQ(n.conn->cpu().size(), 2);
}

TEST(OffloadingConnector, FinishedRequestHoldsItsBlocksWhileStoresAreInFlight) {
  Node n(64);
  n.e.add_request(spec(1, 16, 100, 1), 0);
  n.step(0);  // prefill + the one token: finished
  EXPECT_EQ(n.e.stats().num_running + n.e.stats().num_waiting, 0);
  EXPECT_EQ(n.e.stats().num_free_blocks, 15 - 4);  // held for the store
  n.finish_transfers(10);
  EXPECT_EQ(n.e.stats().num_free_blocks, 15);
}

TEST(OffloadingConnector, CpuHitAfterGpuEvictionLoadsAsyncThenComputesOneToken) {
  Node n(64);
  n.e.add_request(spec(1, 24, 100, 1), 0);
  n.step(0);
  n.finish_transfers(5);
  // A long unrelated prompt takes every GPU block: the first prompt's cached blocks go.
  n.e.add_request(spec(2, 58, 5000, 1), 10);
  n.step(10);
  n.finish_transfers(15);
  // The first prompt again: no GPU hit, three offload blocks (24 tokens) on the CPU tier.
  n.e.add_request(spec(3, 24, 100, 2), 20);
  EXPECT_EQ(n.step(20), nullptr);  // waiting for the load: nothing runs
  EXPECT_EQ(n.e.stats().num_waiting, 1);
  ASSERT_EQ(n.pending.size(), 1u);
  EXPECT_EQ(n.pending[0].kind, engine::TransferKind::kOffloadLoad);
  EXPECT_EQ(n.pending[0].num_blocks, 6);
  EXPECT_EQ(n.conn->num_loading(), 1u);
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
  Node n(64);
  n.e.add_request(spec(1, 12, 100, 1), 0);  // one full offload block (8 tokens) stored
  n.step(0);
  n.finish_transfers(5);
  n.e.add_request(spec(2, 58, 5000, 1), 10);
  n.step(10);
  n.finish_transfers(15);
  // Same first 8 tokens, then different: the 8-token CPU hit is one block, so it loads.
  n.e.add_request(spec(3, 9, 100, 1), 20);
  n.step(20);
  ASSERT_EQ(n.pending.size(), 1u);
  EXPECT_EQ(n.pending[0].kind, engine::TransferKind::kOffloadLoad);
  n.finish_transfers(25);
  n.step(30);
  // A prompt of 7 tokens has no full offload block: no lookup hit, computed on the GPU.
  n.e.add_request(spec(4, 7, 100, 1), 40);
  ASSERT_NE(n.step(40), nullptr);
  EXPECT_EQ(n.last.requests[0].num_tokens, 7 - n.last.requests[0].context_before);
}

}  // namespace
}  // namespace blis::vllm
