// The metrics/*.prom text of every instance (Simulation::metrics_text, what `blis run`
// writes): vLLM's registry at 8d9b52f7, with the KV connector's families first where one
// runs, and nothing outside the metrics manifest.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "engine/vllm/metrics/manifest.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

// An example with a short horizon (its pools and connectors unchanged).
std::string short_example(const std::string& name) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / name, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  nlohmann::json doc = nlohmann::json::parse(ss.str());
  doc["horizon"]["duration_s"] = 5;
  return doc.dump();
}

// Family names of an exposition, in order, as stored (counters without "_total").
std::vector<std::string> families(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# TYPE ", 0) != 0) continue;
    std::string name = line.substr(7, line.find(' ', 7) - 7);
    if (line.size() > 8 && line.compare(line.size() - 8, 8, " counter") == 0 && name.size() > 6 &&
        name.compare(name.size() - 6, 6, "_total") == 0)
      name.resize(name.size() - 6);
    out.push_back(name);
  }
  return out;
}

std::size_t count_prefix(const std::vector<std::string>& names, const std::string& prefix) {
  std::size_t n = 0;
  for (const std::string& s : names) n += s.rfind(prefix, 0) == 0 ? 1 : 0;
  return n;
}

std::vector<std::vector<std::string>> run_and_collect(const std::string& example) {
  Simulation sim;
  const Diagnostics ds = sim.load(short_example(example), scenario::DecodeOptions{});
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds.front()));
  if (has_errors(ds)) return {};
  sim.run();
  std::vector<std::vector<std::string>> out;
  for (std::size_t i = 0; i < sim.instance_count(); ++i)
    out.push_back(families(sim.metrics_text(i)));
  return out;
}

void expect_in_manifest(const std::vector<std::string>& names) {
  std::set<std::string> listed;
  for (const auto& e : vllm::metrics::metrics_manifest()) listed.insert(e.name);
  for (const std::string& n : names) EXPECT_EQ(listed.count(n), 1u) << n << " not in the manifest";
}

TEST(MetricsProm, PdPoolsExportTheNixlFamiliesFirst) {
  const auto instances = run_and_collect("pd-disaggregation.json");
  ASSERT_EQ(instances.size(), 4u);
  for (const auto& names : instances) {
    ASSERT_GT(names.size(), 8u);
    EXPECT_EQ(names[0], "vllm:nixl_xfer_time_seconds");
    EXPECT_EQ(count_prefix(names, "vllm:nixl_"), 7u);
    EXPECT_EQ(names[7], "vllm:estimated_flops_per_gpu");
    EXPECT_EQ(count_prefix(names, "vllm:kv_offload_"), 0u);
    EXPECT_EQ(names.back(), "vllm:cache_config_info");
    expect_in_manifest(names);
  }
}

TEST(MetricsProm, CpuOffloadExportsTheOffloadingFamilies) {
  const auto instances = run_and_collect("cpu-offload.json");
  ASSERT_EQ(instances.size(), 1u);
  const auto& names = instances[0];
  ASSERT_GT(names.size(), 17u);
  EXPECT_EQ(names[0], "vllm:kv_offload_total_bytes");
  EXPECT_EQ(count_prefix(names, "vllm:kv_offload_"), 16u);
  EXPECT_EQ(names[16], "vllm:estimated_flops_per_gpu");
  expect_in_manifest(names);
}

TEST(MetricsProm, PlainPoolsExportTheBaseRegistry) {
  const auto instances = run_and_collect("default.json");
  ASSERT_FALSE(instances.empty());
  for (const auto& names : instances) {
    EXPECT_EQ(names[0], "vllm:estimated_flops_per_gpu");
    EXPECT_EQ(count_prefix(names, "vllm:nixl_") + count_prefix(names, "vllm:kv_offload_"), 0u);
    for (const char* gone : {"vllm:prompt_tokens_recomputed", "vllm:request_num_preemptions"})
      EXPECT_EQ(std::count(names.begin(), names.end(), gone), 0) << gone;
    expect_in_manifest(names);
  }
}

}  // namespace
}  // namespace blis::cluster
