// The cluster's network (cluster/network/): transfers that overlap share their links
// max-min fairly, recomputed exactly at every start and finish; per-hop latency adds; a lone
// transfer is priced as kernel::transfer_time prices it.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "catalog/catalog.h"
#include "cluster/network/fair_share.h"
#include "cluster/network/topology.h"
#include "kernel/transfer.h"

namespace blis::cluster::network {
namespace {

struct Start {
  SimTime at;
  std::int64_t bytes;
  std::vector<LinkId> links;
  double latency_us;
  std::uint64_t tag;
};

// Drives `net` as the cluster does: advance to the next start or wake, start what begins
// there. Returns each tag's delivery instant.
std::map<std::uint64_t, SimTime> run(FairShareNetwork& net, std::vector<Start> starts) {
  std::stable_sort(starts.begin(), starts.end(),
                   [](const Start& a, const Start& b) { return a.at < b.at; });
  std::map<std::uint64_t, SimTime> out;
  std::size_t next = 0;
  std::vector<std::uint64_t> delivered;
  for (int guard = 0; guard < 100000; ++guard) {
    const SimTime t =
        std::min(next < starts.size() ? starts[next].at : kSimTimeNever, net.next_wake());
    if (t == kSimTimeNever) break;
    delivered.clear();
    net.advance(t, delivered);
    for (std::uint64_t tag : delivered) out[tag] = t;
    for (; next < starts.size() && starts[next].at == t; ++next)
      net.start(t, starts[next].bytes, starts[next].links, starts[next].latency_us,
                starts[next].tag);
  }
  return out;
}

TEST(FairShare, NSimultaneousEqualTransfersOverOneLinkTakeNTimesAsLong) {
  FairShareNetwork one;
  const LinkId l1 = one.add_link(1000);  // 1 GB/s
  const SimTime alone = run(one, {{0, 1000000, {l1}, 0, 0}})[0];
  ASSERT_EQ(alone, 1000);
  for (int n = 2; n <= 16; ++n) {
    FairShareNetwork net;
    const LinkId l = net.add_link(1000);
    std::vector<Start> starts;
    for (int i = 0; i < n; ++i) starts.push_back({0, 1000000, {l}, 0, std::uint64_t(i)});
    const auto done = run(net, starts);
    ASSERT_EQ(done.size(), static_cast<std::size_t>(n));
    for (const auto& [tag, t] : done) EXPECT_EQ(t, n * alone) << n << " transfers, #" << tag;
  }
}

TEST(FairShare, NTransfersOnAnIrregularLinkStillTakeNTimesAsLong) {
  // A catalog fabric's rate (50e9 * 0.85 / 1e6 bytes/us) and latency, and an odd size: N x
  // the lone sending time, plus the latency once, rounded to the microsecond.
  const catalog::Fabric* ib = catalog::Catalog::builtin().find_fabric("ib-ndr");
  ASSERT_NE(ib, nullptr);
  const std::int64_t bytes = 123456789;
  const double lone_us = static_cast<double>(bytes) / kernel::link_bytes_per_us(*ib);
  for (int n = 1; n <= 8; ++n) {
    FairShareNetwork net;
    const LinkId l = net.add_link(kernel::link_bytes_per_us(*ib));
    std::vector<Start> starts;
    for (int i = 0; i < n; ++i) starts.push_back({0, bytes, {l}, ib->latency_us, std::uint64_t(i)});
    for (const auto& [tag, t] : run(net, starts))
      EXPECT_EQ(t, static_cast<SimTime>(std::floor(ib->latency_us + n * lone_us + 0.5))) << n;
  }
}

TEST(FairShare, ATransferStartingWhenAnotherIsHalfDoneSharesTheRest) {
  FairShareNetwork net;
  const LinkId l = net.add_link(1000);
  // A alone would take 1000 us. B starts at 500, when A is half done: both at 500 bytes/us,
  // A's other half takes 1000 us more (done at 1500); B has 500000 bytes left then, alone.
  const auto done = run(net, {{0, 1000000, {l}, 0, 1}, {500, 1000000, {l}, 0, 2}});
  EXPECT_EQ(done.at(1), 1500);
  EXPECT_EQ(done.at(2), 2000);
}

TEST(FairShare, LatencyIsAddedAfterTheLastByteAndDoesNotHoldTheLink) {
  FairShareNetwork net;
  const LinkId l = net.add_link(1000);
  // A sends 1000 us then waits out 300 us of latency; B, started with A, has the link to
  // itself once A's bytes are out.
  const auto done = run(net, {{0, 500000, {l}, 300, 1}, {0, 1500000, {l}, 0, 2}});
  EXPECT_EQ(done.at(1), 1000 + 300);
  EXPECT_EQ(done.at(2), 2000);
}

TEST(FairShare, MaxMinFairRatesAcrossLinks) {
  FairShareNetwork net;
  const LinkId a = net.add_link(600), b = net.add_link(3000);
  net.start(0, 1000000000, {a, b}, 0, 1);  // bottlenecked on a: 600
  net.start(0, 1000000000, {b}, 0, 2);     // b's other 2400 split between 2 and 3
  net.start(0, 1000000000, {b}, 0, 3);
  EXPECT_DOUBLE_EQ(net.rate_of(1), 600);
  EXPECT_DOUBLE_EQ(net.rate_of(2), 1200);
  EXPECT_DOUBLE_EQ(net.rate_of(3), 1200);
  EXPECT_EQ(net.in_flight(), 3u);
}

TEST(FairShare, DeliveriesDoNotDependOnTheOrderTransfersAreStarted) {
  auto starts = [](bool reversed) {
    std::vector<Start> s;
    for (int i = 0; i < 6; ++i)
      s.push_back({i % 3 * 7, 333333 + 1000 * i, {LinkId(i % 2), 2}, 5.5, std::uint64_t(i)});
    if (reversed) std::reverse(s.begin(), s.end());
    return s;
  };
  auto build = [] {
    FairShareNetwork n;
    n.add_link(700);
    n.add_link(900);
    n.add_link(1300);
    return n;
  };
  FairShareNetwork x = build(), y = build();
  EXPECT_EQ(run(x, starts(false)), run(y, starts(true)));
}

TEST(FairShare, ALoneTransferIsPricedAsTheKernelPricesIt) {
  for (const char* id : {"ib-ndr", "nvlink4", "pcie-gen5", "roce-400g"}) {
    const catalog::Fabric* f = catalog::Catalog::builtin().find_fabric(id);
    ASSERT_NE(f, nullptr) << id;
    for (std::int64_t bytes : {1LL, 4096LL, 131072LL * 16, 987654321LL, 40000000000LL}) {
      FairShareNetwork net;
      const LinkId l = net.add_link(kernel::link_bytes_per_us(*f));
      const SimTime start = 123456789;
      const auto done = run(net, {{start, bytes, {l}, f->latency_us, 0}});
      EXPECT_EQ(done.at(0) - start, kernel::transfer_time(bytes, *f)) << id << " " << bytes;
    }
  }
}

catalog::Fabric fabric(double bytes_per_s, double latency_us, double hop_latency_us) {
  catalog::Fabric f;
  f.id = "f";
  f.bandwidth_bytes_per_s = bytes_per_s;
  f.latency_us = latency_us;
  f.hop_latency_us = hop_latency_us;
  f.efficiency = 1;
  return f;
}

// Two single-GPU instances on nodes 0 and 1.
ClusterNetwork two_nodes(std::int32_t hops, const std::string& nic = "per_gpu") {
  scenario::Network n;
  n.switch_hops = hops;
  n.nic = nic;
  PoolLinks p;
  p.scale_out = fabric(1e9, 50, 10);
  p.local = fabric(1e10, 5, 0);
  return ClusterNetwork(n, {p, p}, {{{0, 1}}, {{1, 1}}});
}

TEST(Topology, PerHopLatencyAdds) {
  for (std::int32_t hops : {0, 1, 3}) {
    const auto r = two_nodes(hops).pull_route(0, 1);
    ASSERT_TRUE(r.has_value());
    EXPECT_DOUBLE_EQ(r->latency_us, 50 + 10.0 * hops);
  }
  // Delivered hop latency later: 1e6 bytes at 1000 bytes/us, plus 50 + 10 * hops.
  for (std::int32_t hops : {0, 1, 3}) {
    ClusterNetwork cn = two_nodes(hops);
    const auto r = cn.pull_route(0, 1);
    const auto done = run(cn.flows(), {{0, 1000000, r->links, r->latency_us, 7}});
    EXPECT_EQ(done.at(7), 1000 + 50 + 10 * hops);
  }
}

TEST(Topology, InstancesOnOneNodeUseTheScaleUpLink) {
  scenario::Network n;
  PoolLinks p;
  p.scale_out = fabric(1e9, 50, 10);
  p.local = fabric(1e10, 5, 0);
  ClusterNetwork cn(n, {p, p}, {{{0, 1}}, {{0, 1}}});
  const auto r = cn.pull_route(0, 1);
  ASSERT_TRUE(r.has_value());
  EXPECT_DOUBLE_EQ(r->latency_us, 5);
  EXPECT_DOUBLE_EQ(cn.flows().link_capacity(r->links[0]), 1e4);
}

TEST(Topology, PerNodeNicIsSharedByTheNodesInstances) {
  // Two senders on node 0, one receiver on node 1: per GPU NICs, the receiver's NIC is the
  // one shared link; per node, the senders' node NIC is shared as well (same outcome here).
  scenario::Network n;
  n.nic = "per_node";
  PoolLinks p;
  p.scale_out = fabric(1e9, 0, 0);
  ClusterNetwork cn(n, {p, p}, {{{0, 1}, {0, 1}}, {{1, 1}}});
  const auto a = cn.pull_route(0, 2), b = cn.pull_route(1, 2);
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->links[0], b->links[0]);  // one NIC out of node 0
  EXPECT_EQ(a->links[1], b->links[1]);
  const auto done = run(cn.flows(), {{0, 1000000, a->links, 0, 1}, {0, 1000000, b->links, 0, 2}});
  EXPECT_EQ(done.at(1), 2000);
  EXPECT_EQ(done.at(2), 2000);
}

}  // namespace
}  // namespace blis::cluster::network

namespace blis::cluster::network {
namespace {

TEST(FairShare, BatchCompletionForCollectivesInsideAStep) {
  // Three flows into one 1000 bytes/us link and a fourth on a link of its own: the three
  // finish together at 3x their lone time, the fourth at its own pace, latency on top.
  const auto t = FairShareNetwork::batch_completion_us(
      {1000, 1000}, {{100000, {0}, 2}, {100000, {0}, 2}, {100000, {0}, 2}, {100000, {1}, 2}});
  ASSERT_EQ(t.size(), 4u);
  EXPECT_DOUBLE_EQ(t[0], 302);
  EXPECT_DOUBLE_EQ(t[2], 302);
  EXPECT_DOUBLE_EQ(t[3], 102);
}

}  // namespace
}  // namespace blis::cluster::network
