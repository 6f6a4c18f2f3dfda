// encode_scenario writes a valid document with every default filled in, and decoding it
// gives the same scenario again (encode -> decode -> encode is stable).

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "documents.h"
#include "scenario/scenario_decode.h"
#include "scenario/scenario_encode.h"

namespace blis::scenario {
namespace {

using ::blis::testing::all_diagnostics;

void expect_round_trip(const std::string& text, const DecodeOptions& options = {}) {
  const DecodeResult first = decode_scenario(text, options);
  ASSERT_TRUE(first.scenario) << all_diagnostics(first.diagnostics);
  const std::string encoded = encode_scenario(*first.scenario);
  // No file access on the second pass: the trace CSV travels inline.
  const DecodeResult second = decode_scenario(encoded);
  ASSERT_TRUE(second.scenario) << all_diagnostics(second.diagnostics) << encoded;
  EXPECT_EQ(encode_scenario(*second.scenario), encoded);
  // Every default is written out: the encoded engine args carry all of vLLM's keys.
  const auto doc = nlohmann::json::parse(encoded);
  for (const auto& pool : doc["pools"]) {
    EXPECT_TRUE(pool["engine"]["args"].contains("max_num_batched_tokens"));
    EXPECT_TRUE(pool["engine"]["args"].contains("gpu_memory_utilization"));
    EXPECT_TRUE(pool["engine"]["args"].contains("async_scheduling"));
  }
  EXPECT_TRUE(doc.contains("outputs"));
  EXPECT_TRUE(doc.contains("router"));
}

TEST(RoundTrip, MinimalUnified) {
  expect_round_trip(testing::base_unified().dump());
}

TEST(RoundTrip, PrefillDecode) {
  expect_round_trip(testing::base_pd().dump());
}

TEST(RoundTrip, OffloadingAndTrace) {
  expect_round_trip(testing::read_data("unified_offload.json"));
}

TEST(RoundTrip, EveryKey) {
  DecodeOptions o;
  o.read_file = [](const std::string& path, std::string*) -> std::optional<std::string> {
    return testing::read_data(path);
  };
  expect_round_trip(testing::read_data("full.json"), o);
}

TEST(RoundTrip, MemoryProfileSurvives) {
  const std::string text = testing::patched(
      testing::base_unified(),
      R"([{"op": "add", "path": "/pools/0/engine/memory_profile", "value": "vllm-0.15"}])");
  expect_round_trip(text);
  const DecodeResult r = decode_scenario(text);
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  const auto doc = nlohmann::json::parse(encode_scenario(*r.scenario));
  EXPECT_EQ(doc["pools"][0]["engine"]["memory_profile"], "vllm-0.15");
}

TEST(RoundTrip, EncodedDefaultsAreExplicit) {
  const DecodeResult r = decode_scenario(testing::base_unified().dump());
  ASSERT_TRUE(r.scenario);
  const auto doc = nlohmann::json::parse(encode_scenario(*r.scenario));
  const auto& args = doc["pools"][0]["engine"]["args"];
  EXPECT_EQ(args["block_size"], 16);
  EXPECT_EQ(args["gpu_memory_utilization"], 0.92);
  EXPECT_EQ(args["scheduling_policy"], "fcfs");
  EXPECT_TRUE(args["kv_transfer_config"].is_null());
  EXPECT_EQ(doc["pools"][0]["parallelism"]["tp"], 1);
  EXPECT_EQ(doc["pools"][0]["engine"]["memory_profile"], "current");
  EXPECT_EQ(doc["horizon"]["drain"], true);
  EXPECT_TRUE(doc["horizon"]["max_requests"].is_null());
  EXPECT_EQ(doc["workload"]["clients"][0]["load"]["arrival"], "poisson");
}

}  // namespace
}  // namespace blis::scenario
