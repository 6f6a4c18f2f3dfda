// The `network` section: defaults, what it accepts, and errors at their JSON pointers.

#include <gtest/gtest.h>

#include "documents.h"
#include "scenario/network_placement.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

DecodeResult decode_patched(const std::string& patch) {
  return decode_scenario(testing::patched(testing::base_pd(), patch), DecodeOptions{});
}

// True when some diagnostic is at `pointer` and its message contains `text`.
bool has(const DecodeResult& r, const std::string& pointer, const std::string& text) {
  for (const auto& d : r.diagnostics)
    if (d.pointer == pointer && d.message.find(text) != std::string::npos) return true;
  return false;
}

std::string all(const DecodeResult& r) {
  std::string s;
  for (const auto& d : r.diagnostics) s += format_diagnostic(d) + "\n";
  return s;
}

TEST(NetworkDecode, DefaultsWhenAbsent) {
  const DecodeResult r = decode_patched("[]");
  ASSERT_TRUE(r.scenario) << all(r);
  EXPECT_EQ(r.scenario->network.gpus_per_node, 8);
  EXPECT_EQ(r.scenario->network.nic, "per_gpu");
  EXPECT_EQ(r.scenario->network.switch_hops, 1);
  EXPECT_TRUE(r.scenario->network.placement.empty());
  // Packed: each pool from a node of its own.
  const auto places = place_instances(*r.scenario, nullptr);
  ASSERT_EQ(places.size(), 2u);
  EXPECT_EQ(places[0][0].node, 0);
  EXPECT_EQ(places[1][0].node, 1);
}

TEST(NetworkDecode, ReadsEveryKey) {
  const DecodeResult r = decode_patched(R"([{"op": "add", "path": "/pools/0/instances", "value": 3},
    {"op": "add", "path": "/network", "value": {"gpus_per_node": 4, "nic": "per_node",
     "switch_hops": 3, "placement": {"p": [0, 0, 2], "d": [0]}}}])");
  ASSERT_TRUE(r.scenario) << all(r);
  const Network& n = r.scenario->network;
  EXPECT_EQ(n.gpus_per_node, 4);
  EXPECT_EQ(n.nic, "per_node");
  EXPECT_EQ(n.switch_hops, 3);
  EXPECT_EQ(n.placement.at("p"), (std::vector<std::int32_t>{0, 0, 2}));
  const auto places = place_instances(*r.scenario, nullptr);
  EXPECT_EQ(places[0][2].node, 2);
  EXPECT_EQ(places[1][0].node, 0);
}

TEST(NetworkDecode, PackingFillsNodesAndSpansLargeInstances) {
  Scenario s;
  s.network.gpus_per_node = 8;
  Pool a;
  a.name = "a";
  a.instances = 5;
  a.parallelism.tp = 2;  // four per node
  Pool b;
  b.name = "b";
  b.instances = 2;
  b.parallelism.tp = 8;
  b.parallelism.pp = 2;  // 16 GPUs: two nodes each
  s.pools = {a, b};
  const auto p = place_instances(s, nullptr);
  EXPECT_EQ(p[0][3].node, 0);
  EXPECT_EQ(p[0][4].node, 1);
  EXPECT_EQ(p[1][0].node, 2);
  EXPECT_EQ(p[1][0].nodes, 2);
  EXPECT_EQ(p[1][1].node, 4);
}

struct BadNetwork {
  const char* patch;
  const char* pointer;
  const char* message;
};

TEST(NetworkDecode, ErrorsNameTheirPointer) {
  const BadNetwork cases[] = {
      {R"([{"op": "add", "path": "/network", "value": 3}])", "/network", "expected an object"},
      {R"([{"op": "add", "path": "/network", "value": {"gpus_per_nodes": 8}}])",
       "/network/gpus_per_nodes", "unknown key"},
      {R"([{"op": "add", "path": "/network", "value": {"gpus_per_node": 0}}])",
       "/network/gpus_per_node", "[1, 1024]"},
      {R"([{"op": "add", "path": "/network", "value": {"nic": "per_rack"}}])", "/network/nic",
       "per_rack"},
      {R"([{"op": "add", "path": "/network", "value": {"switch_hops": -1}}])",
       "/network/switch_hops", "[0, 64]"},
      {R"([{"op": "add", "path": "/network", "value": {"placement": [0]}}])", "/network/placement",
       "expected an object"},
      {R"([{"op": "add", "path": "/network", "value": {"placement": {"q": [0]}}}])",
       "/network/placement/q", "no pool is named"},
      {R"([{"op": "add", "path": "/network", "value": {"placement": {"p": [0, 1]}}}])",
       "/network/placement/p", "places 2 instances, expected 1"},
      {R"([{"op": "add", "path": "/network", "value": {"placement": {"p": [1.5]}}}])",
       "/network/placement/p/0", "a node index"},
      {R"([{"op": "add", "path": "/network", "value": {"placement": {"p": "0"}}}])",
       "/network/placement/p", "expected an array"},
      {R"([{"op": "add", "path": "/pools/0/parallelism", "value": {"tp": 8}},
           {"op": "add", "path": "/network", "value": {"placement": {"p": [0], "d": [0]}}}])",
       "/network/placement/d/0", "node 0 would hold 9 GPUs, more than gpus_per_node 8"},
      {R"([{"op": "add", "path": "/pools/0/parallelism", "value": {"tp": 1024, "pp": 8}},
           {"op": "add", "path": "/network", "value": {"gpus_per_node": 1,
            "placement": {"p": [0]}}}])",
       "/network/placement/p/0", "spans 8192 nodes"},
  };
  for (const BadNetwork& c : cases) {
    const DecodeResult r = decode_patched(c.patch);
    EXPECT_FALSE(r.scenario) << c.patch;
    EXPECT_TRUE(has(r, c.pointer, c.message))
        << "expected at " << c.pointer << ": " << c.message << "\ngot:\n"
        << all(r);
  }
}

}  // namespace
}  // namespace blis::scenario
