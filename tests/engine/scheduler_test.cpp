// Scheduler (sync): the scheduling edge cases of spec §9 as named tests. Case numbers follow
// the spec; the KV cases are in kv_cache_manager_test.cpp, the async ones in
// async_scheduler_test.cpp.
#include "engine/vllm/sched/scheduler.h"

#include <gtest/gtest.h>

#include <map>

#include "engine/sched_harness.h"

namespace blis::vllm {
namespace {

using testing::Harness;
using testing::Names;
using testing::Sched;
using testing::small_config;

std::int32_t delivered_to(const Harness& h, const std::string& id) {
  for (const RequestUpdate& u : h.result().updates) {
    if (h.id(u.key) == id) return u.num_delivered;
  }
  return -1;
}

TEST(SchedulerEdgeCases, S06_MaxTokensOneFinishesInTheStepOfTheLastPrefillChunk) {
  Harness h(small_config());
  h.add_len("a", 100, 1);  // budget 64: chunks 64 + 36
  h.step();
  EXPECT_EQ(delivered_to(h, "a"), 0);
  h.step();
  ASSERT_EQ(h.names(h.result().finished), Names{"a"});
  EXPECT_EQ(h.result().updates[0].status, RequestStatus::kFinishedLengthCapped);
  EXPECT_EQ(h.get("a"), nullptr);
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 63);
  EXPECT_TRUE(h.s().has_requests());  // the finished id is still to be reported
  const SchedulerOutput& next = h.step();
  EXPECT_EQ(h.names(next.finished_req_ids), Names{"a"});
  EXPECT_FALSE(h.s().has_requests());
}

TEST(SchedulerEdgeCases, S07_MinTokensOverridesEosAndLength) {
  Harness h(small_config());
  Harness::Options o;
  o.eos_at_output = 2;
  o.min_tokens = 3;
  h.add_len("a", 5, 2, o);
  for (int i = 0; i < 3; ++i) h.step();
  ASSERT_EQ(h.names(h.result().finished), Names{"a"});
  EXPECT_EQ(h.result().updates[0].num_output_tokens, 3);
  EXPECT_EQ(h.result().updates[0].status, RequestStatus::kFinishedLengthCapped);
}

TEST(SchedulerEdgeCases, S08_S09_EosOnTheMaxTokensTokenStopsAndIsKept) {
  Harness h(small_config());
  Harness::Options o;
  o.eos_at_output = 2;
  h.add_len("a", 5, 2, o);
  h.step();
  h.step();
  ASSERT_EQ(h.names(h.result().finished), Names{"a"});
  EXPECT_EQ(h.result().updates[0].status, RequestStatus::kFinishedStopped);
  EXPECT_EQ(h.result().updates[0].num_output_tokens, 2);  // the EOS token is in the output
  EXPECT_EQ(finish_reason_of(h.result().updates[0].status), engine::FinishReason::kStop);
}

TEST(SchedulerEdgeCases, S10_SpecDecodeStopInsideAcceptedTokensDropsTheRest) {
  VllmConfig c = small_config();
  c.num_speculative_tokens = 3;
  Harness h(c);
  Harness::Options o;
  o.eos_at_output = 3;
  h.add_len("a", 5, 20, o);
  h.step();  // prefill, output 1, then 3 drafts
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(out.scheduled[0].num_tokens, 4);
  EXPECT_EQ(out.scheduled[0].num_spec_tokens, 3);
  const RequestUpdate& u = h.result().updates[0];
  EXPECT_EQ(u.num_sampled, 4);
  EXPECT_EQ(u.num_delivered, 2);  // outputs 2 and 3 (EOS); the rest dropped
  EXPECT_TRUE(u.stopped);
  EXPECT_EQ(u.num_output_tokens, 3);
}

TEST(SchedulerEdgeCases, S10b_EosAndStopTokensMatchByValue) {
  // sched/utils.py check_stop: the last token equal to eos_token_id stops (kept); a stop
  // token stops with stop_reason; both wait for min_tokens.
  Harness h(small_config());
  Harness::Options eos;
  eos.eos_token_id = 1001;  // output 2
  h.add_len("eos", 5, 20, eos);
  Harness::Options stop;
  stop.stop_token_ids = {1002, 1004};
  stop.min_tokens = 4;  // 1002 (output 3) comes before min_tokens and is kept
  h.add_len("stop", 5, 20, stop);
  std::map<std::string, std::int32_t> outputs, reasons;
  for (int i = 0; i < 8; ++i) {
    h.step();
    for (const RequestUpdate& u : h.result().updates) {
      if (!u.stopped) continue;
      outputs[h.id(u.key)] = u.num_output_tokens;
      reasons[h.id(u.key)] = u.stop_reason;
      EXPECT_EQ(u.status, RequestStatus::kFinishedStopped);
    }
  }
  EXPECT_EQ(outputs["eos"], 2);
  EXPECT_EQ(reasons["eos"], -1);  // EOS sets no stop_reason
  EXPECT_EQ(outputs["stop"], 5);  // 1004 at output 5
  EXPECT_EQ(reasons["stop"], 1004);
}

TEST(SchedulerEdgeCases, S10c_NewOneTokenDecodeIsPaddedOnlyBesideRunningDecodes) {
  // scheduler.py waiting phase: padded to 1 + k with -1 drafts when running requests were
  // scheduled and none is prefilling.
  VllmConfig c = small_config();
  c.num_speculative_tokens = 3;
  Harness h(c);
  h.add_len("alone", 1, 20);
  const SchedulerOutput& first = h.step();
  EXPECT_EQ(first.scheduled[0].num_tokens, 1);  // nothing running: not padded
  EXPECT_EQ(first.scheduled[0].num_spec_tokens, 0);
  h.add_len("new", 1, 20);
  const SchedulerOutput& out = h.step();
  ASSERT_EQ(h.scheduled(out), (Sched{{"alone", 4}, {"new", 4}}));
  EXPECT_EQ(out.scheduled[1].num_spec_tokens, 3);
  for (std::int32_t k = 0; k < 3; ++k)
    EXPECT_EQ(out.spec_token_ids[static_cast<std::size_t>(out.scheduled[1].spec_begin + k)], -1);
}

TEST(SchedulerEdgeCases, S11_SpecDecodeRejectionRollsComputedTokensBack) {
  VllmConfig c = small_config();
  c.num_speculative_tokens = 4;
  Harness h(c);
  h.accept = [](const std::string&, std::int32_t) { return 1; };
  h.add_len("a", 5, 50);
  h.step();
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(out.scheduled[0].num_tokens, 5);
  EXPECT_EQ(out.scheduled[0].num_spec_tokens, 4);
  EXPECT_EQ(h.get("a")->num_computed_tokens, 7);  // 5 + 5 - 3 rejected
  EXPECT_EQ(h.get("a")->num_tokens(), 8);
  EXPECT_EQ(h.step().scheduled[0].num_tokens, 5);  // num_tokens_with_spec - computed
}

TEST(SchedulerEdgeCases, S12_BudgetRunsOutMidRunningListWithoutPreemption) {
  VllmConfig c = small_config();
  c.max_num_batched_tokens = 8;
  c.max_num_seqs = 4;
  c.num_speculative_tokens = 8;
  Harness h(c);
  h.add_len("a", 4, 50);
  h.add_len("b", 2, 50);
  h.add_len("c", 2, 50);
  h.step();
  h.add_len("d", 2, 50);
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.scheduled(out), (Sched{{"a", 8}}));  // 1 + 8 drafts cut to the budget
  EXPECT_EQ(out.scheduled[0].num_spec_tokens, 7);
  EXPECT_TRUE(out.preempted.empty());
  EXPECT_EQ(h.running_order(), (Names{"a", "b", "c"}));
  EXPECT_EQ(h.waiting_order(), Names{"d"});
}

