// Trace CSV replay and its error reporting.

#include "scenario/trace_csv.h"

#include <gtest/gtest.h>

#include "cluster/workload/workload.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using namespace testing;
using Ids = std::vector<std::int32_t>;
using scenario::TraceCsvError;
using scenario::TraceCsvReader;
using scenario::TraceRow;
using scenario::validate_trace_csv;

scenario::Scenario trace_scenario(const std::string& csv, std::optional<double> duration = {},
                                  std::optional<std::int64_t> max_requests = {}) {
  scenario::Scenario s;
  s.horizon.duration_s = duration;
  s.horizon.max_requests = max_requests;
  s.workload.trace_csv = scenario::Trace{"", csv};
  return s;
}

Ids prefix_of(const GeneratedRequest& r, std::size_t n) {
  return Ids(r.prompt_token_ids.begin(),
             r.prompt_token_ids.begin() + static_cast<std::ptrdiff_t>(n));
}

TEST(Trace, ReplaysRowsExactly) {
  auto w =
      make_workload(trace_scenario("arrival_s,prompt_tokens,output_tokens\n"
                                   "0,100,10\n"
                                   "0.5,200,20\r\n"
                                   "\n"
                                   "# a comment\n"
                                   "0.5,300,30\n"
                                   "2.000001,7,1\n"));
  const auto rs = pop_all(*w);
  ASSERT_EQ(rs.size(), 4u);
  const std::vector<SimTime> at = {0, 500000, 500000, 2000001};
  const std::vector<std::int32_t> prompt = {100, 200, 300, 7}, output = {10, 20, 30, 1};
  for (std::size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(rs[i].arrival, at[i]);
    EXPECT_EQ(rs[i].prompt_token_ids.size(), static_cast<std::size_t>(prompt[i]));
    EXPECT_EQ(rs[i].output_tokens, output[i]);
    EXPECT_EQ(rs[i].max_tokens, output[i]);
    EXPECT_EQ(rs[i].client, 0);
    EXPECT_EQ(rs[i].session, -1);
    EXPECT_EQ(rs[i].prefix_group, -1);
    EXPECT_EQ(rs[i].seq, i);
  }
  EXPECT_NE(prefix_of(rs[0], 7), prefix_of(rs[3], 7));  // unrelated rows share nothing
  EXPECT_TRUE(w->exhausted());
}

TEST(Trace, PrefixGroupsShareTheirLeadingTokens) {
  auto w = make_workload(trace_scenario(
      "prompt_tokens,arrival_s,output_tokens,prefix_group,prefix_tokens\n"  // any column order
      "50,0,5,1,20\n"
      "60,1,5,1,20\n"
      "40,2,5,1,\n"  // no prefix_tokens: the whole prompt comes from the group
      "30,3,5,2,20\n"
      "30,4,5,,\n"
      "50,5,5,1,\n"));
  const auto rs = pop_all(*w);
  ASSERT_EQ(rs.size(), 6u);
  EXPECT_EQ(prefix_of(rs[0], 20), prefix_of(rs[1], 20));
  EXPECT_NE(rs[0].prompt_token_ids[20], rs[1].prompt_token_ids[20]);
  EXPECT_EQ(prefix_of(rs[5], 40), rs[2].prompt_token_ids);  // one sequence per group
  EXPECT_EQ(prefix_of(rs[2], 20), prefix_of(rs[0], 20));
  EXPECT_NE(prefix_of(rs[3], 20), prefix_of(rs[0], 20));  // another group
  EXPECT_EQ(rs[3].prefix_group, 2);
  EXPECT_EQ(rs[4].prefix_group, -1);
}

