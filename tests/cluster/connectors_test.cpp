// KV connectors in the cluster: the P/D proxy (NIXL between a prefill and a decode pool) and
// CPU offload (OffloadingConnector), run end to end with the product pieces on the examples.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/run_summary.h"
#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

std::string read_example(const std::string& name) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

using test::run_summary;

TEST(PdDisaggregation, ExampleFinishesEveryRequestThroughBothPools) {
  const std::string text = read_example("pd-disaggregation.json");
  std::string d1, d2;
  const nlohmann::json s = run_summary(text, &d1);
  run_summary(text, &d2);
  EXPECT_EQ(d1, d2);  // deterministic
  ASSERT_TRUE(s.contains("requests"));
  EXPECT_GT(s["requests"]["finished"].get<int>(), 500);
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  EXPECT_EQ(s["requests"]["unfinished"].get<int>(), 0);
  const auto& pools = s["pools"];
  ASSERT_EQ(pools.size(), 2u);
  EXPECT_EQ(pools[0]["role"], "prefill");
  EXPECT_EQ(pools[1]["role"], "decode");
  // Every request is handed off by the prefill pool, then finished by the decode pool.
  EXPECT_EQ(pools[0]["requests"]["finished"], s["requests"]["finished"]);
  EXPECT_EQ(pools[1]["requests"]["finished"], s["requests"]["finished"]);
  // The client's TTFT includes the prefill leg, the transfer and D's one-token step.
  EXPECT_GT(pools[1]["ttft_ms"]["mean"].get<double>(), pools[0]["ttft_ms"]["mean"].get<double>());
  // Decode instances never run long prefills: their inter-token latency stays flat.
  EXPECT_LT(s["itl_ms"]["p99"].get<double>(), 2 * s["itl_ms"]["p50"].get<double>());
}

TEST(PdDisaggregation, PrefillBlocksNobodyReadsAreFreedWhenTheLeaseRunsOut) {
  // The decode pool refuses every request (its max_model_len is below each prompt), so no
  // decoder ever reads or heartbeats P's blocks: P holds each for kv_lease_duration (30 s,
  // nixl/base_scheduler.py) after its finish, not VLLM_NIXL_ABORT_REQUEST_TIMEOUT's 480 s.
  nlohmann::json doc = nlohmann::json::parse(read_example("pd-disaggregation.json"));
  doc["horizon"]["duration_s"] = 70;
  doc["workload"]["clients"][0]["load"]["rate"] = 2;
  doc["workload"]["clients"][0]["prompt_tokens"]["min"] = 1024;
  doc["pools"][1]["engine"]["args"]["max_model_len"] = 1024;
  Simulation sim;
  ASSERT_FALSE(has_errors(sim.load(doc.dump(), scenario::DecodeOptions{})));
  sim.run();
  const nlohmann::json s = nlohmann::json::parse(sim.summary_json(0));
  EXPECT_EQ(s["requests"]["rejected"].get<int>(), s["requests"]["arrived"].get<int>());
  const nlohmann::json ts = nlohmann::json::parse(sim.timeseries_json());
  const auto& cols = ts["columns"];
  auto held = [&](std::size_t row) {
    return cols["prefill-0.kv_usage"][row].get<double>() +
           cols["prefill-1.kv_usage"][row].get<double>();
  };
  // Once the first leases run out the held blocks stop growing: at 64 s they are about
  // those of the last 30 s, as at 32 s (with a 480 s hold they would have doubled).
  ASSERT_GT(cols["time_s"].size(), 65u);
  EXPECT_GT(held(32), 0.0);
  EXPECT_GT(held(64), 0.0);
  EXPECT_LT(held(64), 1.5 * held(32));
}

