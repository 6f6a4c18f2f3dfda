// OffloadingConnector options beyond the defaults, through VllmEngine: the per-request
// max_offload_tokens cap (offloading/scheduler.py RequestOffloadState / _calc_num_offloadable_
// tokens), store_threshold (kv_offload/cpu/manager.py lookup counts, and the
// vllm:kv_offload_stores_skipped family of cpu/spec.py) and the ARC policy (cpu/policies/arc.py).
// Tests are named after the rule.
#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>

#include "engine/engine_test_specs.h"
#include "engine/offload_node.h"

namespace blis::vllm {
namespace {

// 64 CPU blocks: room for every chunk these tests store.
struct OptionsNode : enginetest::OffloadNode {
  explicit OptionsNode(const CpuOffloadingOptions& cpu = {}) : OffloadNode(64, cpu) {}
};

engine::RequestSpec options_spec(engine::RequestKey key, std::int32_t len, std::int32_t base,
                                 std::optional<std::int64_t> max_offload_tokens = std::nullopt,
                                 std::int32_t max_tokens = 2) {
  engine::RequestSpec s = enginetest::prompt_spec(key, len, base, max_tokens, 90000);
  if (max_offload_tokens) {
    engine::KvTransferParams p;
    p.max_offload_tokens = max_offload_tokens;
    s.kv_transfer = p;
  }
  return s;
}

std::int64_t options_stored_after_one(std::optional<std::int64_t> cap) {
  OptionsNode n;
  n.e.add_request(options_spec(1, 28, 100, cap), 0);  // 28 prompt tokens: three full 8-token chunks
  for (SimTime t = 0; t < 6; ++t) n.step(t * 10);
  return n.conn->cpu().num_stored();
}

TEST(OffloadingOptions, MaxOffloadTokensCapsTheChunksStored) {
  EXPECT_EQ(options_stored_after_one(std::nullopt), 3);
  EXPECT_EQ(options_stored_after_one(100), 3);  // above the prompt: the prompt caps it
  EXPECT_EQ(options_stored_after_one(17), 2);   // 17 tokens: two full chunks
  EXPECT_EQ(options_stored_after_one(16), 2);
  EXPECT_EQ(options_stored_after_one(15), 1);
  EXPECT_EQ(options_stored_after_one(0), 0);  // 0 is a valid cap: nothing is offloaded
}

TEST(OffloadingOptions, StoreThresholdStoresAChunkOnlyOnceLookedUpThatOften) {
  CpuOffloadingOptions o;
  o.store_threshold = 2;
  OptionsNode n(o);
  // First pass: only chunk 0 is looked up (a miss ends the lookup), once: nothing stored.
  n.e.add_request(options_spec(1, 28, 100), 0);
  for (SimTime t = 0; t < 4; ++t) n.step(t * 10);
  EXPECT_EQ(n.conn->cpu().num_stored(), 0);
  const std::string m = n.e.metrics_text(40, "");
  EXPECT_NE(m.find("# TYPE vllm:kv_offload_stores_skipped_total counter"), std::string::npos);
  EXPECT_NE(m.find("vllm:kv_offload_stores_skipped_total{engine=\"0\",model_name=\"\"} 3.0"),
            std::string::npos)
      << m;
  // A long unrelated prompt evicts the GPU copy; the same prompt then looks chunk 0 up again
  // (count 2): chunk 0 is stored, chunks 1 and 2 (looked up once or never) are not.
  n.e.add_request(options_spec(2, 58, 5000), 50);
  for (SimTime t = 5; t < 9; ++t) n.step(t * 10);
  n.e.add_request(options_spec(3, 28, 100), 90);
  for (SimTime t = 9; t < 13; ++t) n.step(t * 10);
  EXPECT_EQ(n.conn->cpu().num_stored(), 1);
}

TEST(OffloadingOptions, StoresSkippedIsRegisteredOnlyFromThreshold2) {
  for (const std::int64_t threshold : {0, 1}) {
    CpuOffloadingOptions o;
    o.store_threshold = threshold;
    OptionsNode n(o);
    n.e.add_request(options_spec(1, 28, 100), 0);
    for (SimTime t = 0; t < 4; ++t) n.step(t * 10);
    EXPECT_EQ(n.conn->cpu().num_stored(), 3) << threshold;  // < 2: no filtering
    EXPECT_EQ(n.e.metrics_text(40, "").find("stores_skipped"), std::string::npos) << threshold;
  }
}

TEST(OffloadingOptions, ArcPolicyServesTheSameHitsOnASimpleReuse) {
  CpuOffloadingOptions o;
  o.cache_policy = CachePolicyKind::kArc;
  OptionsNode n(o);
  n.e.add_request(options_spec(1, 24, 100, std::nullopt, 1), 0);
  n.step(0);
  n.finish_transfers(5);
  EXPECT_EQ(n.conn->cpu().num_stored(), 3);
  ASSERT_NE(dynamic_cast<const ArcCachePolicy*>(&n.conn->cpu().policy()), nullptr);
  n.e.add_request(options_spec(2, 58, 5000, std::nullopt, 1), 10);
  n.step(10);
  n.finish_transfers(15);
  n.e.add_request(options_spec(3, 24, 100), 20);
  n.step(20);  // the CPU hit is loaded asynchronously
  ASSERT_EQ(n.pending.size(), 1u);
  EXPECT_EQ(n.pending[0].kind, engine::TransferKind::kOffloadLoad);
  EXPECT_EQ(n.pending[0].num_blocks, 6);
}

}  // namespace
}  // namespace blis::vllm