TEST(Trace, SessionTurnsStartWithThePreviousPromptAndAnswer) {
  auto w = make_workload(
      trace_scenario("arrival_s,prompt_tokens,output_tokens,session_id\n"
                     "0,10,4,7\n"
                     "0.1,12,3,8\n"
                     "1,20,5,7\n"    // 10 + 4 of history, then 6 new tokens
                     "2,9,5,7\n"));  // shorter than its history: the first 9 tokens of it
  const auto rs = pop_all(*w);
  ASSERT_EQ(rs.size(), 4u);
  Ids hist = rs[0].prompt_token_ids;
  for (int k = 0; k < 4; ++k) hist.push_back(rs[0].output_token_base + k);
  EXPECT_EQ(prefix_of(rs[2], 14), hist);
  EXPECT_EQ(rs[2].turn, 1);
  EXPECT_EQ(rs[2].session, 0);  // session "7" was the first one seen
  EXPECT_EQ(rs[1].turn, 0);
  EXPECT_EQ(prefix_of(rs[3], 9), prefix_of(rs[2], 9));
  EXPECT_EQ(rs[3].turn, 2);
}

TEST(Trace, HeaderIsOptionalAndSessionIdsAreAnyText) {
  // Without a header (or with a header of other names) the columns are arrival_s,
  // prompt_tokens, output_tokens, prefix_group, session_id: the scenario decoder's format.
  for (const std::string head : {"", "time,in,out,group,conversation\n"}) {
    auto w = make_workload(trace_scenario(head + "0,10,4,,alice\n"
                                                 "1,8,2,3\n"
                                                 "2,20,4,,alice\n"
                                                 "3,5,1,,bob\n"));
    const auto rs = pop_all(*w);
    ASSERT_EQ(rs.size(), 4u);
    EXPECT_EQ(rs[0].session, 0);  // numbered in order of first appearance
    EXPECT_EQ(rs[1].session, -1);
    EXPECT_EQ(rs[1].prefix_group, 3);
    EXPECT_EQ(rs[2].session, 0);
    EXPECT_EQ(rs[2].turn, 1);
    EXPECT_EQ(prefix_of(rs[2], 10), rs[0].prompt_token_ids);
    EXPECT_EQ(rs[3].session, 1);
    EXPECT_EQ(rs[3].arrival, 3 * kMicrosPerSecond);
  }
}

TEST(Trace, HorizonLimitsApply) {
  const std::string csv = "arrival_s,prompt_tokens,output_tokens\n0,1,1\n1,1,1\n2,1,1\n3,1,1\n";
  auto by_time = make_workload(trace_scenario(csv, 2.0));
  EXPECT_EQ(pop_all(*by_time).size(), 3u);
  EXPECT_TRUE(by_time->exhausted());
  auto by_count = make_workload(trace_scenario(csv, {}, 2));
  EXPECT_EQ(pop_all(*by_count).size(), 2u);
  EXPECT_TRUE(by_count->exhausted());
}

TEST(Trace, PerClientTraceMergesWithOtherClients) {
  scenario::Client traced;
  traced.name = "replay";
  traced.trace = scenario::Trace{"t.csv", "arrival_s,prompt_tokens,output_tokens\n0.75,3,2\n"};
  traced.priority = 2;
  auto w = make_workload(scenario_with(
      {lengths_client("synthetic", rate_load(2, scenario::ArrivalProcess::Kind::kConstant),
                      constant_len(4), constant_len(2)),
       traced},
      1.0));
  const auto rs = pop_all(*w);
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_EQ(rs[1].client, 1);
  EXPECT_EQ(rs[1].arrival, 750000);
  EXPECT_EQ(rs[1].priority, 2);
}

// Error messages name the line and column (and the column's name).
std::string error_of(const std::string& csv) {
  try {
    TraceCsvReader r(csv);
    TraceRow row;
    while (r.next(row)) {
    }
  } catch (const TraceCsvError& e) {
    return e.what();
  }
  return "";
}

