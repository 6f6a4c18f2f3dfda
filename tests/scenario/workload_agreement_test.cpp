// The decoder and the workload generator (core/cluster/workload) must agree: a trace CSV gets
// the same verdict and messages from both readers, and a workload the decoder accepts is one
// the generator accepts (validate_workload), so `blis validate` never passes a scenario that
// `blis run` then refuses.

#include <gtest/gtest.h>

#include "cluster/workload/trace_csv.h"
#include "cluster/workload/workload_validate.h"
#include "documents.h"
#include "scenario/scenario_decode.h"
#include "scenario/trace_csv.h"

namespace blis::scenario {
namespace {

using nlohmann::json;

std::vector<std::string> messages(const Diagnostics& ds) {
  std::vector<std::string> out;
  for (const auto& d : ds) out.push_back(d.message);
  return out;
}

TEST(WorkloadAgreement, TraceReadersGiveTheSameVerdicts) {
  const std::vector<std::string> csvs = {
      testing::read_data("trace.csv"),
      "arrival_s,prompt_tokens,output_tokens\n0,1,1\n",
      "output_tokens,prefix_tokens,prefix_group,arrival_s,prompt_tokens\r\n7,5,2,0.5,10\r\n",
      "",
      "\n\n# only comments\n",
      "arrival_s,prompt_tokens\n0,1\n",
      "arrival_s,prompt_tokens,output_tokens,arrival_s\n",
      "arrival_s,prompt_tokens,output_tokens,bogus\n",
      "arrival_s,prompt_tokens,output_tokens\n",
      "arrival_s,prompt_tokens,output_tokens\n0,abc,1\n1,2,3\n0.5,1,1\n",
      "arrival_s,prompt_tokens,output_tokens\n-1,1,1\nnan,1,1\n1e999,1,1\n,1,1\n0,,1\n",
      "arrival_s,prompt_tokens,output_tokens\n0,16777217,1\n0,0,1\n0,1,99999999999999999999\n",
      "arrival_s,prompt_tokens,output_tokens,prefix_group,prefix_tokens,session_id\n0,10,1,,3,\n0,"
      "10,1,1,11,\n0,10,1,1,10,-2\n0,10,1,x,,\n",
      "arrival_s,prompt_tokens,output_tokens\n0,1,1,1\n",
      "0,10,5\n0.5,20,6,3,user-a\n1,1,1,1,1,1\n",
      "time,in,out\n0,10,5\n",
      "arrival_s,prompt,output_tokens\n0,10,5\n",
      "abc\n",
      std::string("arrival_s,prompt_tokens,output_tokens\n") +
          [] {
            std::string rows;
            for (int i = 0; i < 30; ++i) rows += "0,x,1\n";
            return rows;
          }(),
  };
  for (const auto& csv : csvs) {
    const TraceParse mine = parse_trace_csv(csv, "/t");
    const Diagnostics theirs = cluster::validate_trace_csv(csv, "/t");
    EXPECT_EQ(messages(mine.diagnostics), messages(theirs)) << csv;
  }
}

TEST(WorkloadAgreement, DecodedWorkloadsAreGeneratable) {
  std::vector<std::string> docs = {testing::base_unified().dump(), testing::base_pd().dump(),
                                   testing::read_data("unified_offload.json")};
  json full = json::parse(testing::read_data("full.json"));
  full["workload"]["clients"][3]["trace"] = {{"csv", testing::read_data("trace.csv")}};
  docs.push_back(full.dump());
  for (const auto& text : docs) {
    const DecodeResult r = decode_scenario(text);
    ASSERT_TRUE(r.scenario);
    const Diagnostics d = cluster::validate_workload(r.scenario->workload);
    EXPECT_TRUE(d.empty()) << (d.empty() ? "" : format_diagnostic(d.front()));
  }
}

// Boundary values at every number of the workload: whatever the decoder accepts, the
// generator accepts too.
TEST(WorkloadAgreement, BoundaryValuesAgree) {
  json full = json::parse(testing::read_data("full.json"));
  full["workload"]["clients"][3]["trace"] = {{"csv", testing::read_data("trace.csv")}};
  std::vector<std::string> leaves;
  std::function<void(const json&, const std::string&)> walk = [&](const json& v,
                                                                  const std::string& p) {
    if (v.is_object()) {
      for (auto it = v.begin(); it != v.end(); ++it)
        walk(it.value(), json_pointer_append(p, it.key()));
    } else if (v.is_array()) {
      for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], json_pointer_append(p, i));
    } else if (v.is_number()) {
      leaves.push_back(p);
    }
  };
  walk(full["workload"], "/workload");
  ASSERT_GT(leaves.size(), 20u);
  const std::vector<json> values = {0, 0.5, 1, 1.5, 2, 1e7, 10000001, 16777216, 16777217, 1e12, -1};
  std::size_t accepted = 0;
  for (const auto& leaf : leaves) {
    for (const auto& v : values) {
      json doc = full;
      doc[json::json_pointer(leaf)] = v;
      const DecodeResult r = decode_scenario(doc.dump());
      if (!r.scenario) continue;
      ++accepted;
      const Diagnostics d = cluster::validate_workload(r.scenario->workload);
      EXPECT_TRUE(d.empty()) << leaf << " = " << v.dump() << ": "
                             << (d.empty() ? "" : format_diagnostic(d.front()));
    }
  }
  EXPECT_GT(accepted, 50u);
}

}  // namespace
}  // namespace blis::scenario
