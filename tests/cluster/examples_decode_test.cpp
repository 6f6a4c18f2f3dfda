// Every scenario in examples/ decodes, validates and loads (with the real decoder and
// workload; engines are test doubles here, the product run is tests/accuracy and the CLI).

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "fake_engine.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster::testing {
namespace {

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(Examples, EveryExampleDecodesAndLoads) {
  const std::filesystem::path dir = std::filesystem::path(BLIS_SOURCE_DIR) / "examples";
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    // *.sweep.json are sweeps over an example (blis/sweep/v1), beside the scenario they read.
    const std::string name = e.path().filename().string();
    const bool sweep = name.size() > 11 && name.compare(name.size() - 11, 11, ".sweep.json") == 0;
    if (e.path().extension() == ".json" && !sweep) files.push_back(e.path());
  }
  ASSERT_GE(files.size(), 16u);
  for (const auto& f : files) {
    Simulation sim([] { return std::make_unique<FakeBackend>(FakeBackendConfig{}); },
                   [](const scenario::Scenario& s) { return make_workload(s); });
    const Diagnostics ds = sim.load(read(f), scenario::DecodeOptions{});
    for (const auto& d : ds) ADD_FAILURE() << f.filename() << ": " << format_diagnostic(d);
    EXPECT_TRUE(sim.loaded()) << f.filename();
  }
}

TEST(Examples, LoadReportsDecodeErrorsWithPointers) {
  Simulation sim([] { return std::make_unique<FakeBackend>(FakeBackendConfig{}); },
                 [](const scenario::Scenario& s) { return make_workload(s); });
  const Diagnostics ds = sim.load(R"({"schema": "blis/scenario/v1", "name": "x", "bogus": 1})",
                                  scenario::DecodeOptions{});
  ASSERT_TRUE(has_errors(ds));
  bool names_bogus = false;
  for (const auto& d : ds) names_bogus = names_bogus || d.pointer == "/bogus";
  EXPECT_TRUE(names_bogus);
  EXPECT_FALSE(sim.loaded());
}

TEST(Examples, RealWorkloadDrivesTheLoop) {
  // The default example's workload (real generator) through fake engines: every request that
  // arrives finishes, and arrivals follow the scenario's stages. (The fake engine cannot
  // preempt, so it gets KV room for everything.)
  FakeBackendConfig cfg;
  cfg.engine.blocks = 1'000'000;
  Simulation sim([cfg] { return std::make_unique<FakeBackend>(cfg); },
                 [](const scenario::Scenario& s) { return make_workload(s); });
  const std::string text =
      read(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / "default.json");
  ASSERT_FALSE(has_errors(sim.load(text, scenario::DecodeOptions{})));
  sim.run();
  ASSERT_TRUE(sim.done());
  EXPECT_GT(sim.requests_finished(), 2700u);  // 20/s for 30 s, then 80/s for 30 s (Poisson)
  EXPECT_LT(sim.requests_finished(), 3300u);
  const auto summary = nlohmann::json::parse(sim.summary_json(0));
  EXPECT_EQ(summary["requests"]["unfinished"].get<int>(), 0);
  EXPECT_EQ(summary["requests"]["arrived"], summary["requests"]["finished"]);
}

}  // namespace
}  // namespace blis::cluster::testing