TEST(PdDisaggregation, RejectsUnsupportedPoolCombinationsWithPointers) {
  nlohmann::json doc = nlohmann::json::parse(read_example("pd-disaggregation.json"));
  nlohmann::json three = doc;
  three["pools"].push_back(doc["pools"][1]);
  three["pools"][2]["name"] = "decode2";
  Simulation sim;
  // The scenario decoder rejects the combination (Simulation::load runs the same check on a
  // scenario built in code: tests/cluster/simulation_test.cpp).
  Diagnostics ds = sim.load(three.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ds));
  EXPECT_EQ(ds.front().pointer, "/pools");
  EXPECT_NE(ds.front().message.find("exactly one prefill and one decode pool"), std::string::npos);
  nlohmann::json mixed = doc;
  mixed["pools"][1]["role"] = "unified";
  ds = sim.load(mixed.dump(), scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ds));
  EXPECT_FALSE(sim.loaded());
}

}  // namespace
}  // namespace blis::cluster

namespace blis::cluster {
namespace {

TEST(CpuOffload, ExampleRaisesTheHitRateAndLowersTtft) {
  std::string d1, d2, d3;
  const nlohmann::json with = run_summary(read_example("cpu-offload.json"), &d1);
  run_summary(read_example("cpu-offload.json"), &d2);
  EXPECT_EQ(d1, d2);  // deterministic
  const nlohmann::json without = run_summary(read_example("cpu-offload-baseline.json"), &d3);
  ASSERT_TRUE(with.contains("requests"));
  ASSERT_TRUE(without.contains("requests"));
  EXPECT_EQ(with["requests"]["finished"], with["requests"]["arrived"]);
  EXPECT_EQ(with["requests"]["unfinished"].get<int>(), 0);
  // The GPU prefix cache thrashes in both; the CPU tier supplies a large share on top.
  const auto& pool = with["pools"][0];
  EXPECT_GT(pool["external_prefix_cache_hit_rate"].get<double>(), 0.3);
  EXPECT_FALSE(without["pools"][0].contains("external_prefix_cache_hit_rate"));
  EXPECT_LT(with["ttft_ms"]["mean"].get<double>(), without["ttft_ms"]["mean"].get<double>());
  // request_finished never delays the free: at the end nothing is held.
  EXPECT_EQ(with["requests"]["unfinished"].get<int>(), 0);
}

// The example with its CPU tier named through kv_transfer_config and the CPU spec's
// extra_config keys (kv_offload/cpu/spec.py eviction_policy, store_threshold).
std::string offload_with(const nlohmann::json& extra) {
  nlohmann::json d = nlohmann::json::parse(read_example("cpu-offload.json"));
  nlohmann::json& a = d["pools"][0]["engine"]["args"];
  a.erase("kv_offloading_size");
  nlohmann::json e = {{"cpu_bytes_to_use", 34359738368LL}};
  if (extra.is_object()) e.update(extra);
  a["kv_transfer_config"] = {{"kv_connector", "OffloadingConnector"},
                             {"kv_role", "kv_both"},
                             {"kv_connector_extra_config", e}};
  return d.dump();
}

TEST(CpuOffload, StoreThresholdStoresOnlyReusedChunks) {
  std::string d_lru, d_arc, d_two;
  const nlohmann::json lru = run_summary(offload_with({}), &d_lru);
  const nlohmann::json arc = run_summary(offload_with({{"eviction_policy", "arc"}}), &d_arc);
  const nlohmann::json two =
      run_summary(offload_with({{"eviction_policy", "arc"}, {"store_threshold", 2}}), &d_two);
  for (const nlohmann::json* s : {&lru, &arc, &two}) {
    ASSERT_TRUE(s->contains("requests"));
    EXPECT_EQ((*s)["requests"]["finished"], (*s)["requests"]["arrived"]);
  }
  // 32 GiB never fills here: ARC evicts nothing, so it serves what LRU serves.
  EXPECT_EQ(d_arc, d_lru);
  // With store_threshold 2 a chunk is offloaded only once lookups saw it twice (a lookup
  // stops at the first miss), so far fewer prompts find their prefix on the CPU tier.
  EXPECT_NE(d_two, d_lru);
  EXPECT_LT(two["pools"][0]["external_prefix_cache_hit_rate"].get<double>(),
            0.5 * lru["pools"][0]["external_prefix_cache_hit_rate"].get<double>());
}

}  // namespace
}  // namespace blis::cluster
