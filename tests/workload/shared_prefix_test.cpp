// inference-perf's shared_prefix data type (kubernetes-sigs/inference-perf
// datagen/synthetic/shared_prefix_datagen.py, apis/user_session.py,
// loadgen/load_generator.py; docs/workload.md has the details).
//
// Worked example (the multi-turn tests below use it): 1 system prompt (S, 3 tokens), 2 users
// (questions Qa, Qb of 2 tokens; which user comes first is the shuffle's choice), answers of
// 4 tokens, one request per second, each answered 0.5 s after it arrives:
//   k=0  t=1 s  user A round 0: S Qa                         5 tokens
//   k=1  t=2 s  user B round 0: S Qb                         5 tokens
//   k=2  t=3 s  user A round 1: S Qa A0 Qa                  11 tokens (A0 = answer of k=0)
//   k=3  t=4 s  user B round 1: S Qb B0 Qb                  11 tokens
//   k=4  t=5 s  user A round 2: S Qa A0 Qa A1 Qa            17 tokens
// The same question is asked again every round (load_lazy_data reuses question_texts[i]),
// and the context is never truncated.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "cluster/workload/workload.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using namespace testing;
using AK = scenario::ArrivalProcess::Kind;
using Ids = std::vector<std::int32_t>;

scenario::SharedPrefix sp_config(std::int32_t groups, std::int32_t users, std::int32_t sys,
                                 std::int32_t question, std::int32_t output, bool multi_turn) {
  scenario::SharedPrefix sp;
  sp.system_prompts = groups;
  sp.users_per_prompt = users;
  sp.system_prompt_tokens = sys;
  sp.question_tokens = question;
  sp.output_tokens = output;
  sp.multi_turn = multi_turn;
  return sp;
}

