// KV load failures (vllm v1/core/sched/scheduler.py _handle_invalid_blocks,
// _update_requests_with_invalid_blocks): the blocks a connector failed to load roll the
// requests that hold them back to the first invalid block ("recompute") or finish them with
// an error ("fail", evicting the invalid blocks and those after them from the prefix cache).
// Both the async path (WAITING_FOR_REMOTE_KVS) and the sync path (a running request whose
// load ran within the step) are covered.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/sched_harness.h"
#include "engine/vllm/connector/kv_connector.h"

namespace blis::vllm {
namespace {

using testing::Harness;
using testing::Sched;
using testing::small_config;

// "async*": the whole prompt is loaded asynchronously, once per request (as NIXL clears
// do_remote_prefill); "sync*": the first half of the prompt (whole blocks of 4) is loaded
// within the step.
class LoadingConnector final : public KVConnector {
 public:
  MatchedTokens get_num_new_matched_tokens(const Request& r, std::int32_t local) override {
    if (r.request_id.rfind("async", 0) == 0 && loaded.insert(r.request_id).second) {
      const std::int32_t ext = r.num_prompt_tokens - local;
      return {true, ext, ext > 0};
    }
    if (r.request_id.rfind("sync", 0) == 0) {
      const std::int32_t ext = std::max((r.num_prompt_tokens / 2) / 4 * 4 - local, 0);
      return {true, ext, false};
    }
    return {};
  }
  void update_state_after_alloc(Request&, std::span<const std::int32_t>, std::int32_t) override {}
  FinishedTransfer request_finished(Request&, std::span<const std::int32_t>) override { return {}; }
  std::set<std::string> loaded;
};

VllmConfig config(bool recompute) {
  VllmConfig c = small_config();
  c.recompute_kv_load_failures = recompute;
  return c;
}

std::vector<std::int32_t> blocks_of(Harness& h, const std::string& id) {
  const auto b = h.s().kv_cache_manager().get_blocks(*h.get(id));
  return {b.begin(), b.end()};
}

bool cached(Harness& h, std::int32_t block) {
  return h.s().kv_cache_manager().block_pool().block(block).has_hash;
}

TEST(KvLoadFailure, AsyncRecomputeRollsBackToTheFirstInvalidBlock) {
  Harness h(config(true));
  LoadingConnector c;
  h.s().set_connector(&c);
  h.add_len("async-a", 20, 3);
  h.step();
  ASSERT_EQ(h.get("async-a")->status, RequestStatus::kWaitingForRemoteKvs);
  const std::vector<std::int32_t> b = blocks_of(h, "async-a");
  ASSERT_EQ(b.size(), 5u);
  // Blocks 2 and 4 failed: the first invalid one decides (2 blocks of 4 tokens stay valid).
  const std::vector<std::int32_t> bad{b[4], b[2]};
  h.s().report_invalid_blocks(bad);
  EXPECT_EQ(h.get("async-a")->num_computed_tokens, 8);
  EXPECT_EQ(h.s().total_kv_load_failed_requests(), 1u);
  EXPECT_EQ(h.s().total_kv_load_errored_requests(), 0u);
  h.s().finished_recving(h.ref("async-a"));
  // Promoted with only the valid prefix cached; the rest is recomputed (no last-token rule:
  // the prompt was not fully loaded).
  const SchedulerOutput& o = h.step();
  ASSERT_EQ(o.scheduled.size(), 1u);
  EXPECT_EQ(o.scheduled[0].kind, ScheduledKind::kNew);
  EXPECT_EQ(o.scheduled[0].num_computed_before, 8);
  EXPECT_EQ(o.scheduled[0].num_tokens, 12);
  EXPECT_TRUE(h.result().errored.empty());
}

TEST(KvLoadFailure, AsyncRecomputeWithTheFirstBlockInvalidFreesTheBlocks) {
  Harness h(config(true));
  LoadingConnector c;
  h.s().set_connector(&c);
  h.add_len("async-a", 20, 3);
  h.step();
  const std::int32_t free_before = h.s().kv_cache_manager().num_free_blocks();
  const std::vector<std::int32_t> b = blocks_of(h, "async-a");
  h.s().report_invalid_blocks(std::vector<std::int32_t>{b[0]});
  EXPECT_EQ(h.get("async-a")->num_computed_tokens, 0);
  h.s().finished_recving(h.ref("async-a"));
  // _update_waiting_for_remote_kv: nothing valid, so the blocks are released before the
  // request is scheduled again from scratch (and allocates anew).
  const SchedulerOutput& o = h.step();
  ASSERT_EQ(o.scheduled.size(), 1u);
  EXPECT_EQ(o.scheduled[0].num_computed_before, 0);
  EXPECT_EQ(o.scheduled[0].num_tokens, 20);
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), free_before);
}

