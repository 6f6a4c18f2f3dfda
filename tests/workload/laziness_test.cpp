// Requests are generated as they are asked for: a practically endless schedule costs nothing
// up front, and a multi-turn client whose sessions all wait does not look ahead. (An eager
// generator would exhaust memory or never return in these tests.)

#include <gtest/gtest.h>

#include "cluster/workload/workload.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using namespace testing;
using AK = scenario::ArrivalProcess::Kind;

TEST(Laziness, AnEndlessScheduleIsGeneratedOnDemand) {
  // 10^12 requests scheduled (10^6 per second for 10^6 seconds).
  auto w = make_workload(scenario_with(
      {lengths_client("flood", rate_load(1e6), constant_len(16), constant_len(1))}, 1e6));
  GeneratedRequest r;
  for (int i = 0; i < 1000; ++i) w->pop(r);
  EXPECT_EQ(w->generated(), 1000u);
  EXPECT_FALSE(w->exhausted());
  EXPECT_LT(r.arrival, kMicrosPerSecond);
}

TEST(Laziness, WaitingSessionsStopTheLookAhead) {
  // One multi-turn user and 10^12 scheduled rounds: while its first round is unanswered no
  // other round can go, and the client must say so without walking the schedule.
  scenario::SharedPrefix sp;
  sp.system_prompts = 1;
  sp.users_per_prompt = 1;
  sp.system_prompt_tokens = 4;
  sp.question_tokens = 4;
  sp.output_tokens = 2;
  sp.multi_turn = true;
  auto w = make_workload(
      scenario_with({shared_prefix_client("chat", rate_load(1e6, AK::kConstant), sp)}, 1e6));
  GeneratedRequest first;
  w->pop(first);
  EXPECT_EQ(first.arrival, 1);
  EXPECT_EQ(w->next_arrival(), kSimTimeNever);
  EXPECT_FALSE(w->exhausted());
  w->on_finished(first, 2, 5 * kMicrosPerSecond);
  GeneratedRequest second;
  ASSERT_EQ(w->next_arrival(), 5 * kMicrosPerSecond);  // round 1 was due at 2 us
  w->pop(second);
  EXPECT_EQ(second.turn, 1);
  EXPECT_EQ(second.prompt_token_ids.size(), 4u + 4 + 2 + 4);
  EXPECT_EQ(w->next_arrival(), kSimTimeNever);
}

TEST(Laziness, FeedbackForAnotherClientOrAnOpenLoopIsHarmless) {
  auto w = make_workload(scenario_with(
      {lengths_client("a", rate_load(1, AK::kConstant), constant_len(4), constant_len(1))}, 3.0));
  GeneratedRequest r;
  w->pop(r);
  w->on_finished(r, 1, 500000);
  GeneratedRequest stranger = r;
  stranger.client = 9;
  w->on_finished(stranger, 1, 600000);
  EXPECT_EQ(w->next_arrival(), 2 * kMicrosPerSecond);
}

}  // namespace
}  // namespace blis::cluster