TEST(Trace, BadRowsNameTheLineAndColumn) {
  EXPECT_EQ(error_of("arrival_s,prompt_tokens,output_tokens\n0,10,5\n1,abc,5\n"),
            "trace CSV line 3, column 2 (prompt_tokens): expected an integer in [1, 16777216], "
            "got \"abc\"");
  EXPECT_EQ(error_of("arrival_s,prompt_tokens,output_tokens\n1,10,5\n0.5,10,5\n"),
            "trace CSV line 3, column 1 (arrival_s): arrival 0.5 is earlier than the previous "
            "row's 1 (rows must be in arrival order)");
  EXPECT_EQ(
      error_of("arrival_s,prompt_tokens,output_tokens\n-1,10,5\n"),
      "trace CSV line 2, column 1 (arrival_s): expected a number of seconds >= 0, got \"-1\"");
  EXPECT_EQ(error_of("arrival_s,prompt_tokens,output_tokens\n0,10\n"),
            "trace CSV line 2, column 3 (output_tokens): a value is required");
  EXPECT_EQ(error_of("arrival_s,prompt_tokens,output_tokens\n0,10,5,9\n"),
            "trace CSV line 2, column 4: more cells than the 3 columns (arrival_s, prompt_tokens, "
            "output_tokens)");
  EXPECT_EQ(error_of("arrival_s,prompt_tokens\n"),
            "trace CSV line 1: the header has no output_tokens column (required: arrival_s, "
            "prompt_tokens, output_tokens)");
  EXPECT_EQ(error_of("arrival_s,prompt_tokens,output_tokens,colour\n"),
            "trace CSV line 1, column 4: unknown column \"colour\" (expected arrival_s, "
            "prompt_tokens, output_tokens, prefix_group, prefix_tokens, session_id)");
  EXPECT_EQ(error_of("arrival_s,prompt_tokens,output_tokens,prefix_tokens\n0,10,5,3\n"),
            "trace CSV line 2, column 4 (prefix_tokens): prefix_tokens needs a prefix_group");
  EXPECT_EQ(
      error_of("arrival_s,prompt_tokens,output_tokens,prefix_group,prefix_tokens\n0,10,5,0,11\n"),
      "trace CSV line 2, column 5 (prefix_tokens): prefix_tokens 11 exceeds prompt_tokens 10");
  EXPECT_EQ(error_of(""),
            "trace CSV line 1: the trace is empty (expected rows of "
            "arrival_s,prompt_tokens,output_tokens)");
  EXPECT_EQ(error_of("0,10,5,1,s,extra\n"),
            "trace CSV line 1, column 6: more cells than the 5 columns (arrival_s, prompt_tokens, "
            "output_tokens, prefix_group, session_id)");
  EXPECT_EQ(error_of("arrival_s,prompt_tokens,output_tokens\n0,1.5,5\n"),
            "trace CSV line 2, column 2 (prompt_tokens): expected an integer in [1, 16777216], "
            "got \"1.5\"");
}

TEST(Trace, ValidateReportsEveryBadRowAtTheTracePointer) {
  const auto ds =
      validate_trace_csv("arrival_s,prompt_tokens,output_tokens\n0,10,5\n1,x,5\n2,10,0\n3,10,5\n",
                         "/workload/clients/2/trace");
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].pointer, "/workload/clients/2/trace");
  EXPECT_EQ(ds[0].message,
            "line 3, column 2 (prompt_tokens): expected an integer in [1, 16777216], got \"x\"");
  EXPECT_EQ(ds[1].message,
            "line 4, column 3 (output_tokens): expected an integer in [1, 16777216], got \"0\"");
  EXPECT_TRUE(validate_trace_csv("arrival_s,prompt_tokens,output_tokens\n0,1,1\n", "/p").empty());
  const auto empty = validate_trace_csv("arrival_s,prompt_tokens,output_tokens\n", "/p");
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].message, "the trace has a header but no data rows");
}

TEST(Trace, MakeWorkloadRejectsABadTraceUpFront) {
  try {
    make_workload(trace_scenario("arrival_s,prompt_tokens,output_tokens\n0,10,5\n1,10,-2\n"));
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(
        std::string(e.what()).find("/workload/trace_csv/csv: line 3, column 3 (output_tokens)"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace blis::cluster