Ids slice(const Ids& v, std::size_t from, std::size_t n) {
  return Ids(v.begin() + static_cast<std::ptrdiff_t>(from),
             v.begin() + static_cast<std::ptrdiff_t>(from + n));
}
Ids answer(const GeneratedRequest& r, std::int32_t n) {
  Ids out;
  for (std::int32_t k = 0; k < n; ++k) out.push_back(r.output_token_base + k);
  return out;
}
Ids concat(std::initializer_list<Ids> parts) {
  Ids out;
  for (const auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(SharedPrefix, SingleTurnComposesSystemPromptAndQuestion) {
  // 3 groups x 2 users, system prompt 5 tokens, question 4, output 7: N = 6 prompts.
  auto w = make_workload(scenario_with(
      {shared_prefix_client("sp", rate_load(1, AK::kConstant), sp_config(3, 2, 5, 4, 7, false))},
      18.0));
  const auto rs = pop_all(*w);
  ASSERT_EQ(rs.size(), 18u);
  std::map<std::int32_t, Ids> system_of_group;
  std::map<Ids, std::int32_t> group_of_question;
  for (const auto& r : rs) {
    ASSERT_EQ(r.prompt_token_ids.size(), 9u);
    EXPECT_EQ(r.output_tokens, 7);
    EXPECT_EQ(r.max_tokens, 7);
    EXPECT_EQ(r.session, -1);
    EXPECT_EQ(r.turn, 0);
    ASSERT_GE(r.prefix_group, 0);
    ASSERT_LT(r.prefix_group, 3);
    const Ids sys = slice(r.prompt_token_ids, 0, 5);
    const Ids question = slice(r.prompt_token_ids, 5, 4);
    // Requests of a group share exactly the same system prompt ids.
    auto [it, first] = system_of_group.try_emplace(r.prefix_group, sys);
    EXPECT_EQ(it->second, sys);
    auto [q, new_q] = group_of_question.try_emplace(question, r.prefix_group);
    EXPECT_EQ(q->second, r.prefix_group);  // a question belongs to one group
  }
  // Three different system prompts and six different questions.
  ASSERT_EQ(system_of_group.size(), 3u);
  EXPECT_NE(system_of_group[0], system_of_group[1]);
  EXPECT_NE(system_of_group[1], system_of_group[2]);
  EXPECT_EQ(group_of_question.size(), 6u);
  // Request k uses shuffled prompt k mod N: each block of N requests uses every prompt once,
  // in the same order every time.
  for (std::size_t k = 6; k < rs.size(); ++k)
    EXPECT_EQ(rs[k].prompt_token_ids, rs[k - 6].prompt_token_ids) << k;
  std::set<Ids> first_block;
  for (std::size_t k = 0; k < 6; ++k) first_block.insert(rs[k].prompt_token_ids);
  EXPECT_EQ(first_block.size(), 6u);
  // Every request has its own output ids.
  std::set<std::int32_t> bases;
  for (const auto& r : rs) bases.insert(r.output_token_base);
  EXPECT_GT(bases.size(), 15u);
}

TEST(SharedPrefix, OrderIsAShuffleOfTheGroupMajorPrompts) {
  // With many prompts the shuffle is visible: the first block is not in group order.
  auto w = make_workload(scenario_with(
      {shared_prefix_client("sp", rate_load(1, AK::kConstant), sp_config(10, 10, 4, 4, 1, false))},
      100.0));
  const auto rs = pop_all(*w);
  ASSERT_EQ(rs.size(), 100u);
  std::map<std::int32_t, int> per_group;
  bool sorted = true;
  for (std::size_t k = 0; k < rs.size(); ++k) {
    ++per_group[rs[k].prefix_group];
    if (k > 0 && rs[k].prefix_group < rs[k - 1].prefix_group) sorted = false;
  }
  EXPECT_FALSE(sorted);
  for (const auto& [g, n] : per_group) EXPECT_EQ(n, 10) << "group " << g;
}

TEST(SharedPrefix, MultiTurnHistoryGrowsWithEveryAnsweredRound) {
  auto w = make_workload(scenario_with(
      {shared_prefix_client("chat", rate_load(1, AK::kConstant), sp_config(1, 2, 3, 2, 4, true))},
      6.0));
  const auto res = drive(*w, [](const GeneratedRequest&) { return kMicrosPerSecond / 2; });
  const auto& rs = res.requests;
  ASSERT_EQ(rs.size(), 6u);
  const std::vector<std::size_t> lengths = {5, 5, 11, 11, 17, 17};
  for (std::size_t k = 0; k < rs.size(); ++k) {
    EXPECT_EQ(rs[k].arrival, static_cast<SimTime>(k + 1) * kMicrosPerSecond) << k;
    EXPECT_EQ(rs[k].prompt_token_ids.size(), lengths[k]) << k;
    EXPECT_EQ(rs[k].session, static_cast<std::int64_t>(k % 2)) << k;
    EXPECT_EQ(rs[k].turn, static_cast<std::int32_t>(k / 2)) << k;
    EXPECT_EQ(rs[k].prefix_group, 0);
  }
  const Ids S = slice(rs[0].prompt_token_ids, 0, 3);
  const Ids Qa = slice(rs[0].prompt_token_ids, 3, 2);
  const Ids Qb = slice(rs[1].prompt_token_ids, 3, 2);
  EXPECT_EQ(slice(rs[1].prompt_token_ids, 0, 3), S);  // one system prompt for both users
  EXPECT_NE(Qa, Qb);
  EXPECT_EQ(rs[2].prompt_token_ids, concat({S, Qa, answer(rs[0], 4), Qa}));
  EXPECT_EQ(rs[3].prompt_token_ids, concat({S, Qb, answer(rs[1], 4), Qb}));
  EXPECT_EQ(rs[4].prompt_token_ids, concat({S, Qa, answer(rs[0], 4), Qa, answer(rs[2], 4), Qa}));
  EXPECT_EQ(rs[5].prompt_token_ids, concat({S, Qb, answer(rs[1], 4), Qb, answer(rs[3], 4), Qb}));
  EXPECT_TRUE(w->exhausted());
}

TEST(SharedPrefix, NextTurnWaitsForThePreviousAnswer) {
  // Two users, one request per second until 50 s, answers take 3.5 s: every round of a user
  // is due before its previous answer, so it goes out when that answer arrives
  // (LocalUserSession.get_context waits on the session's lock).
  auto w = make_workload(scenario_with(
      {shared_prefix_client("chat", rate_load(1, AK::kConstant), sp_config(1, 2, 3, 2, 4, true))},
      50.0));
  const SimTime latency = 3500000;
  const auto res = drive(*w, [&](const GeneratedRequest&) { return latency; });
  ASSERT_EQ(res.requests.size(), 50u);  // every round scheduled before the horizon is sent
  std::map<std::int64_t, SimTime> last_finish;
  std::map<std::int64_t, std::int32_t> next_turn;
  std::map<std::int64_t, std::size_t> last_len;
  for (const auto& r : res.requests) {
    // Round r of a user was scheduled at (2r + u + 1) s; it goes at max(schedule, answer).
    const SimTime scheduled = (2 * r.turn + r.session + 1) * kMicrosPerSecond;
    const SimTime want = r.turn == 0 ? scheduled : std::max(scheduled, last_finish[r.session]);
    EXPECT_EQ(r.arrival, want) << "session " << r.session << " turn " << r.turn;
    EXPECT_EQ(r.turn, next_turn[r.session]++);
    if (r.turn > 0) {
      EXPECT_EQ(r.prompt_token_ids.size(), last_len[r.session] + 4 + 2);
    }
    last_finish[r.session] = r.arrival + latency;
    last_len[r.session] = r.prompt_token_ids.size();
  }
  EXPECT_GT(res.requests.back().arrival, 50 * kMicrosPerSecond);
  EXPECT_EQ(res.max_in_flight, 2);
  EXPECT_TRUE(w->exhausted());
}

TEST(SharedPrefix, FailedTurnKeepsTheContext) {
  auto w = make_workload(scenario_with(
      {shared_prefix_client("chat", rate_load(1, AK::kConstant), sp_config(1, 1, 3, 2, 4, true))},
      3.0));
  // The first answer fails (0 tokens): process_failure restores the previous context.
  const auto res = drive(
      *w, [](const GeneratedRequest&) { return kMicrosPerSecond / 2; }, 100,
      [](const GeneratedRequest& r) { return r.turn == 0 ? 0 : r.output_tokens; });
  const auto& rs = res.requests;
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[1].prompt_token_ids, rs[0].prompt_token_ids);  // S Q again
  EXPECT_EQ(rs[1].turn, 1);
  EXPECT_EQ(rs[2].prompt_token_ids, concat({rs[1].prompt_token_ids, answer(rs[1], 4),
                                            slice(rs[0].prompt_token_ids, 3, 2)}));
}

TEST(SharedPrefix, EveryStageStartsAgainFromTheSystemPrompts) {
  // run_stage calls get_data() afresh (data_index restarts at 0) and the workers clear the
  // user sessions between stages.
  auto w = make_workload(
      scenario_with({shared_prefix_client("chat", stages_load({{1, 4}, {1, 4}}, AK::kConstant),
                                          sp_config(1, 2, 3, 2, 4, true))},
                    std::nullopt));
  const auto res = drive(*w, [](const GeneratedRequest&) { return kMicrosPerSecond / 2; });
  const auto& rs = res.requests;
  ASSERT_EQ(rs.size(), 8u);
  for (std::size_t k = 0; k < 4; ++k) {
    const auto& a = rs[k];
    const auto& b = rs[k + 4];
    EXPECT_EQ(b.turn, a.turn) << k;
    EXPECT_EQ(b.session, a.session + 2) << k;  // new sessions
    EXPECT_EQ(b.prompt_token_ids.size(), a.prompt_token_ids.size()) << k;
    // Same user order, same system prompt and question; only the answers differ.
    EXPECT_EQ(slice(b.prompt_token_ids, 0, 5), slice(a.prompt_token_ids, 0, 5)) << k;
  }
  EXPECT_EQ(rs[4].prompt_token_ids, rs[0].prompt_token_ids);
}

TEST(SharedPrefix, ClosedLoopMultiTurn) {
  auto w = make_workload(scenario_with(
      {shared_prefix_client("chat", concurrency_load(3, 0.0), sp_config(2, 2, 8, 4, 6, true))},
      60.0));
  const auto res = drive(*w, [](const GeneratedRequest& r) {
    return 1000000 + static_cast<SimTime>(r.prompt_token_ids.size()) * 1000;
  });
  EXPECT_EQ(res.max_in_flight, 3);
  std::map<std::int64_t, std::size_t> len;
  for (const auto& r : res.requests) {
    // Each round adds the previous answer and the question again.
    if (len.count(r.session)) {
      EXPECT_EQ(r.prompt_token_ids.size(), len[r.session] + 6 + 4);
    }
    len[r.session] = r.prompt_token_ids.size();
  }
  EXPECT_EQ(len.size(), 4u);
  EXPECT_TRUE(w->exhausted());
}

TEST(SharedPrefix, BusySessionsDoNotStallOtherClients) {
  // One user with a very slow answer: its client stops looking ahead, the other client's
  // arrivals go on.
  auto w = make_workload(scenario_with(
      {shared_prefix_client("chat", rate_load(10, AK::kConstant), sp_config(1, 1, 3, 2, 4, true)),
       lengths_client("bg", rate_load(1, AK::kConstant), constant_len(4), constant_len(2))},
      20.0));
  GeneratedRequest first;
  w->pop(first);
  EXPECT_EQ(first.client, 0);
  EXPECT_EQ(first.arrival, 100000);
  // The chat user waits for its answer; only the background client's requests are due.
  for (int s = 1; s <= 5; ++s) {
    GeneratedRequest r;
    EXPECT_EQ(w->next_arrival(), s * kMicrosPerSecond);
    w->pop(r);
    EXPECT_EQ(r.client, 1);
  }
  w->on_finished(first, 4, 5500000);
  EXPECT_EQ(w->next_arrival(), 5500000);  // the next round, due since 0.2 s, goes now
  GeneratedRequest second;
  w->pop(second);
  EXPECT_EQ(second.client, 0);
  EXPECT_EQ(second.turn, 1);
  EXPECT_EQ(second.prompt_token_ids.size(), 3u + 2 + 4 + 2);
}

}  // namespace
}  // namespace blis::cluster