TEST(SchedulerEdgeCases, S13_ChunkedPrefillAcrossSteps) {
  Harness h(small_config());
  h.add_len("a", 150, 4);
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"a", 64}}));
  EXPECT_EQ(delivered_to(h, "a"), 0);
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"a", 64}}));
  EXPECT_EQ(delivered_to(h, "a"), 0);
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"a", 22}}));
  EXPECT_EQ(delivered_to(h, "a"), 1);  // the first token after the last chunk
  EXPECT_TRUE(h.result().updates[0].first_token);
}

TEST(SchedulerEdgeCases, S14_WithoutChunkedPrefillTheWaitingHeadBlocks) {
  VllmConfig c = small_config();
  c.enable_chunked_prefill = false;
  c.max_model_len = 64;
  Harness h(c);
  h.add_len("a", 40, 4);
  h.add_len("head", 30, 4);
  h.add_len("small", 3, 4);
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.scheduled(out), (Sched{{"a", 40}}));
  EXPECT_EQ(h.waiting_order(), (Names{"head", "small"}));
}

TEST(SchedulerEdgeCases, S15_LongPrefillThresholdCapsEveryChunk) {
  VllmConfig c = small_config();
  c.long_prefill_token_threshold = 16;
  Harness h(c);
  h.add_len("a", 40, 4);
  h.add_len("b", 3, 8);
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"a", 16}, {"b", 3}}));
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"a", 16}, {"b", 1}}));
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"a", 8}, {"b", 1}}));
}

