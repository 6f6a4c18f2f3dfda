// The metrics manifest (blis metrics-manifest): the checked-in files equal its output, and
// it agrees with what the recorder exports in every configuration that changes the registry.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "engine/vllm/metrics/manifest.h"
#include "script.h"
#include "test_files.h"

namespace blis::vllm::metrics {
namespace {

using blis::test::read_file;

// name -> type of every family some configuration registers (registry view, so families
// without children count too).
std::map<std::string, std::string> exported_families() {
  std::map<std::string, std::string> out;
  std::vector<RecorderConfig> configs;
  RecorderConfig base = testing::basic_config();
  base.cache_config_info = {{"block_size", "16"}};
  configs.push_back(base);
  RecorderConfig spec = base;
  spec.num_speculative_tokens = 2;
  spec.lora_enabled = true;
  configs.push_back(spec);
  for (ConnectorMetrics c : {ConnectorMetrics::kNixl, ConnectorMetrics::kOffloading}) {
    RecorderConfig k = base;
    k.connector = c;
    configs.push_back(k);
  }
  RecorderConfig threshold = base;  // store_threshold >= 2 adds vllm:kv_offload_stores_skipped
  threshold.connector = ConnectorMetrics::kOffloading;
  threshold.offload_store_threshold = true;
  configs.push_back(threshold);
  for (const RecorderConfig& c : configs) {
    MetricsRecorder rec(c, 0);
    for (const auto& f : rec.prometheus().describe()) out[f.name] = f.type;
  }
  return out;
}

TEST(Manifest, CheckedInJsonIsTheCommandsOutput) {
  const std::string path = std::string(BLIS_SOURCE_DIR) + "/docs/metrics-manifest.json";
  EXPECT_EQ(read_file(path), manifest_json())
      << "regenerate with: blis metrics-manifest --update-docs .";
}

TEST(Manifest, MetricsDocShowsTheGeneratedTable) {
  const std::string doc = read_file(std::string(BLIS_SOURCE_DIR) + "/docs/metrics.md");
  const std::size_t begin = doc.find(kManifestBegin);
  const std::size_t end = doc.find(kManifestEnd);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::size_t stop = end + std::string(kManifestEnd).size() + 1;
  EXPECT_EQ(doc.substr(begin, stop - begin), manifest_markdown())
      << "regenerate with: blis metrics-manifest --update-docs .";
}

TEST(Manifest, EveryExportedFamilyIsListed) {
  std::map<std::string, const ManifestEntry*> listed;
  for (const ManifestEntry& e : metrics_manifest()) {
    EXPECT_TRUE(listed.emplace(e.name, &e).second) << "listed twice: " << e.name;
    EXPECT_EQ(std::string(e.name).rfind("vllm:", 0), 0u) << e.name;
    EXPECT_STRNE(e.why, "") << e.name;
  }
  for (const auto& [name, type] : exported_families()) {
    const auto it = listed.find(name);
    ASSERT_NE(it, listed.end()) << "exported but not in the manifest: " << name;
    EXPECT_EQ(type, it->second->type) << name;
  }
}

TEST(Manifest, EveryExactOrDerivedFamilyIsExported) {
  const std::map<std::string, std::string> exported = exported_families();
  std::size_t simulated = 0;
  for (const ManifestEntry& e : metrics_manifest()) {
    if (e.cls == ManifestClass::kUnavailable) continue;
    ++simulated;
    EXPECT_EQ(exported.count(e.name), 1u)
        << manifest_class_name(e.cls) << " but not exported: " << e.name;
  }
  EXPECT_GE(simulated, 60u);
}

}  // namespace
}  // namespace blis::vllm::metrics