TEST(KvLoadFailure, AsyncFailFinishesWithAnErrorAndFreesWhenTheLoadEnds) {
  Harness h(config(false));
  LoadingConnector c;
  h.s().set_connector(&c);
  const std::int32_t free_at_start = h.s().kv_cache_manager().num_free_blocks();
  h.add_len("async-a", 20, 3);
  h.add_len("local", 4, 3);
  h.step();
  const std::vector<std::int32_t> b = blocks_of(h, "async-a");
  h.s().report_invalid_blocks(std::vector<std::int32_t>{b[3]});
  // finish_requests(FINISHED_ERROR): the load is still in flight, so the blocks stay.
  const Request* a = h.s().find(h.ref("async-a"));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->status, RequestStatus::kFinishedError);
  EXPECT_EQ(h.s().num_waiting(), 0);
  EXPECT_EQ(h.s().total_kv_load_errored_requests(), 1u);
  h.s().finished_recving(h.ref("async-a"));
  EXPECT_EQ(h.s().find(h.ref("async-a")), nullptr);
  // The error output goes with the next update: no tokens, the request's key.
  h.step();
  ASSERT_EQ(h.result().errored.size(), 1u);
  EXPECT_EQ(h.id(h.result().errored[0].key), "async-a");
  EXPECT_EQ(h.result().errored[0].num_output_tokens, 0);
  h.step();
  h.step();
  EXPECT_TRUE(h.result().errored.empty());
  EXPECT_FALSE(h.s().has_unfinished_requests());
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), free_at_start);
}

TEST(KvLoadFailure, SyncRecomputeSkipsTheOutputAndKeepsTheCache) {
  Harness h(config(true));
  LoadingConnector c;
  h.s().set_connector(&c);
  h.add_len("sync-a", 20, 3);
  InFlightBatch& batch = h.schedule();
  ASSERT_EQ(h.scheduled(batch.output), (Sched{{"sync-a", 12}}));
  EXPECT_EQ(batch.output.scheduled[0].num_computed_before, 8);
  const std::vector<std::int32_t> b = blocks_of(h, "sync-a");
  // The second externally loaded block failed: recompute from token 4.
  h.invalid_block_ids = {b[1]};
  const UpdateResult& res = h.apply();
  ASSERT_EQ(res.updates.size(), 1u);
  EXPECT_EQ(res.updates[0].num_delivered, 0);  // skipped: no token sampled on invalid KV
  EXPECT_EQ(h.get("sync-a")->num_computed_tokens, 4);
  EXPECT_EQ(h.get("sync-a")->num_output_tokens(), 0);
  EXPECT_EQ(h.get("sync-a")->status, RequestStatus::kRunning);
  // "recompute" keeps the blocks in the prefix cache (they are recomputed in place).
  EXPECT_TRUE(cached(h, b[1]));
  const SchedulerOutput& o = h.step();
  EXPECT_EQ(h.scheduled(o), (Sched{{"sync-a", 16}}));
  EXPECT_EQ(o.scheduled[0].num_computed_before, 4);
  EXPECT_EQ(h.get("sync-a")->num_output_tokens(), 1);
}

TEST(KvLoadFailure, SyncFailEvictsTheInvalidAndLaterBlocksAndFinishesWithAnError) {
  Harness h(config(false));
  LoadingConnector c;
  h.s().set_connector(&c);
  h.add_len("sync-a", 20, 3);
  h.schedule();
  const std::vector<std::int32_t> b = blocks_of(h, "sync-a");
  for (const std::int32_t id : b) ASSERT_TRUE(cached(h, id));
  h.invalid_block_ids = {b[1]};
  const UpdateResult& res = h.apply();
  ASSERT_EQ(res.errored.size(), 1u);
  EXPECT_EQ(h.id(res.errored[0].key), "sync-a");
  EXPECT_TRUE(res.finished.empty());  // not a normal stop
  EXPECT_EQ(h.s().find(h.ref("sync-a")), nullptr);
  EXPECT_EQ(h.s().num_running(), 0);
  EXPECT_EQ(h.s().total_kv_load_errored_requests(), 1u);
  // evict_blocks: block 1 and every block after it lose their hash; block 0 stays cached.
  EXPECT_TRUE(cached(h, b[0]));
  for (std::size_t k = 1; k < b.size(); ++k) EXPECT_FALSE(cached(h, b[k])) << k;
}

