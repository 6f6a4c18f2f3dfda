// Pipeline hand-offs and expert-parallel all-to-alls that cross nodes share the NICs with the
// KV transfers in flight (docs/networking.md "Collectives"): a pass's inter-node bytes are
// priced against the flows on its port when it is launched and then become a silent flow
// there, so the transfers they overlap slow down too. Alone, the kernel's price stands.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/network/fair_share.h"
#include "cluster/network/topology.h"
#include "cluster/run_summary.h"

namespace blis::cluster {
namespace {

using network::FairShareNetwork;
using network::LinkId;

// Delivery instants of the delivering flows, driving the network as the cluster does.
std::vector<std::uint64_t> deliver_until_idle(FairShareNetwork& net, std::vector<SimTime>* at) {
  std::vector<std::uint64_t> out, step;
  for (int guard = 0; guard < 1000; ++guard) {
    const SimTime w = net.next_wake();
    if (w == kSimTimeNever) break;
    step.clear();
    net.advance(w, step);
    for (std::uint64_t t : step) {
      out.push_back(t);
      at->push_back(w);
    }
  }
  return out;
}

TEST(CollectiveContention, NSimultaneousCollectivesOnOneLinkTakeNTimesAsLong) {
  // One 1000 bytes/us link; a collective of 1e6 bytes alone takes 1000 us. With N - 1 equal
  // collectives of other instances already on it (same instant), it takes N times as long.
  for (int n = 1; n <= 8; ++n) {
    FairShareNetwork net;
    const LinkId l = net.add_link(1000);
    for (int i = 0; i + 1 < n; ++i) net.start_silent(0, 1e6, {l}, 100 + i);
    EXPECT_EQ(net.shares_any({l}, 7), n > 1);
    EXPECT_DOUBLE_EQ(net.alone_or_shared_us(0, 1e6, {l}, 7), 1000.0 * n) << n;
  }
}

TEST(CollectiveContention, TheInstancesOwnEarlierCollectivesAreLeftOut) {
  FairShareNetwork net;
  const LinkId l = net.add_link(1000);
  net.start_silent(0, 1e6, {l}, 7);  // an earlier pass of instance 7
  EXPECT_FALSE(net.shares_any({l}, 7));
  EXPECT_DOUBLE_EQ(net.alone_or_shared_us(0, 1e6, {l}, 7), 1000);
  EXPECT_DOUBLE_EQ(net.alone_or_shared_us(0, 1e6, {l}, 8), 2000);
}

TEST(CollectiveContention, APricedCollectiveSeesThePullsDrainAhead) {
  // A pull of 5e5 bytes started at 0 has 2.5e5 left at 250; a collective of 1e6 starting
  // then shares the link until the pull is done (2 x 2.5e5 / 1000 = 500 us, 2.5e5 of its own
  // sent), then has it alone: 500 + 7.5e5 / 1000 = 1250 us instead of 1000.
  FairShareNetwork net;
  const LinkId l = net.add_link(1000);
  net.start(0, 500000, {l}, 0, 1);
  EXPECT_DOUBLE_EQ(net.alone_or_shared_us(250, 1e6, {l}, 7), 1250);
  // Pricing changed nothing: the pull alone is delivered at 500.
  std::vector<SimTime> at;
  EXPECT_EQ(deliver_until_idle(net, &at), std::vector<std::uint64_t>{1});
  EXPECT_EQ(at.front(), 500);
}

TEST(CollectiveContention, ASilentFlowSlowsThePullsItOverlapsAndDeliversNothing) {
  // A pull and a hand-off of 1e6 bytes each at 0 on one 1000 bytes/us link: both at half
  // rate, so the pull lands at 2000 instead of 1000 (and the hand-off was priced 2000).
  FairShareNetwork net;
  const LinkId l = net.add_link(1000);
  net.start(0, 1000000, {l}, 0, 1);
  EXPECT_DOUBLE_EQ(net.alone_or_shared_us(0, 1e6, {l}, 7), 2000);
  net.start_silent(0, 1e6, {l}, 7);
  std::vector<SimTime> at;
  EXPECT_EQ(deliver_until_idle(net, &at), std::vector<std::uint64_t>{1});
  EXPECT_EQ(at.front(), 2000);
  EXPECT_EQ(net.in_flight(), 0u);
}

TEST(CollectiveContention, ASilentFlowAloneNeedsNoWake) {
  // Without a delivering flow, a collective's end changes no one's rate: no event for it, and
  // its slot is free once a later instant is seen.
  FairShareNetwork net;
  const LinkId l = net.add_link(1000);
  net.start_silent(0, 1e6, {l}, 7);
  EXPECT_EQ(net.next_wake(), kSimTimeNever);
  std::vector<std::uint64_t> delivered;
  net.advance(5000, delivered);
  EXPECT_TRUE(delivered.empty());
  EXPECT_EQ(net.in_flight(), 0u);
  // A pull starting while one is sending wakes at the collective's end, when its rate rises.
  net.start_silent(5000, 1e6, {l}, 7);
  net.start(5000, 2000000, {l}, 0, 3);
  EXPECT_EQ(net.next_wake(), 7000);  // both at 500 bytes/us until the collective's 1e6 left
  std::vector<SimTime> at;
  EXPECT_EQ(deliver_until_idle(net, &at), std::vector<std::uint64_t>{3});
  EXPECT_EQ(at.front(), 8000);  // 1e6 at half rate (2000 us), the last 1e6 alone (1000 us)
}

TEST(CollectiveContention, AnInstanceSpanningNodesUsesTheNicPortItsPullsUse) {
  // Instance 0 spans two nodes (a pipeline across them), instance 1 is on node 2: the
  // collective leaves and enters by instance 0's NICs, which its pulls out also leave by;
  // the port is its tp x pp = 2 GPUs' NICs. An instance on one node has no such route.
  scenario::Network n;
  network::PoolLinks big, small;
  catalog::Fabric f;
  f.id = "f";
  f.bandwidth_bytes_per_s = 1e9;
  f.efficiency = 1;
  big.scale_out = small.scale_out = f;
  big.lanes = 2;
  network::ClusterNetwork cn(n, {big, small}, {{{0, 2}}, {{2, 1}}});
  const auto c = cn.collective_route(0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->latency_us, 0);
  const auto pull = cn.pull_route(0, 1);
  ASSERT_TRUE(pull.has_value());
  EXPECT_EQ(c->links[0], pull->links[0]);
  EXPECT_DOUBLE_EQ(cn.collective_bytes_per_us(0), 2000);
  EXPECT_FALSE(cn.collective_route(1).has_value());
  EXPECT_EQ(cn.collective_bytes_per_us(1), 0);
}

nlohmann::json example(const std::string& name) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return nlohmann::json::parse(ss.str());
}

TEST(CollectiveContention, PdWithPipelineAcrossNodesSlowsBothHandoffsAndPulls) {
  // examples/pp-pd-contention.json: the prefill instance's stages are on two nodes, and the
  // decoders pull its KV out through the same NICs its hand-offs leave by.
  const nlohmann::json s = test::run_summary(example("pp-pd-contention.json").dump());
  ASSERT_FALSE(s.is_null());
  ASSERT_TRUE(s.contains("network")) << s.dump(2).substr(0, 2000);
  const nlohmann::json& n = s["network"];
  EXPECT_GT(n["passes_slowed"].get<int>(), 0);
  EXPECT_GT(n["collective_extra_ms"].get<double>(), 0);
  EXPECT_GT(n["kv_pulls"].get<int>(), 0);
  EXPECT_GT(n["kv_pull_ms_mean"].get<double>(), n["kv_pull_alone_ms_mean"].get<double>());
  // The slowed passes are the prefill instance's (the one whose stages span nodes).
  bool prefill_slowed = false;
  for (const auto& i : s["instances"])
    if (i["pool"] == "prefill" && i.contains("network")) prefill_slowed = true;
  EXPECT_TRUE(prefill_slowed);
}

TEST(CollectiveContention, WithoutTransfersAPipelineAcrossNodesIsPricedAsAlone) {
  // examples/pipeline-two-nodes.json has hand-offs between nodes and no KV transfers: no pass
  // is slowed, no `network` block, and the run is the same twice (the silent flows need no
  // events).
  std::string d1, d2;
  const nlohmann::json s = test::run_summary(example("pipeline-two-nodes.json").dump(), &d1);
  ASSERT_FALSE(s.is_null());
  EXPECT_FALSE(s.contains("network"));
  for (const auto& i : s["instances"]) EXPECT_FALSE(i.contains("network"));
  test::run_summary(example("pipeline-two-nodes.json").dump(), &d2);
  EXPECT_EQ(d1, d2);
}

}  // namespace
}  // namespace blis::cluster
