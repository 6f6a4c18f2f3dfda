// The KV blocks a trainval scenario's run gets (tests/accuracy/trainval/<run>/scenario.json,
// sized by the cluster's backend as `blis run` sizes it) against the blocks vLLM 0.15.1
// logged for that run (measured.json, "GPU KV cache size" / 16). The scenarios select
// engine.memory_profile "vllm-0.15"; tests/kernel/kv_capacity_trainval_test.cpp checks the
// same counts on the kernel alone, and the Llama-4-Scout known gap there.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/vllm_backend.h"
#include "diagnostics_text.h"
#include "kernel/deployment.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

using ::blis::testing::all_diagnostics;

// The dense runs (Llama-4-Scout's hybrid layout has its own known gap).
constexpr const char* kDenseRuns[] = {
    "60-llama-3-1-70b-tp4-general-lite-4-1",         "61-llama-3-1-70b-tp4-codegen-4-1",
    "62-mistral-nemo-12b-tp2-general-lite-2-1",      "63-mistral-nemo-12b-tp1-codegen-1-1",
    "64-qwen2-5-7b-instruct-tp1-roleplay-1-1",       "65-01-ai-yi-34b-tp2-general-lite-2-1",
    "66-qwen2-5-7b-instruct-tp1-reasoning-lite-1-1", "67-llama-2-7b-hf-tp1-reasoning-lite-1-1",
};

std::string read_run_file(const std::string& run, const std::string& file) {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/tests/accuracy/trainval/" + run + "/" + file,
                   std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// The scenario's pool 0 as the cluster sizes it: KV blocks per instance.
std::int64_t scenario_blocks(const std::string& text, std::string* why) {
  const DecodeResult r = decode_scenario(text);
  if (!r.scenario) {
    *why = all_diagnostics(r.diagnostics);
    return 0;
  }
  cluster::VllmBackend backend;
  cluster::PoolResources res;
  const Diagnostics ds = backend.prepare_pool(*r.scenario, 0, res);
  if (has_errors(ds)) *why = all_diagnostics(ds);
  return res.gpu_blocks;
}

double error_of(std::int64_t vllm, std::int64_t ours) {
  return (static_cast<double>(ours) - static_cast<double>(vllm)) / static_cast<double>(vllm);
}

TEST(TrainvalKv, ScenarioRunsWithinTwoPercentOfTheLoggedBlocks) {
  for (const char* run : kDenseRuns) {
    const std::string text = read_run_file(run, "scenario.json");
    const auto doc = nlohmann::json::parse(text, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << run;
    EXPECT_EQ(doc["pools"][0]["engine"]["memory_profile"], kernel::kMemoryProfileVllm015) << run;
    const auto measured =
        nlohmann::json::parse(read_run_file(run, "measured.json"), nullptr, false);
    ASSERT_FALSE(measured.is_discarded()) << run;
    const std::int64_t logged = measured["kv_blocks"]["total_kv_blocks"].get<std::int64_t>();
    std::string why;
    const std::int64_t ours = scenario_blocks(text, &why);
    ASSERT_TRUE(why.empty()) << run << ": " << why;
    const double e = error_of(logged, ours);
    std::printf("[ trainval ] %-48s vLLM %6lld scenario %6lld %+6.2f%%\n", run,
                static_cast<long long>(logged), static_cast<long long>(ours), 100.0 * e);
    EXPECT_LT(std::fabs(e), 0.02) << run;
  }
}

// The key is what moves the count: the same scenario with the current profile (vLLM >= 0.21
// subtracts its CUDA graph estimate) gets fewer blocks.
TEST(TrainvalKv, CurrentProfileGetsFewerBlocks) {
  const char* run = "60-llama-3-1-70b-tp4-general-lite-4-1";
  auto doc = nlohmann::json::parse(read_run_file(run, "scenario.json"));
  std::string why;
  const std::int64_t legacy = scenario_blocks(doc.dump(), &why);
  ASSERT_TRUE(why.empty()) << why;
  doc["pools"][0]["engine"]["memory_profile"] = kernel::kMemoryProfileCurrent;
  const std::int64_t current = scenario_blocks(doc.dump(), &why);
  ASSERT_TRUE(why.empty()) << why;
  EXPECT_GT(current, 0);
  EXPECT_LT(current, legacy);
}

}  // namespace
}  // namespace blis::scenario
