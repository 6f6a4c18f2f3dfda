// Length-distribution clients with prefix groups: G shared system prompts of T tokens, each
// request drawing one uniformly and prepending it to its own unique tokens.

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "cluster/workload/workload.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using namespace testing;
using Ids = std::vector<std::int32_t>;

TEST(PrefixGroups, RequestsOfAGroupShareExactIdsAndNothingElse) {
  auto client = lengths_client(
      "c", rate_load(100), dist(scenario::LengthDist::Kind::kLognormal, 64, 16), constant_len(8));
  client.prefix = scenario::PrefixGroups{4, 32};
  auto w = make_workload(scenario_with({client}, std::nullopt, 4000));
  const auto rs = pop_all(*w);
  ASSERT_EQ(rs.size(), 4000u);
  std::map<std::int32_t, Ids> prefix;
  std::map<std::int32_t, int> count;
  std::set<Ids> first_unique_block;
  for (const auto& r : rs) {
    ASSERT_GE(r.prefix_group, 0);
    ASSERT_LT(r.prefix_group, 4);
    ASSERT_GT(r.prompt_token_ids.size(), 32u);
    const Ids p(r.prompt_token_ids.begin(), r.prompt_token_ids.begin() + 32);
    auto [it, created] = prefix.try_emplace(r.prefix_group, p);
    EXPECT_EQ(it->second, p);
    ++count[r.prefix_group];
    // The unique part starts right after the prefix and never repeats another request's.
    const std::size_t n = std::min<std::size_t>(16, r.prompt_token_ids.size() - 32);
    first_unique_block.insert(
        Ids(r.prompt_token_ids.begin() + 32,
            r.prompt_token_ids.begin() + 32 + static_cast<std::ptrdiff_t>(n)));
  }
  EXPECT_EQ(first_unique_block.size(), rs.size());
  std::set<Ids> distinct;
  for (const auto& [g, p] : prefix) distinct.insert(p);
  EXPECT_EQ(distinct.size(), 4u);
  for (const auto& [g, n] : count) EXPECT_NEAR(n, 1000, 120) << "group " << g;  // uniform
}

TEST(PrefixGroups, WithoutPrefixTheWholePromptIsUnique) {
  auto w = make_workload(scenario_with(
      {lengths_client("c", rate_load(10), constant_len(20), constant_len(3))}, std::nullopt, 500));
  const auto rs = pop_all(*w);
  std::set<Ids> firsts;
  for (const auto& r : rs) {
    EXPECT_EQ(r.prefix_group, -1);
    EXPECT_EQ(r.prompt_token_ids.size(), 20u);
    firsts.insert(Ids(r.prompt_token_ids.begin(), r.prompt_token_ids.begin() + 4));
  }
  EXPECT_EQ(firsts.size(), rs.size());
}

TEST(PrefixGroups, RequestFieldsComeFromTheClient) {
  auto c = lengths_client("c", rate_load(10), constant_len(20), constant_len(3));
  c.priority = 3;
  c.lora = 2;
  c.slo_class = "batch";
  c.ignore_eos = false;
  auto w = make_workload(scenario_with({c}, std::nullopt, 3));
  for (const auto& r : pop_all(*w)) {
    EXPECT_EQ(r.priority, 3);
    EXPECT_EQ(r.lora, 2);
    EXPECT_EQ(r.slo_class, "batch");
    EXPECT_FALSE(r.ignore_eos);
    EXPECT_EQ(r.output_tokens, 3);  // where the EOS falls
    EXPECT_EQ(r.max_tokens, 3);
  }
}

}  // namespace
}  // namespace blis::cluster
