// LoRA in the cluster: requests carry their adapter to the engine (max_loras scheduling),
// the worker's CPU cache and GPU slots are LRU, and adapter loads and the punica kernels
// add to step times.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/lora_residency.h"
#include "cluster/run_summary.h"
#include "cluster/simulation.h"
#include "kernel/deployment.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

using test::run_summary;

// Two clients, one adapter each, every request uses it; a small step budget so both
// adapters' requests compete for the same steps.
std::string two_adapters(int max_loras, int max_cpu_loras) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "schema": "blis/scenario/v1", "seed": 3, "horizon": {"duration_s": 20, "drain": true},
    "pools": [{"name": "p", "hardware": "H100-SXM-80GB", "model": "meta-llama/Llama-3.1-8B-Instruct",
               "engine": {"release": "0.32.0", "args": {"max_model_len": 4096, "enable_lora": true,
                          "max_lora_rank": 64}}}],
    "workload": {"clients": [
      {"name": "a", "load": {"rate": 8}, "prompt_tokens": {"dist": "constant", "value": 300},
       "output_tokens": {"dist": "constant", "value": 100},
       "adapters": [{"name": "A", "rank": 64, "share": 1}]},
      {"name": "b", "load": {"rate": 8}, "prompt_tokens": {"dist": "constant", "value": 300},
       "output_tokens": {"dist": "constant", "value": 100},
       "adapters": [{"name": "B", "rank": 64, "share": 1}]}]}
  })");
  j["pools"][0]["engine"]["args"]["max_loras"] = max_loras;
  j["pools"][0]["engine"]["args"]["max_cpu_loras"] = max_cpu_loras;
  return j.dump();
}

TEST(LoraCluster, OneSlotSerializesTwoAdapters) {
  const nlohmann::json one = run_summary(two_adapters(1, 2));
  const nlohmann::json two = run_summary(two_adapters(2, 2));
  ASSERT_TRUE(one.contains("requests"));
  ASSERT_TRUE(two.contains("requests"));
  EXPECT_EQ(one["requests"]["finished"], one["requests"]["arrived"]);
  EXPECT_EQ(two["requests"]["finished"], two["requests"]["arrived"]);
  // max_loras 1: a step runs one adapter's requests, the other's wait (skipped_waiting).
  EXPECT_GT(one["e2e_ms"]["mean"].get<double>(), 1.2 * two["e2e_ms"]["mean"].get<double>());
  const auto& l1 = one["instances"][0]["lora"];
  const auto& l2 = two["instances"][0]["lora"];
  // Two slots hold both adapters after their first use; one slot swaps whenever the running
  // adapter's requests drain (under steady load the other adapter's requests starve behind
  // them, as in vLLM: the skipped request goes back to the head of the queue each step).
  EXPECT_EQ(l2["gpu_loads"].get<int>(), 2);
  EXPECT_EQ(l2["cpu_loads"].get<int>(), 2);
  EXPECT_GE(l1["gpu_loads"].get<int>(), 2);
  EXPECT_EQ(l1["cpu_loads"].get<int>(), 2);  // the CPU cache holds both
  EXPECT_GE(l1["load_ms"].get<double>(), l2["load_ms"].get<double>());
  EXPECT_GT(l2["load_ms"].get<double>(), 0);
  EXPECT_GT(l2["compute_ms"].get<double>(), 0);
  std::cout << "e2e mean max_loras=1 " << one["e2e_ms"]["mean"] << " ms, max_loras=2 "
            << two["e2e_ms"]["mean"] << " ms; lora " << l1 << " / " << l2 << "\n";
}

TEST(LoraCluster, RunsAreDeterministicAndTheExampleUsesEveryAdapter) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / "multi-lora.json");
  std::ostringstream ss;
  ss << in.rdbuf();
  std::string d1, d2;
  const nlohmann::json s = run_summary(ss.str(), &d1);
  run_summary(ss.str(), &d2);
  EXPECT_EQ(d1, d2);
  ASSERT_TRUE(s.contains("instances"));
  const auto& l = s["instances"][0]["lora"];
  // Three adapters, two CPU entries: the cache misses again and again.
  EXPECT_GT(l["cpu_loads"].get<int>(), 3);
  EXPECT_GT(l["load_ms"].get<double>(), 0);
}

// The residency rules alone: LRU in both tiers, CPU eviction frees the GPU slot too.
TEST(LoraResidency, LruSlotsAndCache) {
  kernel::Deployment d;
  ASSERT_FALSE(has_errors(kernel::make_deployment(catalog::Catalog::builtin(), "H100-SXM-80GB",
                                                  "meta-llama/Llama-3.1-8B-Instruct", 1, &d)));
  auto cost = std::make_shared<kernel::LoraCost>(d, 16);
  catalog::Fabric host;
  host.bandwidth_bytes_per_s = 64e9;
  host.efficiency = 1;
  LoraResidency r(cost, host, /*max_loras=*/2, /*max_cpu_loras=*/3, 16, {{1, 16}, {2, 8}});
  auto batch = [](std::vector<std::int32_t> ids) {
    engine::Batch b;
    for (auto id : ids) b.requests.push_back({0, 1, 0, 0, 0, true, id});
    return b;
  };
  EXPECT_GT(r.apply(batch({1, 2})), 0);
  EXPECT_EQ(r.active(), (std::vector<std::int32_t>{1, 2}));
  r.apply(batch({3}));  // evicts 1 (oldest) from the slots; the cache holds 1, 2, 3
  EXPECT_EQ(r.active(), (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(r.cached(), (std::vector<std::int32_t>{1, 2, 3}));
  r.apply(batch({4}));  // the cache evicts 1; slots evict 2
  EXPECT_EQ(r.cached(), (std::vector<std::int32_t>{2, 3, 4}));
  EXPECT_EQ(r.active(), (std::vector<std::int32_t>{3, 4}));
  EXPECT_EQ(r.counters().cpu_loads, 4u);
  EXPECT_EQ(r.counters().gpu_loads, 4u);
  // Llama-3.1-8B, rank 16, bf16: 16 x 32 layers x (3x4096+6144 + 4096+4096 + 2x4096+28672 +
  // 14336+4096) x 2 bytes = 83,886,080 bytes (80 MiB); over 64 GB/s that is ~1.31 ms.
  EXPECT_EQ(cost->adapter_bytes(16), 83886080);
  EXPECT_NEAR(cost->load_us(cost->adapter_bytes(16), host), 1310.7, 1.0);
  EXPECT_EQ(r.apply(batch({0})), 0);  // base-model requests cost nothing
}

}  // namespace
}  // namespace blis::cluster