TEST(SchedulerEdgeCases, S16_MaxNumSeqsCountsUnscheduledRunningRequests) {
  VllmConfig c = small_config();
  c.max_num_seqs = 2;
  Harness h(c);
  h.add_len("a", 3, 10);
  h.add_len("b", 3, 10);
  h.add_len("c", 3, 10);
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.scheduled(out), (Sched{{"a", 3}, {"b", 3}}));
  EXPECT_EQ(h.waiting_order(), Names{"c"});
}

TEST(SchedulerEdgeCases, S17_FcfsPreemptsTheTailAndStopsAdmissions) {
  VllmConfig c = small_config();
  c.num_gpu_blocks = 6;  // 5 usable
  Harness h(c);
  h.add_len("a", 4, 20);
  h.add_len("b", 4, 20);
  h.add_len("c", 8, 20);
  h.step();  // a, b: 1 block each, c: 2; 1 free
  h.add_len("d", 2, 20);
  const SchedulerOutput& out = h.step();
  // a takes the last free block; b fails, so the tail c is preempted and b retried.
  EXPECT_EQ(h.scheduled(out), (Sched{{"a", 1}, {"b", 1}}));
  EXPECT_EQ(h.names(out.preempted), Names{"c"});
  const Request* cr = h.get("c");
  EXPECT_EQ(cr->status, RequestStatus::kPreempted);
  EXPECT_EQ(cr->num_computed_tokens, 0);
  EXPECT_EQ(cr->num_preemptions, 1);
  EXPECT_EQ(cr->num_output_tokens(), 1);  // outputs are kept
  EXPECT_FALSE(h.s().kv_cache_manager().single_type_manager().has_blocks_entry(h.ref("c").index));
  // c goes to the front of waiting; d (which would fit) is not admitted after a preemption.
  EXPECT_EQ(h.waiting_order(), (Names{"c", "d"}));
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 1);
}

TEST(SchedulerEdgeCases, S18_S22_TheOnlyRunningRequestPreemptsItselfAndBlocksTheQueue) {
  VllmConfig c = small_config();
  c.num_gpu_blocks = 3;  // 2 usable
  Harness h(c);
  h.add_len("a", 8, 10);
  h.step();
  h.add_len("b", 1, 10);
  const SchedulerOutput& out = h.step();
  EXPECT_TRUE(out.scheduled.empty());
  EXPECT_EQ(h.names(out.preempted), Names{"a"});
  EXPECT_EQ(h.waiting_order(), (Names{"a", "b"}));
  EXPECT_EQ(h.s().kv_cache_manager().num_free_blocks(), 2);
  // S22: a cannot be re-admitted (3 blocks needed); a waiting failure never preempts and
  // the phase ends at the head, so b is not admitted either.
  const SchedulerOutput& again = h.step();
  EXPECT_TRUE(again.scheduled.empty());
  EXPECT_TRUE(again.preempted.empty());
  EXPECT_EQ(h.waiting_order(), (Names{"a", "b"}));
}

