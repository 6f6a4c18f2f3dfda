// validate_workload (core/scenario, the one validation the decoder and make_workload run):
// each problem at the JSON pointer of its key.

#include <gtest/gtest.h>

#include <stdexcept>

#include "cluster/workload/workload.h"
#include "scenario/scenario_checks.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using namespace testing;
using LK = scenario::LengthDist::Kind;
using scenario::validate_workload;

std::vector<std::string> messages(const scenario::Workload& w) {
  std::vector<std::string> out;
  for (const auto& d : validate_workload(w)) out.push_back(format_diagnostic(d));
  return out;
}

scenario::Workload one(const scenario::Client& c) {
  scenario::Workload w;
  w.clients.push_back(c);
  return w;
}

TEST(ValidateWorkload, AGoodWorkloadHasNoProblems) {
  auto c = lengths_client("a", rate_load(2), dist(LK::kLognormal, 100, 50), uniform_len(1, 9));
  c.prefix = scenario::PrefixGroups{2, 8};
  EXPECT_TRUE(validate_workload(one(c)).empty());
}

TEST(ValidateWorkload, LoadProblems) {
  EXPECT_EQ(messages(one(lengths_client("a", rate_load(0), constant_len(1), constant_len(1)))),
            std::vector<std::string>{"/workload/clients/0/load/rate: must be a request rate > 0 "
                                     "(requests per second), got 0"});
  EXPECT_EQ(messages(one(lengths_client("a", stages_load({{1, 10}, {-1, 0}}, {}), constant_len(1),
                                        constant_len(1)))),
            (std::vector<std::string>{
                "/workload/clients/0/load/stages/1/rate: must be a request rate >= 0 (requests per "
                "second), got -1",
                "/workload/clients/0/load/stages/1/duration_s: must be a duration > 0 s, got 0"}));
  EXPECT_EQ(
      messages(one(lengths_client("a", concurrency_load(0, -1), constant_len(1), constant_len(1)))),
      (std::vector<std::string>{
          "/workload/clients/0/load/concurrency: must be an integer in [1, 10000000], got 0",
          "/workload/clients/0/load/think_time_s: must be a time >= 0 s, got -1"}));
  EXPECT_EQ(
      messages(one(lengths_client("a", rate_load(1, scenario::ArrivalProcess::Kind::kGamma, 0),
                                  constant_len(1), constant_len(1)))),
      std::vector<std::string>{
          "/workload/clients/0/load/arrival/cv: must be a coefficient of variation > 0, got 0"});
}

TEST(ValidateWorkload, LengthProblems) {
  auto d = dist(LK::kNormal, 100, -1);
  d.min = 50;
  d.max = 10;
  EXPECT_EQ(messages(one(lengths_client("a", rate_load(1), d, uniform_len(3.2, 3.8)))),
            (std::vector<std::string>{
                "/workload/clients/0/prompt_tokens/std: must be a number >= 0, got -1",
                "/workload/clients/0/prompt_tokens/min: 50 is above max (10), expected min <= max",
                "/workload/clients/0/output_tokens/max: 3.8: [min, max] holds no whole number "
                "of tokens"}));
  scenario::LengthDist no_bounds;
  no_bounds.kind = LK::kUniform;
  EXPECT_EQ(messages(one(lengths_client("a", rate_load(1), constant_len(0), no_bounds))),
            (std::vector<std::string>{
                "/workload/clients/0/prompt_tokens/value: must be a token count >= 1, got 0",
                "/workload/clients/0/output_tokens/min: missing, expected a number of tokens >= 1 "
                "(uniform needs min and max)",
                "/workload/clients/0/output_tokens/max: missing, expected a number of tokens >= 1 "
                "(uniform needs min and max)"}));
}

TEST(ValidateWorkload, ShapeProblems) {
  scenario::Client none;
  none.name = "x";
  none.load = rate_load(1);
  EXPECT_EQ(messages(one(none)),
            std::vector<std::string>{"/workload/clients/0: needs a request shape: prompt_tokens "
                                     "and output_tokens, shared_prefix, or trace"});
  auto half = none;
  half.prompt_tokens = constant_len(5);
  EXPECT_EQ(messages(one(half)),
            std::vector<std::string>{
                "/workload/clients/0/output_tokens: missing, expected a token-count distribution "
                "(with prompt_tokens)"});
  auto sp = none;
  sp.shared_prefix = scenario::SharedPrefix{0, 2, 0, 0, 10, false};
  sp.prefix = scenario::PrefixGroups{1, 1};
  EXPECT_EQ(
      messages(one(sp)),
      (std::vector<std::string>{
          "/workload/clients/0/prefix: prefix goes with prompt_tokens/output_tokens (shared_prefix "
          "and trace bring their own)",
          "/workload/clients/0/shared_prefix/system_prompts: must be an integer in [1, "
          "10000000], got 0",
          "/workload/clients/0/shared_prefix/question_tokens: a prompt needs at least one token"}));
}

TEST(ValidateWorkload, WorkloadLevelProblems) {
  scenario::Workload empty;
  EXPECT_EQ(messages(empty),
            std::vector<std::string>{"/workload: needs clients (a non-empty array) or trace_csv"});
  auto c = lengths_client("same", rate_load(1), constant_len(1), constant_len(1));
  scenario::Workload twins;
  twins.clients = {c, c};
  EXPECT_EQ(messages(twins),
            std::vector<std::string>{
                "/workload/clients/1/name: \"same\" is used by another client, expected unique "
                "names"});
  scenario::Workload both = one(c);
  both.trace_csv = scenario::Trace{"", "arrival_s,prompt_tokens,output_tokens\n0,1,1\n"};
  EXPECT_EQ(messages(both),
            std::vector<std::string>{"/workload: gives both clients and trace_csv; expected one "
                                     "(trace_csv replays a whole trace instead of clients)"});
}

TEST(ValidateWorkload, MakeWorkloadThrowsWithEveryError) {
  auto s =
      scenario_with({lengths_client("a", rate_load(-2), constant_len(0), constant_len(1))}, 10.0);
  try {
    make_workload(s);
    FAIL() << "expected an exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()),
              "invalid workload:\n"
              "  /workload/clients/0/prompt_tokens/value: must be a token count >= 1, got 0\n"
              "  /workload/clients/0/load/rate: must be a request rate > 0 (requests per second), "
              "got -2");
  }
  auto bad_horizon =
      scenario_with({lengths_client("a", rate_load(1), constant_len(1), constant_len(1))}, -1.0);
  EXPECT_THROW(make_workload(bad_horizon), std::invalid_argument);
}

}  // namespace
}  // namespace blis::cluster
