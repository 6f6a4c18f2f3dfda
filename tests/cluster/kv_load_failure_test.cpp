// P/D pulls that fail (the decode pool's kv_pull_failure_rate): each failed pull reports its
// blocks invalid to the decode engine, which recomputes them or finishes the request with an
// error as kv_transfer_config.kv_load_failure_policy says (vllm scheduler.py
// _handle_invalid_blocks). The draws come from the seed's stream "kv_pull_failures".
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/run_summary.h"
#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

using test::run_summary;

nlohmann::json pd_doc() {
  std::ifstream f(std::string(BLIS_SOURCE_DIR) + "/examples/pd-disaggregation.json");
  std::stringstream ss;
  ss << f.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(ss.str());
  doc["horizon"]["duration_s"] = 20;
  return doc;
}

nlohmann::json with_failures(double rate, const char* policy) {
  nlohmann::json doc = pd_doc();
  doc["pools"][1]["kv_pull_failure_rate"] = rate;
  if (policy != nullptr) {
    doc["pools"][1]["engine"]["args"]["kv_transfer_config"] = {{"kv_connector", "NixlConnector"},
                                                               {"kv_role", "kv_both"},
                                                               {"kv_load_failure_policy", policy}};
  }
  return doc;
}

TEST(KvPullFailures, RateZeroKeepsTheResults) {
  std::string base, zero;
  const nlohmann::json s = run_summary(pd_doc().dump(), &base);
  run_summary(with_failures(0, nullptr).dump(), &zero);
  EXPECT_EQ(base, zero);
  EXPECT_FALSE(s.contains("kv_load_failures"));
}

TEST(KvPullFailures, FailPolicyFinishesRequestsWithAnErrorDeterministically) {
  std::string base, d1, d2;
  run_summary(pd_doc().dump(), &base);
  const nlohmann::json s = run_summary(with_failures(0.25, nullptr).dump(), &d1);
  run_summary(with_failures(0.25, nullptr).dump(), &d2);
  EXPECT_EQ(d1, d2);  // same seed, same draws
  EXPECT_NE(d1, base);
  ASSERT_TRUE(s.contains("kv_load_failures"));
  const auto& f = s["kv_load_failures"];
  const auto failed = f["pulls_failed"].get<std::int64_t>();
  EXPECT_GT(failed, 0);
  // "fail" is vLLM's default: every failed pull's request ends with an error, which the
  // client sees as an aborted request; none is recomputed.
  EXPECT_EQ(f["requests_errored"].get<std::int64_t>(), failed);
  EXPECT_EQ(f["requests_recomputed"].get<std::int64_t>(), 0);
  EXPECT_EQ(f["error_responses"].get<std::int64_t>(), failed);
  EXPECT_GE(s["requests"]["aborted"].get<std::int64_t>(), failed);
  EXPECT_EQ(s["requests"]["unfinished"].get<int>(), 0);
  // Roughly a quarter of the pulls.
  const auto arrived = s["requests"]["arrived"].get<double>();
  EXPECT_GT(static_cast<double>(failed), 0.1 * arrived);
  EXPECT_LT(static_cast<double>(failed), 0.4 * arrived);
  // Another seed draws other pulls.
  nlohmann::json other = with_failures(0.25, nullptr);
  other["seed"] = 7;
  std::string d3;
  run_summary(other.dump(), &d3);
  EXPECT_NE(d1, d3);
}

TEST(KvPullFailures, RecomputePolicyFinishesEveryRequest) {
  std::string d1, d2;
  const nlohmann::json s = run_summary(with_failures(0.25, "recompute").dump(), &d1);
  run_summary(with_failures(0.25, "recompute").dump(), &d2);
  EXPECT_EQ(d1, d2);
  const auto& f = s["kv_load_failures"];
  const auto failed = f["pulls_failed"].get<std::int64_t>();
  EXPECT_GT(failed, 0);
  EXPECT_EQ(f["requests_errored"].get<std::int64_t>(), 0);
  EXPECT_EQ(f["requests_recomputed"].get<std::int64_t>(), failed);
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  // The decoder recomputes the prompts it failed to pull: its TTFT grows.
  const nlohmann::json base = run_summary(pd_doc().dump());
  EXPECT_GT(s["pools"][1]["ttft_ms"]["mean"].get<double>(),
            base["pools"][1]["ttft_ms"]["mean"].get<double>());
}

TEST(KvPullFailures, TheRateIsAProbabilityOnADecodePool) {
  Simulation sim;
  Diagnostics ds = sim.load(with_failures(1.5, nullptr).dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ds));
  EXPECT_EQ(ds.front().pointer, "/pools/1/kv_pull_failure_rate");
  nlohmann::json on_prefill = pd_doc();
  on_prefill["pools"][0]["kv_pull_failure_rate"] = 0.1;
  ds = sim.load(on_prefill.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ds));
  EXPECT_EQ(ds.front().pointer, "/pools/0/kv_pull_failure_rate");
  EXPECT_NE(ds.front().message.find("only for a decode pool"), std::string::npos);
}

}  // namespace
}  // namespace blis::cluster