TEST(SchedulerEdgeCases, S19_PriorityVictimIsTheLargestPriorityAndArrivalAndIsUndone) {
  VllmConfig c = small_config();
  c.policy = SchedulingPolicy::kPriority;
  c.num_gpu_blocks = 6;  // 5 usable
  Harness h(c);
  Harness::Options oc;
  oc.priority = 5;
  oc.arrival = 2.0;
  h.add_len("c", 4, 20, oc);
  h.step();
  Harness::Options oa;
  oa.priority = 0;
  oa.arrival = 0.0;
  Harness::Options ob;
  ob.priority = 5;
  ob.arrival = 1.0;
  h.add_len("a", 4, 20, oa);
  h.add_len("b", 4, 20, ob);
  h.step();
  EXPECT_EQ(h.running_order(), (Names{"c", "a", "b"}));
  const SchedulerOutput& out = h.step();
  // c was scheduled first, then b failed: c (priority 5, arrived last) is the victim and its
  // scheduling is undone.
  EXPECT_EQ(h.names(out.preempted), Names{"c"});
  EXPECT_EQ(h.scheduled(out), (Sched{{"a", 1}, {"b", 1}}));
  EXPECT_EQ(out.total_num_scheduled_tokens, 2);
}

TEST(SchedulerEdgeCases, S19b_PriorityVictimTiesGoToTheFirstInRunningOrder) {
  VllmConfig c = small_config();
  c.policy = SchedulingPolicy::kPriority;
  c.num_gpu_blocks = 3;  // 2 usable
  Harness h(c);
  h.add_len("b", 4, 20);
  h.add_len("a", 4, 20);
  h.step();
  EXPECT_EQ(h.running_order(), (Names{"a", "b"}));  // ties in waiting: the smaller id first
  const SchedulerOutput& out = h.step();
  // Equal (priority, arrival): Python's max() keeps the first tied request in running order,
  // so a (which needs the block) is its own victim and the running phase ends (FORMAT.md
  // erratum to item 7; golden case 50). The old rule (largest id) would have taken b.
  EXPECT_EQ(h.names(out.preempted), Names{"a"});
  EXPECT_EQ(h.scheduled(out), Sched{});
}

TEST(SchedulerEdgeCases, S20_PriorityWaitingOrder) {
  VllmConfig c = small_config();
  c.policy = SchedulingPolicy::kPriority;
  Harness h(c);
  auto opt = [](std::int32_t p, double a) {
    Harness::Options o;
    o.priority = p;
    o.arrival = a;
    return o;
  };
  h.add_len("b", 2, 4, opt(1, 5.0));
  h.add_len("a", 2, 4, opt(1, 5.0));
  h.add_len("c", 2, 4, opt(1, 4.0));
  h.add_len("z", 2, 4, opt(0, 9.0));
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.scheduled(out), (Sched{{"z", 2}, {"c", 2}, {"a", 2}, {"b", 2}}));
}

TEST(SchedulerEdgeCases, S21_ResumedRequestHitsItsOwnBlocksIncludingGeneratedTokens) {
  VllmConfig c = small_config();
  c.num_gpu_blocks = 5;  // 4 usable
  Harness h(c);
  h.add_len("a", 4, 20);
  h.add_len("b", 7, 20);
  h.step();
  h.step();
  const SchedulerOutput& out = h.step();
  ASSERT_EQ(h.names(out.preempted), Names{"b"});  // b preempted itself
  EXPECT_EQ(h.get("b")->num_output_tokens(), 2);
  std::vector<engine::RequestKey> aborted;
  EXPECT_TRUE(h.core().abort_now(h.ref("a")));
  const SchedulerOutput& resumed = h.step();
  ASSERT_EQ(resumed.scheduled.size(), 1u);
  EXPECT_EQ(resumed.scheduled[0].kind, ScheduledKind::kResumed);
  EXPECT_EQ(resumed.scheduled[0].num_computed_before, 8);  // prompt block + generated block
  EXPECT_EQ(resumed.scheduled[0].num_tokens, 1);
  EXPECT_EQ(resumed.scheduled[0].blocks_end - resumed.scheduled[0].blocks_begin, 3);  // all blocks
  EXPECT_EQ(h.get("b")->num_cached_tokens, 0);  // set once, at first admission
  EXPECT_EQ(h.get("b")->num_preemptions, 1);
  const SchedulerStats st = h.s().make_stats();
  EXPECT_EQ(st.prefix_cache_stats.preempted_requests, 1);
  EXPECT_EQ(st.prefix_cache_stats.preempted_queries, 9);
  EXPECT_EQ(st.prefix_cache_stats.preempted_hits, 8);
}

