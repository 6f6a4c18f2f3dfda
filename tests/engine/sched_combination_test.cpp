// Scheduler: the combinations of speculative decoding, preemption, priority, LoRA, stop
// conditions, watermark and the token budget that the shared golden cases reach only in
// part. Each expected value is worked out from the upstream rule named in the test.
#include <gtest/gtest.h>

#include "engine/sched_harness.h"

namespace blis::vllm {
namespace {

using testing::Harness;
using testing::Names;
using testing::Sched;
using testing::small_config;

// block_size 4, `usable` blocks beside the null block.
VllmConfig spec_config(SpecMethod method, std::int32_t k, std::int32_t usable) {
  VllmConfig c = small_config();
  c.num_speculative_tokens = k;
  c.speculative_method = method;
  c.num_gpu_blocks = usable + 1;
  return c;
}

TEST(SchedulerCombinations, PriorityVictimScheduledWithDraftsGivesBackItsTokensAndDrafts) {
  // vllm scheduler.py Scheduler.schedule, running phase: the victim
  // max(running, key=(priority, arrival_time)) already in scheduled_running_reqs returns its
  // num_scheduled_tokens to the budget and loses its scheduled_spec_decode_tokens entry;
  // _preempt_request clears its spec_token_ids and num_computed_tokens.
  VllmConfig c = spec_config(SpecMethod::kNgram, 2, 4);  // ngram: no lookahead slots
  c.policy = SchedulingPolicy::kPriority;
  Harness h(c);
  Harness::Options lo;
  lo.priority = 5;
  lo.arrival = 1;
  h.add_len("lo", 4, 20, lo);
  h.step();  // lo: 4 tokens, 1 block; then 1 output and 2 drafts
  h.add_len("hi", 4, 20);
  const SchedulerOutput& second = h.step();
  // lo: 5 + 2 drafts - 4 computed = 3 tokens, 2 blocks; hi: 4 tokens, 1 block. 1 block free.
  ASSERT_EQ(h.scheduled(second), (Sched{{"lo", 3}, {"hi", 4}}));
  // lo: 8 tokens, 7 computed, 2 drafts -> 3 tokens, 3 blocks (+1, the free one).
  // hi: 5 tokens, 4 computed, 2 drafts -> 3 tokens, 2 blocks (+1): fails; lo is the victim.
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.names(out.preempted), Names{"lo"});
  ASSERT_EQ(h.scheduled(out), (Sched{{"hi", 3}}));
  EXPECT_EQ(out.scheduled[0].num_spec_tokens, 2);
  EXPECT_EQ(out.total_num_scheduled_tokens, 3);
  const Request* v = h.get("lo");
  EXPECT_EQ(v->status, RequestStatus::kPreempted);
  EXPECT_EQ(v->num_computed_tokens, 0);
  EXPECT_EQ(v->num_spec_tokens(), 0);
  // Any preemption stops admissions: lo waits although its blocks are free again.
  EXPECT_EQ(h.waiting_order(), Names{"lo"});
}

TEST(SchedulerCombinations, LookaheadSlotsThatDoNotFitPreemptTheTail) {
  // vllm scheduler.py Scheduler.__init__: num_lookahead_tokens = k for eagle (0 for ngram);
  // kv_cache_manager.py allocate_slots needs blocks for computed + new + lookahead tokens;
  // FCFS preempts running.pop(), here the request being scheduled.
  auto run = [](SpecMethod method) {
    Harness h(spec_config(method, 2, 5));
    h.add_len("a", 4, 20);
    h.add_len("b", 4, 20);
    h.step();
    SchedulerOutput out = h.step();
    Sched sched = h.scheduled(out);
    return std::make_pair(std::move(out), std::move(sched));
  };
  // eagle: step 1 gives each cdiv(4 + 2, 4) = 2 blocks (1 free). Step 2: a needs
  // cdiv(4 + 3 + 2, 4) = 3 (the free one), b then needs one more: b preempts itself.
  const auto [eagle, eagle_sched] = run(SpecMethod::kEagle);
  EXPECT_EQ(eagle_sched, (Sched{{"a", 3}}));
  EXPECT_EQ(eagle.scheduled[0].num_spec_tokens, 2);
  ASSERT_EQ(eagle.preempted.size(), 1U);
  // ngram: step 1 gives each 1 block; step 2 cdiv(4 + 3, 4) = 2 each, 3 free: no preemption.
  const auto [ngram, ngram_sched] = run(SpecMethod::kNgram);
  EXPECT_EQ(ngram_sched, (Sched{{"a", 3}, {"b", 3}}));
  EXPECT_TRUE(ngram.preempted.empty());
}

TEST(SchedulerCombinations, AsyncRejectedDraftsRollBackComputedTokensAndPlaceholders) {
  // vllm async_scheduler.py _update_after_schedule: placeholders += 1 + scheduled drafts;
  // scheduler.py update_from_output: rejected = drafts - (sampled - 1) comes off
  // num_computed_tokens and num_output_placeholders; _update_request_with_output then takes
  // the delivered tokens off the placeholders.
  VllmConfig c = spec_config(SpecMethod::kEagle, 2, 32);
  c.async_scheduling = true;
  Harness h(c);
  h.accept = [](const std::string&, std::int32_t) { return 0; };
  h.add_len("a", 4, 50);
  h.schedule();  // batch 0: the prompt
  EXPECT_EQ(h.get("a")->num_output_placeholders, 1);
  EXPECT_EQ(h.get("a")->num_spec_tokens(), 2);  // -1 placeholders
  InFlightBatch& b1 = h.schedule();
  // num_tokens_with_spec 6 + 1 placeholder - 4 computed = 3; drafts 3 + 4 - 4 - 1 = 2.
  ASSERT_EQ(h.scheduled(b1.output), (Sched{{"a", 3}}));
  EXPECT_EQ(b1.output.scheduled[0].num_spec_tokens, 2);
  EXPECT_EQ(h.get("a")->num_computed_tokens, 7);
  EXPECT_EQ(h.get("a")->num_output_placeholders, 4);
  h.apply();  // batch 0: 1 token
  EXPECT_EQ(h.get("a")->num_output_placeholders, 3);
  h.apply();  // batch 1: both drafts rejected, 1 token
  EXPECT_EQ(h.get("a")->num_computed_tokens, 5);
  EXPECT_EQ(h.get("a")->num_output_placeholders, 0);
  EXPECT_EQ(h.get("a")->num_tokens(), 6);
}

TEST(SchedulerCombinations, MinTokensKeepsAnEosInsideAcceptedDraftsThenAStopTokenTrims) {
  // vllm scheduler.py _update_request_with_output runs check_stop after every appended token;
  // sched/utils.py check_stop returns False while num_output_tokens < min_tokens, so the EOS
  // at output 2 is kept; the stop token at output 4 ends the run and output 5 is trimmed.
  Harness h(spec_config(SpecMethod::kNgram, 3, 32));
  Harness::Options o;
  o.eos_token_id = 1001;
  o.min_tokens = 3;
  o.stop_token_ids = {1003};
  h.add_len("a", 5, 20, o);
  h.step();  // output 1: 1000
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(out.scheduled[0].num_spec_tokens, 3);
  const RequestUpdate& u = h.result().updates[0];
  EXPECT_EQ(u.num_sampled, 4);    // 1001 1002 1003 1004
  EXPECT_EQ(u.num_delivered, 3);  // 1001 (EOS before min_tokens) 1002 1003
  EXPECT_TRUE(u.stopped);
  EXPECT_EQ(u.status, RequestStatus::kFinishedStopped);
  EXPECT_EQ(u.stop_reason, 1003);
  EXPECT_EQ(u.num_output_tokens, 4);
}

TEST(SchedulerCombinations, PriorityLoraCapSkipsTheBetterRequestAndAdmitsTheSameAdapter) {
  // vllm scheduler.py Scheduler.schedule, waiting phase: scheduled_loras starts from the
  // scheduled running requests; a head whose adapter would exceed max_loras moves to
  // step_skipped_waiting and the loop goes on; the skipped request then competes through
  // _select_waiting_queue_for_scheduling (the better of the two heads under PRIORITY).
  VllmConfig c = small_config();
  c.policy = SchedulingPolicy::kPriority;
  c.max_loras = 1;
  Harness h(c);
  Harness::Options x;
  x.lora = 1;
  x.priority = 2;
  h.add_len("x", 4, 20, x);
  h.step();
  Harness::Options y;
  y.lora = 2;
  y.priority = 0;
  Harness::Options z;
  z.lora = 1;
  z.priority = 3;
  h.add_len("y", 4, 20, y);
  h.add_len("z", 4, 20, z);
  const SchedulerOutput& out = h.step();
  EXPECT_EQ(h.scheduled(out), (Sched{{"x", 1}, {"z", 4}}));
  EXPECT_EQ(h.waiting_order(), Names{"y"});
  EXPECT_EQ(h.s().skipped_waiting_queue().size(), 1U);
}

TEST(SchedulerCombinations, WatermarkGatesTheAdmissionButNotARunningRequestsLookahead) {
  // vllm kv_cache_manager.py allocate_slots: watermark_blocks = int(watermark x num_blocks)
  // is added only for WAITING/PREEMPTED requests while requests are running
  // (has_scheduled_reqs); running requests allocate their lookahead slots without it.
  auto second_step = [](double watermark) {
    VllmConfig c = spec_config(SpecMethod::kEagle, 2, 5);
    c.watermark = watermark;  // int(0.2 x 6) = 1 block
    Harness h(c);
    h.add_len("a", 4, 20);
    h.step();  // a alone (nothing running): 2 blocks; 3 free
    h.add_len("b", 4, 20);
    h.step();
    return h.scheduled(h.last());
  };
  // a: cdiv(4 + 3 + 2, 4) = 3 blocks (+1, 2 free). b: its full prompt fits (1 + 1 <= 2) but
  // its cdiv(4 + 2, 4) = 2 blocks + the watermark do not.
  EXPECT_EQ(second_step(0.2), (Sched{{"a", 3}}));
  EXPECT_EQ(second_step(0.0), (Sched{{"a", 3}, {"b", 4}}));
}

TEST(SchedulerCombinations, TokenBudgetCutsTheScheduledDrafts) {
  // vllm scheduler.py Scheduler.schedule: num_new_tokens = min(num_tokens_with_spec -
  // num_computed_tokens, token_budget); only num_new_tokens + num_computed_tokens -
  // num_tokens drafts are scheduled, and spec_token_ids is emptied either way.
  VllmConfig c = spec_config(SpecMethod::kNgram, 3, 32);
  c.max_num_scheduled_tokens = 6;
  Harness h(c);
  h.add_len("b", 8, 20);
  h.add_len("a", 2, 20);
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"b", 6}}));
  // b is still prefilling, so a's 2 tokens are not padded to 1 + k.
  EXPECT_EQ(h.scheduled(h.step()), (Sched{{"b", 2}, {"a", 2}}));
  const SchedulerOutput& out = h.step();
  // b: 9 + 3 drafts - 8 = 4 tokens; a: min(3 + 3 - 2, 2) = 2 tokens, 2 + 2 - 3 = 1 draft.
  ASSERT_EQ(h.scheduled(out), (Sched{{"b", 4}, {"a", 2}}));
  EXPECT_EQ(out.scheduled[0].num_spec_tokens, 3);
  EXPECT_EQ(out.scheduled[1].num_spec_tokens, 1);
  EXPECT_EQ(h.result().updates[1].num_sampled, 2);
}

}  // namespace
}  // namespace blis::vllm
