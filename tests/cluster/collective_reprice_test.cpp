// A pass's inter-node bytes are priced when it is launched against the flows then on its NIC
// port; a transfer that starts while they are still moving slows them, and the pass is then
// priced again (docs/networking.md "Collectives"): the network reports the silent flows a start
// slowed and projects their new end, and the instance moves the pass's end, and those of the
// passes queued behind it on the GPU, by what that adds.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/instance.h"
#include "cluster/network/fair_share.h"
#include "cluster/run_summary.h"
#include "fake_engine.h"

namespace blis::cluster::testing {
namespace {

using network::FairShareNetwork;
using network::LinkId;
using Perturbed = std::vector<std::pair<std::uint64_t, std::uint64_t>>;

TEST(CollectiveReprice, APullStartedDuringACollectiveMovesItsProjectedEnd) {
  FairShareNetwork net;
  const LinkId l = net.add_link(1000);  // bytes per microsecond
  const std::uint64_t id = net.start_silent(0, 1e6, {l}, 7);
  ASSERT_GT(id, 0u);
  EXPECT_DOUBLE_EQ(net.projected_send_us(0, id), 1000);  // alone
  Perturbed p;
  net.take_perturbed(p);
  EXPECT_TRUE(p.empty());
  // At 500 a pull of 5e5 bytes starts: both send at 500 bytes/us, the collective's last 5e5
  // bytes take 1000 us instead of 500.
  net.start(500, 500000, {l}, 0, 1);
  net.take_perturbed(p);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0], std::make_pair(std::uint64_t{7}, id));
  EXPECT_DOUBLE_EQ(net.projected_send_us(500, id), 1500);
  // The owner's own next collective shares the link in the network but is left out of the
  // owner's price, as at launch: no report, and the projection is unchanged.
  p.clear();
  net.start_silent(600, 100000, {l}, 7);
  net.take_perturbed(p);
  EXPECT_TRUE(p.empty());
  EXPECT_DOUBLE_EQ(net.projected_send_us(600, id), 1500);
  // Another owner's collective does count.
  net.start_silent(700, 100000, {l}, 8);
  net.take_perturbed(p);
  ASSERT_FALSE(p.empty());
  EXPECT_EQ(p[0].second, id);
  EXPECT_LT(net.projected_send_us(5000, 12345), 0);  // no such flow
}

class CrossNodePricer : public StepCostModel {
 public:
  explicit CrossNodePricer(SimTime stage) : stage_(stage) {}
  StepTiming price(const engine::Batch&) const override { return {1000, 100, stage_, 200}; }

 private:
  SimTime stage_;
};

struct TwoPasses {
  CrossNodePricer pricer;
  std::unique_ptr<Instance> inst;
  LoopDecision first, second;

  explicit TwoPasses(SimTime stage) : pricer(stage) {
    inst = std::make_unique<Instance>(0, "i0", 0, engine_with_one_request(2), pricer,
                                      ServingOverheads{}, 0, Rng::stream(1, "t"));
    // Each pass's bytes are network flow 1, then 2, launched with nothing else on the port.
    std::uint64_t next_flow = 1;
    inst->set_link_share([&next_flow](Instance&, SimTime, double) {
      return Instance::SharedCollective{0, next_flow++};
    });
    first = inst->run_loop(0);
    second = inst->run_loop(first.at);
    inst->set_link_share(nullptr);
  }
};