TEST(KvLoadFailure, ASharedInvalidBlockIsRecomputedByTheFirstRequestOnly) {
  // Two running requests with the same prompt share its blocks; the second falls back to
  // what it had computed before the step (scheduler.py marked_invalid_block_ids).
  Harness h(config(true));
  LoadingConnector c;
  h.s().set_connector(&c);
  h.add_len("sync-a", 20, 4);
  h.step();
  h.step();  // a decodes
  const std::vector<std::int32_t> prompt(h.get("sync-a")->all_token_ids.begin(),
                                         h.get("sync-a")->all_token_ids.begin() + 20);
  h.add("local-b", prompt, 3);
  InFlightBatch& batch = h.schedule();
  ASSERT_EQ(batch.output.scheduled.size(), 2u);
  const std::int32_t b_before = batch.output.scheduled[1].num_computed_before;
  EXPECT_EQ(b_before, 16);  // local prefix hit of a's full blocks
  const std::vector<std::int32_t> blocks = blocks_of(h, "sync-a");
  h.invalid_block_ids = {blocks[2]};
  const std::int32_t a_computed = h.get("sync-a")->num_computed_tokens;
  h.apply();
  // a marks block 2 (rolled back to 8 tokens); b shares it and reverts to its pre-step count.
  EXPECT_EQ(h.get("sync-a")->num_computed_tokens, 8);
  EXPECT_LT(h.get("sync-a")->num_computed_tokens, a_computed);
  EXPECT_EQ(h.get("local-b")->num_computed_tokens, b_before);
  EXPECT_EQ(h.s().total_kv_load_failed_requests(), 2u);
}

TEST(KvLoadFailure, SyncRecomputeUnderAsyncSchedulingWithABatchInFlight) {
  // AsyncScheduler: the request's next pass is scheduled before the failed one's output
  // arrives; the rollback counts back from the pass being applied (num_scheduled_tokens).
  VllmConfig c = small_config(true);
  c.recompute_kv_load_failures = true;
  Harness h(c);
  LoadingConnector conn;
  h.s().set_connector(&conn);
  h.add_len("sync-a", 20, 4);
  InFlightBatch& b1 = h.schedule();
  ASSERT_EQ(h.scheduled(b1.output), (Sched{{"sync-a", 12}}));
  h.schedule();  // its first decode, on a placeholder
  EXPECT_EQ(h.get("sync-a")->num_computed_tokens, 21);
  EXPECT_EQ(h.get("sync-a")->num_output_placeholders, 2);
  const std::vector<std::int32_t> b = blocks_of(h, "sync-a");
  h.invalid_block_ids = {b[1]};
  const UpdateResult& res = h.apply();
  EXPECT_EQ(res.updates[0].num_delivered, 0);
  // 21 - 12 scheduled = 9 computed before the pass, 3 blocks: cut at block 1.
  EXPECT_EQ(h.get("sync-a")->num_computed_tokens, 4);
  // As upstream: the skipped output never reaches _update_request_with_output, so the
  // pass's placeholder is not given back (async_scheduler.py).
  EXPECT_EQ(h.get("sync-a")->num_output_placeholders, 2);
  // The pass in flight delivers its token as usual.
  h.apply();
  EXPECT_EQ(h.get("sync-a")->num_output_tokens(), 1);
  EXPECT_EQ(h.get("sync-a")->num_output_placeholders, 1);
}

TEST(KvLoadFailure, NoInvalidBlocksChangesNothing) {
  Harness h(config(false));
  LoadingConnector c;
  h.s().set_connector(&c);
  h.add_len("sync-a", 20, 2);
  h.step();
  h.step();
  EXPECT_EQ(h.s().total_kv_load_failed_requests(), 0u);
  EXPECT_TRUE(h.result().errored.empty());
  EXPECT_EQ(h.result().finished.size(), 1u);
}

}  // namespace
}  // namespace blis::vllm
