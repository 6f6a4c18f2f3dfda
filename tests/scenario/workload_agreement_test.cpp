// The decoder and the workload generator (core/cluster/workload) run the one validation
// (validate_workload); this keeps the decoder's own value reading from accepting a workload
// that validation refuses, so `blis validate` never passes a scenario that `blis run` then
// refuses. (Both read a trace CSV with the one reader of
// scenario/trace_csv.h.)

#include <gtest/gtest.h>

#include "documents.h"
#include "scenario/scenario_checks.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

using nlohmann::json;

TEST(WorkloadAgreement, DecodedWorkloadsAreGeneratable) {
  std::vector<std::string> docs = {testing::base_unified().dump(), testing::base_pd().dump(),
                                   testing::read_data("unified_offload.json")};
  json full = json::parse(testing::read_data("full.json"));
  full["workload"]["clients"][3]["trace"] = {{"csv", testing::read_data("trace.csv")}};
  docs.push_back(full.dump());
  for (const auto& text : docs) {
    const DecodeResult r = decode_scenario(text);
    ASSERT_TRUE(r.scenario);
    const Diagnostics d = validate_workload(r.scenario->workload);
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
      const Diagnostics d = validate_workload(r.scenario->workload);
      EXPECT_TRUE(d.empty()) << leaf << " = " << v.dump() << ": "
                             << (d.empty() ? "" : format_diagnostic(d.front()));
    }
  }
  EXPECT_GT(accepted, 50u);
}

}  // namespace
}  // namespace blis::scenario