TEST(CollectiveReprice, ASlowedPassEndsLaterAndSoDoTheOnesBehindIt) {
  TwoPasses t(0);
  ASSERT_NE(t.second.launched, nullptr);
  EXPECT_EQ(t.first.gpu_end, 1100);
  EXPECT_EQ(t.second.gpu_start, 1100);
  // Flow 1 now takes 500 us where it took 200 alone: the first pass ends 300 us later, and
  // the second, which the GPU runs after it, starts and ends 300 us later.
  EXPECT_TRUE(t.inst->reprice_collective(1, 500));
  EXPECT_EQ(t.inst->oldest_gpu_end(), 1400);
  EXPECT_EQ(t.inst->counters().collectives_slowed, 1u);
  EXPECT_EQ(t.inst->counters().collectives_repriced, 1u);
  EXPECT_EQ(t.inst->counters().collective_extra, 300);
  // A price only grows, and a flow no pass carries changes nothing.
  EXPECT_TRUE(t.inst->reprice_collective(1, 400));
  EXPECT_EQ(t.inst->oldest_gpu_end(), 1400);
  EXPECT_FALSE(t.inst->reprice_collective(99, 5000));
  EXPECT_EQ(t.inst->counters().collective_extra, 300);
  t.inst->complete_oldest(1400);
  EXPECT_EQ(t.inst->oldest_gpu_end(), 2400);
  // Its flow is gone with it.
  EXPECT_FALSE(t.inst->reprice_collective(1, 900));
}

TEST(CollectiveReprice, WithAPipelineTheNextPassWaitsForTheLongerStage) {
  // Stages of 500: the second pass (launched at 200) entered at 600 and ends at 1600. The
  // first pass's hand-off 300 us longer holds its busiest stage 300 us longer (800), so the
  // second enters at 100 + 800 = 900 and ends at 1900.
  TwoPasses t(500);
  ASSERT_NE(t.second.launched, nullptr);
  EXPECT_EQ(t.second.gpu_start, 600);
  EXPECT_TRUE(t.inst->reprice_collective(1, 500));
  EXPECT_EQ(t.inst->oldest_gpu_end(), 1400);
  t.inst->complete_oldest(1400);
  EXPECT_EQ(t.inst->oldest_gpu_end(), 1900);
}

nlohmann::json slow_nic_pd() {
  // examples/pp-pd-contention.json on a 10 Gb/s NIC per GPU: a 2048-token chunk's hand-off
  // lasts ~16 ms, so KV pulls often start while one is leaving the prefill's port.
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / "pp-pd-contention.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  nlohmann::json s = nlohmann::json::parse(ss.str());
  s["catalog"] = {{"fabrics",
                   {{{"id", "slow-nic"},
                     {"name", "a 10 Gb/s NIC per GPU (test)"},
                     {"scope", "scale-out"},
                     {"bandwidth_bytes_per_s", 1.25e9},
                     {"latency_us", 50},
                     {"hop_latency_us", 0.13},
                     {"efficiency", 0.85},
                     {"source", "test"}}}}};
  s["fabric"] = "slow-nic";
  s["horizon"]["duration_s"] = 20;
  s["workload"]["clients"][0]["load"]["rate"] = 1;
  return s;
}

TEST(CollectiveReprice, PullsStartedDuringPrefillHandoffsRepriceThem) {
  std::string d1, d2;
  const nlohmann::json s = test::run_summary(slow_nic_pd().dump(), &d1);
  ASSERT_FALSE(s.is_null());
  ASSERT_TRUE(s.contains("network")) << s.dump(2).substr(0, 2000);
  const nlohmann::json& n = s["network"];
  ASSERT_TRUE(n.contains("passes_repriced")) << n.dump();
  EXPECT_GT(n["passes_repriced"].get<int>(), 0);
  EXPECT_LE(n["passes_repriced"].get<int>(), n["passes_slowed"].get<int>());
  std::uint64_t prefill_repriced = 0;
  for (const auto& i : s["instances"]) {
    if (i["pool"] == "prefill" && i.contains("network") && i["network"].contains("passes_repriced"))
      prefill_repriced += i["network"]["passes_repriced"].get<std::uint64_t>();
  }
  EXPECT_EQ(prefill_repriced, n["passes_repriced"].get<std::uint64_t>());
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  test::run_summary(slow_nic_pd().dump(), &d2);
  EXPECT_EQ(d1, d2);
}

}  // namespace
}  // namespace blis::cluster::testing
