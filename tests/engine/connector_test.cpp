// The KV-connector hooks of the scheduler (KVConnectorBase_V1; spec vllm-metrics-connector-
// config.md §B.2, §B.5): external matched tokens, async loads that wait in
// WAITING_FOR_REMOTE_KVS with their blocks allocated, promotion when the load lands, and
// finished requests whose blocks the connector keeps until the transfer is done.
#include "engine/vllm/connector/kv_connector.h"

#include <gtest/gtest.h>

#include <map>

#include "engine/sched_harness.h"

namespace blis::vllm {
namespace {

using testing::Harness;
using testing::Names;
using testing::Sched;
using testing::small_config;

// Supplies the whole prompt beyond the local hit for requests whose id starts with "remote",
// asynchronously (like NIXL on the decode side), and keeps the blocks of requests whose id
// starts with "keep" after they finish (like NIXL on the prefill side).
class FakeConnector final : public KVConnector {
 public:
  MatchedTokens get_num_new_matched_tokens(const Request& r, std::int32_t local) override {
    ++lookups;
    if (r.request_id.rfind("undecided", 0) == 0 && undecided_left-- > 0) return {false, 0, false};
    // "half": only the first half of the prompt (whole blocks of 4) is external.
    if (r.request_id.rfind("half", 0) == 0) {
      const std::int32_t ext = (r.num_prompt_tokens / 2) / 4 * 4 - local;
      return {true, ext, ext > 0};
    }
    if (r.request_id.rfind("remote", 0) != 0) return {};
    const std::int32_t ext = r.num_prompt_tokens - local;
    return {true, ext, ext > 0};
  }
  void update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                std::int32_t num_external) override {
    allocated[r.request_id] = {static_cast<std::int32_t>(blocks.size()), num_external};
  }
  FinishedTransfer request_finished(Request& r, std::span<const std::int32_t> blocks) override {
    finished.push_back(r.request_id);
    FinishedTransfer f;
    f.delay_free = r.request_id.rfind("keep", 0) == 0 && !blocks.empty();
    return f;
  }
  std::int32_t lookups = 0;
  std::int32_t undecided_left = 2;
  std::map<std::string, std::pair<std::int32_t, std::int32_t>> allocated;  // blocks, external
  std::vector<std::string> finished;
};

TEST(KvConnectorHooks, AsyncLoadWaitsWithItsBlocksThenRecomputesTheLastToken) {
  Harness h(small_config());
  FakeConnector c;
  h.s().set_connector(&c);
  h.add_len("remote-a", 20, 3);
  h.add_len("local", 4, 3);
  const SchedulerOutput& o1 = h.step();
  // The async load uses no token budget; its 5 blocks are allocated but not cached.
  EXPECT_EQ(h.scheduled(o1), (Sched{{"local", 4}}));
  const Request* a = h.get("remote-a");
  EXPECT_EQ(a->status, RequestStatus::kWaitingForRemoteKvs);
  EXPECT_EQ(a->num_computed_tokens, 20);
  EXPECT_EQ(c.allocated["remote-a"], (std::pair<std::int32_t, std::int32_t>{5, 20}));
  EXPECT_EQ(
      h.s().kv_cache_manager().single_type_manager().num_cached_blocks(h.ref("remote-a").index), 0);
  EXPECT_EQ(h.s().num_waiting(), 1);
  // Not landed yet: it stays waiting and does not block others.
  h.step();
  EXPECT_EQ(h.get("remote-a")->status, RequestStatus::kWaitingForRemoteKvs);
  // The transfer lands: promoted to WAITING with the loaded blocks cached; a fully loaded
  // prompt recomputes its last token to get logits.
  h.s().finished_recving(h.ref("remote-a"));
  const SchedulerOutput& o3 = h.step();
  ASSERT_EQ(o3.scheduled.size(), 2u);
  EXPECT_EQ(o3.scheduled[1].kind, ScheduledKind::kNew);
  EXPECT_EQ(o3.scheduled[1].num_computed_before, 19);
  EXPECT_EQ(o3.scheduled[1].num_tokens, 1);
  // The promotion caches the loaded blocks up to the recomputed token (4); the step that
  // computes that token fills and caches the fifth.
  EXPECT_EQ(
      h.s().kv_cache_manager().single_type_manager().num_cached_blocks(h.ref("remote-a").index), 5);
}

TEST(KvConnectorHooks, UndecidedRequestsAreSkippedNotBlocking) {
  Harness h(small_config());
  FakeConnector c;
  h.s().set_connector(&c);
  h.add_len("undecided", 8, 2);
  h.add_len("b", 8, 2);
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"b", 8}}));
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"b", 1}}));
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"undecided", 8}}));
}