TEST(SchedulerEdgeCases, S23_LoraCapSkipsWithoutBlockingAndRequeuesTheSkipped) {
  VllmConfig c = small_config();
  c.max_loras = 2;
  Harness h(c);
  auto lora = [](std::int32_t id) {
    Harness::Options o;
    o.lora = id;
    return o;
  };
  h.add_len("r1", 2, 20, lora(1));
  h.add_len("r2", 2, 20, lora(2));
  h.step();
  h.add_len("w3", 2, 20, lora(3));
  h.add_len("w1", 2, 20, lora(1));
  h.add_len("n", 2, 20);
  h.add_len("w4", 2, 20, lora(4));
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.scheduled(out), (Sched{{"r1", 1}, {"r2", 1}, {"w1", 2}, {"n", 2}}));
  // The skipped requests go back ahead of the queue; each skip is a prepend and
  // prepend_requests an extendleft, so the two reversals cancel (golden case 33).
  EXPECT_EQ(h.waiting_order(), (Names{"w3", "w4"}));
}

TEST(SchedulerEdgeCases, S28_AbortWhileWaiting) {
  VllmConfig c = small_config();
  c.max_num_seqs = 1;
  Harness h(c);
  h.add_len("a", 2, 20);
  h.add_len("b", 2, 20);
  h.step();
  EXPECT_TRUE(h.s().finish_request(h.ref("b"), RequestStatus::kFinishedAborted));
  EXPECT_FALSE(h.s().finish_request(h.ref("b"), RequestStatus::kFinishedAborted));  // idempotent
  EXPECT_EQ(h.get("b"), nullptr);
  EXPECT_TRUE(h.waiting_order().empty());
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.names(out.finished_req_ids), Names{"b"});
}

TEST(SchedulerEdgeCases, S30_PositionCapAndLengthStopAtMaxModelLen) {
  VllmConfig c = small_config();
  c.max_model_len = 16;
  Harness h(c);
  h.add_len("a", 10, 100);
  for (int i = 0; i < 7 && h.s().has_unfinished_requests(); ++i) {
    const SchedulerOutput& out = h.step();
    for (const ScheduledRequest& e : out.scheduled) {
      EXPECT_LE(e.num_computed_before + e.num_tokens, c.max_model_len - 1);
    }
  }
  ASSERT_EQ(h.names(h.result().finished), Names{"a"});
  EXPECT_EQ(h.result().updates[0].num_output_tokens, 6);
  EXPECT_EQ(h.result().updates[0].status, RequestStatus::kFinishedLengthCapped);
}

TEST(SchedulerEdgeCases, S33_ResetPrefixCacheWithRunningRequests) {
  Harness h(small_config());
  h.add_len("a", 9, 20);
  h.add_len("b", 9, 20);
  h.step();
  EXPECT_FALSE(h.s().reset_prefix_cache(false));
  EXPECT_TRUE(h.s().reset_prefix_cache(true));
  EXPECT_EQ(h.waiting_order(), (Names{"a", "b"}));  // FIFO
  EXPECT_EQ(h.s().num_running(), 0);
  EXPECT_EQ(h.s().kv_cache_manager().block_pool().hash_index().num_entries(), 0);
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(out.scheduled[0].kind, ScheduledKind::kResumed);
  EXPECT_EQ(out.scheduled[0].num_computed_before, 0);  // nothing left to hit
}

TEST(Scheduler, StatsAndCommonPrefix) {
  Harness h(small_config());
  h.add("a", testing::iota_tokens(9), 5);
  h.add("b", testing::iota_tokens(9), 5);
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(out.num_common_prefix_blocks, 2);
  const SchedulerStats st = h.s().make_stats();
  EXPECT_EQ(st.num_running_reqs, 2);
  EXPECT_EQ(st.num_waiting_reqs, 0);
  EXPECT_DOUBLE_EQ(st.kv_cache_usage, 1.0 - 59.0 / 63.0);
  EXPECT_EQ(st.prefix_cache_stats.requests, 2);
  EXPECT_EQ(st.prefix_cache_stats.queries, 18);
  EXPECT_EQ(st.prefix_cache_stats.hits, 8);
}

TEST(Scheduler, RejectsEmptyPromptsAndInvalidConfigs) {
  Harness h(small_config());
  EXPECT_THROW(h.add("a", {}, 4), std::invalid_argument);
  VllmConfig bad = small_config();
  bad.block_size = 0;
  EXPECT_THROW(Scheduler s(bad), std::invalid_argument);
}

}  // namespace
}  // namespace blis::vllm
