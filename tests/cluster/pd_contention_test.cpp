// examples/pd-contention.json: prefill instances hand their KV to one decode instance over
// its one NIC. N requests prefilled at once on N prefill instances hand off at once, so the
// pulls share the link and each takes N times as long: TTFT rises with the concurrent
// hand-offs (the contention acceptance of issue 14; docs/networking.md shows the numbers).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "cluster/run_summary.h"
#include "cluster/simulation.h"
#include "kernel/transfer.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

nlohmann::json example() {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / "pd-contention.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

constexpr int kPromptTokens = 8000;

// Mean TTFT (ms) of `n` requests of kPromptTokens sent at once (n users, one request each).
double burst_ttft_ms(int n, int decode_node = 1) {
  nlohmann::json doc = example();
  doc["horizon"] = {{"max_requests", n}, {"drain", true}};
  doc["network"]["placement"]["decode"] = {decode_node};
  auto& client = doc["workload"]["clients"][0];
  client["load"] = {{"concurrency", n}, {"think_time_s", 1000}};
  client["prompt_tokens"] = {{"dist", "constant"}, {"value", kPromptTokens}};
  const nlohmann::json s = test::run_summary(doc.dump());
  if (s.is_null()) return 0;
  EXPECT_EQ(s["requests"]["finished"].get<int>(), n);
  return s["ttft_ms"]["mean"].get<double>();
}

// One hand-off alone: the prompt's KV (Llama-3.1-8B: 32 layers x 8 KV heads x 128 x 2 (K, V)
// x 2 bytes = 131072 bytes per token) over one ib-ndr NIC.
double lone_pull_ms() {
  const catalog::Fabric* ib = catalog::Catalog::builtin().find_fabric("ib-ndr");
  return static_cast<double>(kernel::transfer_time(std::int64_t{kPromptTokens} * 131072, *ib)) /
         1e3;
}

TEST(PdContention, TtftRisesWithConcurrentHandoffs) {
  const double pull = lone_pull_ms();
  ASSERT_GT(pull, 20);  // ~24.7 ms
  double previous = 0, first = 0;
  for (int n : {1, 2, 4, 6}) {
    const double ttft = burst_ttft_ms(n);
    if (n == 1) first = ttft;
    EXPECT_GT(ttft, previous) << n << " concurrent hand-offs";
    // n pulls over one link: each takes n times as long, n - 1 lone pulls more than one alone.
    if (n > 1) {
      EXPECT_GT(ttft - first, 0.9 * (n - 1) * pull) << n;
      EXPECT_LT(ttft - first, 1.5 * (n - 1) * pull + 5) << n;
    }
    previous = ttft;
  }
}

// Mean TTFT (ms) of the example at `rate` requests/s (Poisson) for 20 s, its decode GPU on
// node `decode_node` (1: across the NIC, 0: on the prefill node, over NVLink).
double poisson_ttft_ms(double rate, int decode_node) {
  nlohmann::json doc = example();
  doc["horizon"]["duration_s"] = 20;
  doc["network"]["placement"]["decode"] = {decode_node};
  doc["workload"]["clients"][0]["load"]["rate"] = rate;
  const nlohmann::json s = test::run_summary(doc.dump());
  if (s.is_null()) return 0;
  return s["ttft_ms"]["mean"].get<double>();
}

TEST(PdContention, TheNicsShareOfTtftRisesWithLoad) {
  // The same arrivals with the decode GPU across the NIC and on the prefill node: the
  // difference is what the pulls cost over the NIC beyond NVLink. Alone that is a lone
  // pull over the NIC less one over NVLink (~21.8 ms); as the rate rises more pulls overlap
  // on the one NIC and it grows.
  double previous = 0;
  for (double rate : {1.0, 8.0, 24.0}) {
    const double nic_cost = poisson_ttft_ms(rate, 1) - poisson_ttft_ms(rate, 0);
    EXPECT_GT(nic_cost, previous) << rate << " requests/s";
    previous = nic_cost;
  }
  EXPECT_GT(previous, 1.4 * (lone_pull_ms() - 2.9));  // NVLink pulls ~2.9 ms
}

TEST(PdContention, TheSummaryPutsThePullsBesideTheirTimeAlone) {
  // Four pulls at once over the one NIC: summary.json's `network` has them, their mean time
  // 3-4 x their time alone, and no pass slowed (no step crosses nodes here).
  nlohmann::json doc = example();
  doc["horizon"] = {{"max_requests", 4}, {"drain", true}};
  auto& client = doc["workload"]["clients"][0];
  client["load"] = {{"concurrency", 4}, {"think_time_s", 1000}};
  client["prompt_tokens"] = {{"dist", "constant"}, {"value", kPromptTokens}};
  const nlohmann::json s = test::run_summary(doc.dump());
  ASSERT_FALSE(s.is_null());
  ASSERT_TRUE(s.contains("network")) << s.dump(2).substr(0, 2000);
  const nlohmann::json& n = s["network"];
  EXPECT_EQ(n["kv_pulls"].get<int>(), 4);
  EXPECT_EQ(n["passes_slowed"].get<int>(), 0);
  EXPECT_FALSE(n.contains("passes_repriced"));
  const double alone = n["kv_pull_alone_ms_mean"].get<double>();
  EXPECT_NEAR(alone, lone_pull_ms(), 0.01);
  EXPECT_GT(n["kv_pull_ms_mean"].get<double>(), 3 * alone);
  EXPECT_LT(n["kv_pull_ms_mean"].get<double>(), 4.1 * alone);
  for (const auto& i : s["instances"]) EXPECT_FALSE(i.contains("network"));
}

TEST(PdContention, OnOneNodeThePullsCrossNvlinkInstead) {
  // The decode GPU on the prefill node: the pulls share its NVLink port (450 GB/s x 0.81)
  // rather than its NIC (50 GB/s x 0.85), so four at once cost far less.
  const double across = burst_ttft_ms(4, 1), inside = burst_ttft_ms(4, 0);
  EXPECT_LT(inside, across - 2 * lone_pull_ms());
}

}  // namespace
}  // namespace blis::cluster