TEST(KvConnectorHooks, ConnectorKeepsFinishedBlocksUntilTheSendIsDone) {
  Harness h(small_config());
  FakeConnector c;
  h.s().set_connector(&c);
  h.add_len("keep-p", 16, 1);
  h.step();
  EXPECT_EQ(c.finished, Names{"keep-p"});
  // Finished and out of the queues, but its 4 blocks still count as used.
  EXPECT_EQ(h.s().num_running(), 0);
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 63 - 4);
  EXPECT_TRUE(h.s().has_requests());
  h.s().finished_sending(h.ref("keep-p"));
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 63);
  h.step();  // reports the finished id
  EXPECT_FALSE(h.s().has_requests());
}

TEST(KvConnectorHooks, AbortDuringAsyncLoadFreesWhenTheLoadEnds) {
  Harness h(small_config());
  FakeConnector c;
  h.s().set_connector(&c);
  h.add_len("remote-x", 12, 3);
  h.step();
  ASSERT_EQ(h.get("remote-x")->status, RequestStatus::kWaitingForRemoteKvs);
  EXPECT_TRUE(h.s().finish_request(h.ref("remote-x"), RequestStatus::kFinishedAborted));
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 63 - 3);  // the load still writes them
  h.s().finished_recving(h.ref("remote-x"));
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 63);
}

TEST(KvConnectorHooks, AsyncLoadsLeaveRoomForInFlightPrefills) {
  VllmConfig cfg = small_config();
  cfg.num_gpu_blocks = 12;  // 11 usable
  cfg.long_prefill_token_threshold = 16;
  Harness h(cfg);
  FakeConnector c;
  h.s().set_connector(&c);
  h.add_len("long", 40, 2);      // 10 blocks once prefilled; 4 after its first chunk
  h.add_len("remote-r", 12, 2);  // 3 blocks: fits in 11 - 4, not in 11 - 4 - 6 reserved
  const SchedulerOutput& o = h.step();
  EXPECT_EQ(h.scheduled(o), (Sched{{"long", 16}}));
  EXPECT_EQ(h.get("remote-r")->status, RequestStatus::kWaiting);
}

TEST(KvConnectorHooks, ALandedLoadKeepsItsReservationUntilItIsScheduled) {
  // vllm scheduler.py: _update_from_kv_xfer_finished only adds the request to
  // finished_recving_kv_req_ids; it leaves _inflight_prefills when it is scheduled past its
  // prompt (_update_after_schedule), preempted or freed. So until its promotion, a later
  // async load is admitted only if it fits in free - the blocks the landed one still needs.
  VllmConfig cfg = small_config();
  cfg.num_gpu_blocks = 16;  // 15 usable
  cfg.policy = SchedulingPolicy::kPriority;
  Harness h(cfg);
  FakeConnector c;
  h.s().set_connector(&c);
  Harness::Options low;
  low.priority = 1;
  h.add_len("half-a", 40, 2, low);  // loads 20 tokens: 5 blocks now, 5 more to come
  h.step();
  ASSERT_EQ(h.get("half-a")->status, RequestStatus::kWaitingForRemoteKvs);
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 10);
  h.s().finished_recving(h.ref("half-a"));
  // Priority 0 comes before the promoted half-a (priority 1): its 7-block load fits in the 10
  // free blocks but not in 10 - 5 reserved, so the waiting loop stops and nothing is admitted.
  h.add_len("remote-b", 28, 2);
  h.step();
  EXPECT_EQ(h.get("remote-b")->status, RequestStatus::kWaiting);
  EXPECT_EQ(h.get("half-a")->status, RequestStatus::kWaitingForRemoteKvs);
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 10);
}

}  // namespace
}  // namespace blis::vllm
