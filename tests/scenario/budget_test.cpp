// Documents `validate` used to call ok and `run` then choked on (issue 12): wrong numbers from
// vLLM's human-readable integers, dimensions and speeds whose products overflow, KV settings no
// engine could hold, and work beyond any machine. Each is now an error at a pointer, with the
// estimate where there is one. Every case failed (was accepted or misread) before the fix.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "documents.h"
#include "rules/json_fields.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

using nlohmann::json;

using ::blis::testing::all_diagnostics;

// The document is refused with an error at `pointer` whose message holds `text`.
void expect_error(const json& doc, const std::string& pointer, const std::string& text) {
  const DecodeResult r = decode_scenario(doc.dump());
  bool found = false;
  for (const auto& d : r.diagnostics) {
    found |= d.severity == Severity::kError && d.pointer == pointer &&
             d.message.find(text) != std::string::npos;
  }
  EXPECT_TRUE(found) << "expected at " << pointer << ": " << text << "\ngot:\n"
                     << all_diagnostics(r.diagnostics);
  EXPECT_FALSE(r.scenario);
}

json& args(json& doc) {
  return doc["pools"][0]["engine"]["args"];
}

TEST(HumanReadableInt, ComputedAsVllmDoes) {
  using rules::parse_human_readable_int;
  // int(float(number) * mult): no integer overflow of the fraction's digits.
  EXPECT_EQ(parse_human_readable_int("1.99999999999g"), 1999999999);
  EXPECT_EQ(parse_human_readable_int("0.999999999999t"), 999999999999);
  EXPECT_EQ(parse_human_readable_int("25.6k"), 25600);
  EXPECT_EQ(parse_human_readable_int("0.1k"), 100);
  EXPECT_EQ(parse_human_readable_int("9.2t"), 9200000000000);
  EXPECT_EQ(parse_human_readable_int("32K"), 32768);
  EXPECT_EQ(parse_human_readable_int("-5"), -5);
  // vLLM's pattern is \d+(\.\d+)? before the suffix; binary suffixes take no decimals.
  EXPECT_FALSE(parse_human_readable_int(".5k"));
  EXPECT_FALSE(parse_human_readable_int("1.k"));
  EXPECT_FALSE(parse_human_readable_int("1.5K"));
  EXPECT_FALSE(parse_human_readable_int("-1k"));
  EXPECT_FALSE(parse_human_readable_int("9223372.036854775807t"));  // beyond int64
  EXPECT_FALSE(parse_human_readable_int("99999999999T"));
}

TEST(Budget, InlineModelDimensionsAreBounded) {
  json doc = testing::base_unified();
  json model = json::parse(
      testing::read_data("../../../catalog/models/meta-llama--Llama-3.1-8B-Instruct.json"));
  model["id"] = "huge/model";
  model["hidden_size"] = std::int64_t{1} << 62;
  doc["catalog"] = {{"models", {model}}};
  doc["pools"][0]["model"] = "huge/model";
  expect_error(doc, "/catalog/models/0/hidden_size", "expected an integer in [1, 262144]");
}

TEST(Budget, InlineGpuSpeedsAreBoundedSoCostsAreFinite) {
  json gpu = json::parse(testing::read_data("../../../catalog/gpus/H100-SXM-80GB.json"));
  gpu["id"] = "slow-gpu";
  gpu["hbm_bandwidth_bytes_per_s"] = 1e-300;
  json doc = testing::base_unified();
  doc["catalog"] = {{"gpus", {gpu}}};
  doc["pools"][0]["hardware"] = "slow-gpu";
  expect_error(doc, "/catalog/gpus/0/hbm_bandwidth_bytes_per_s", "expected a number in [");
  // Within the schema's bounds but absurdly slow: one step would take hours.
  gpu["hbm_bandwidth_bytes_per_s"] = 1e6;
  gpu["bf16_dense_tflops"] = 0.001;
  gpu["fp8_dense_tflops"] = 0;
  doc["catalog"] = {{"gpus", {gpu}}};
  expect_error(doc, "/pools/0/hardware", "one engine step");
}

TEST(Budget, UsableMemoryAboveMemoryIsRefused) {
  json gpu = json::parse(testing::read_data("../../../catalog/gpus/H100-SXM-80GB.json"));
  gpu["id"] = "odd-gpu";
  gpu["usable_memory_bytes"] = 2 * gpu["memory_bytes"].get<std::int64_t>();
  json doc = testing::base_unified();
  doc["catalog"] = {{"gpus", {gpu}}};
  doc["pools"][0]["hardware"] = "odd-gpu";
  expect_error(doc, "/catalog/gpus/0/usable_memory_bytes", "at most memory_bytes x 1.074");
}

TEST(Budget, KvSettingsAnEngineCannotHold) {
  json doc = testing::base_unified();
  args(doc)["kv_cache_memory_bytes"] = "9T";
  expect_error(doc, "/pools/0/engine/args/kv_cache_memory_bytes", "bytes one \"H100-SXM-80GB\"");
  doc = testing::base_unified();
  args(doc)["num_gpu_blocks_override"] = std::int64_t{1} << 31;
  // Beyond int32 (vLLM's num_gpu_blocks_override is an int): the rules pack refuses it.
  expect_error(doc, "/pools/0/engine/args/num_gpu_blocks_override", "is out of range");
}

TEST(Budget, CpuOffloadNeedsPrefixCachingAndABlock) {
  json doc = testing::base_unified();
  args(doc)["kv_offloading_size"] = 8;
  args(doc)["enable_prefix_caching"] = false;
  expect_error(doc, "/pools/0/engine/args/enable_prefix_caching", "prefix caching on");
  doc = testing::base_unified();
  args(doc)["kv_offloading_size"] = 1e-6;  // about 1 KiB: less than one block
  expect_error(doc, "/pools/0/engine/args/kv_offloading_size", "holds no KV block");
}

TEST(Budget, ExpectedRequestsAreBounded) {
  json doc = testing::base_unified();
  doc["horizon"] = {{"duration_s", 1e9}};
  doc["workload"]["clients"][0]["load"] = {{"rate", 1e9}};
  expect_error(doc, "/workload/clients/0/load", "requests, whose per-request rows take about");
  // max_requests bounds it.
  doc["horizon"]["max_requests"] = 1000;
  doc["outputs"] = {{"timeseries_interval_ms", 1e6}};
  EXPECT_TRUE(decode_scenario(doc.dump()).scenario)
      << all_diagnostics(decode_scenario(doc.dump()).diagnostics);
  doc = testing::base_unified();
  doc["horizon"] = {{"max_requests", 1000000000000LL}};
  expect_error(doc, "/horizon/max_requests", "1e+12 requests");
}

TEST(Budget, GammaBurstsAreBounded) {
  json doc = testing::base_unified();
  doc["workload"]["clients"][0]["load"]["arrival"] = {{"process", "gamma"}, {"cv", 1e6}};
  expect_error(doc, "/workload/clients/0/load/arrival/cv", "(0, 1000]");
}

TEST(Budget, InstancesTimesBlocksAreBounded) {
  json doc = testing::base_unified();
  json pools = json::array();
  for (int i = 0; i < 100; ++i) {
    json p = doc["pools"][0];
    p["name"] = "p" + std::to_string(i);
    p["instances"] = 10000;
    pools.push_back(p);
  }
  doc["pools"] = pools;
  expect_error(doc, "/pools", "KV blocks in all");
}

// Hostile-corpus finding: the KV blocks of every DP rank were left out (one Mixtral instance of
// dp 1024 runs 1024 engines, each with its own KV cache: 1.9 GB of RSS, accepted).
TEST(Budget, DataParallelRanksHoldTheirOwnBlocks) {
  json doc = testing::base_unified();
  doc["pools"][0]["model"] = "mistralai/Mixtral-8x7B-v0.1";
  doc["pools"][0]["parallelism"] = {{"tp", 2}, {"pp", 1}, {"dp", 1024}};
  doc["pools"][0]["instances"] = 1;
  expect_error(doc, "/pools", "KV blocks in all");
}

// Hostile-corpus finding (UBSan): an inline fabric of efficiency 1e-300 between the stages of
// a pp 2 pool priced a hand-off at 7.9e301 us and converted it to an integer.
TEST(Budget, FabricEfficiencyHasAFloor) {
  json doc = testing::base_unified();
  json fabric = {{"id", "x-fabric"},     {"name", "x"},
                 {"scope", "scale-out"}, {"bandwidth_bytes_per_s", 50e9},
                 {"latency_us", 50},     {"efficiency", 1e-300},
                 {"source", "test"}};
  doc["catalog"] = {{"fabrics", json::array({fabric})}};
  doc["fabric"] = "x-fabric";
  doc["network"] = {{"gpus_per_node", 1}};
  doc["pools"][0]["parallelism"] = {{"tp", 1}, {"pp", 2}, {"dp", 1}};
  const DecodeResult r = decode_scenario(doc.dump());
  EXPECT_FALSE(r.scenario);
  bool found = false;
  for (const auto& d : r.diagnostics)
    found |= d.pointer.size() >= 11 && d.pointer.substr(d.pointer.size() - 11) == "/efficiency";
  EXPECT_TRUE(found) << all_diagnostics(r.diagnostics);
}

TEST(Budget, TimeSeriesSamplesAreBounded) {
  json doc = testing::base_unified();
  doc["horizon"] = {{"duration_s", 1e9}, {"max_requests", 100}};
  doc["outputs"] = {{"timeseries_interval_ms", 1}};
  expect_error(doc, "/outputs/timeseries_interval_ms", "time-series samples");
}

TEST(Budget, UsersAreBounded) {
  json doc = testing::base_unified();
  json clients = json::array();
  for (int i = 0; i < 20; ++i) {
    clients.push_back({{"name", "c" + std::to_string(i)},
                       {"load", {{"concurrency", 1000000}}},
                       {"prompt_tokens", {{"dist", "constant"}, {"value", 10}}},
                       {"output_tokens", {{"dist", "constant"}, {"value", 10}}}});
  }
  doc["workload"]["clients"] = clients;
  doc["horizon"] = {{"max_requests", 100}};
  expect_error(doc, "/workload/clients", "users in all");
}

TEST(Budget, TraceTokensAreCountedBeforeTheRun) {
  std::string csv = "arrival_s,prompt_tokens,output_tokens\n";
  for (int i = 0; i < 1000; ++i) csv += "0,16777216,16777216\n";
  json doc = testing::base_unified();
  doc["workload"] = {{"trace_csv", {{"csv", csv}}}};
  expect_error(doc, "/workload/trace_csv", "prompt and output tokens");
}

TEST(Budget, WithoutPerRequestRowsResultsStayBoundedWhateverTheCount) {
  // Percentiles switch to a bounded sketch beyond Percentiles::kExactLimit requests, so only
  // per-request rows grow with a run's length: 1e8 short requests fit without them.
  json doc = testing::base_unified();
  doc["horizon"] = {{"max_requests", 100000000}};
  doc["workload"]["clients"][0]["prompt_tokens"] = {{"dist", "constant"}, {"value", 20}};
  doc["workload"]["clients"][0]["output_tokens"] = {{"dist", "constant"}, {"value", 20}};
  doc["outputs"] = {{"per_request", false}, {"timeseries_interval_ms", 1e6}};
  const DecodeResult r = decode_scenario(doc.dump());
  for (const auto& d : r.diagnostics)
    EXPECT_EQ(d.message.find("requests, whose"), std::string::npos) << d.message;
  doc["outputs"]["per_request"] = true;
  expect_error(doc, "/horizon/max_requests", "whose per-request rows take about");
}

TEST(Budget, ATraceArrivingAtOnceIsABurst) {
  std::string csv = "arrival_s,prompt_tokens,output_tokens\n";
  for (int i = 0; i < 200000; ++i) csv += "0,4000,100\n";
  json doc = testing::base_unified();
  doc["workload"] = {{"trace_csv", {{"csv", csv}}}};
  doc["outputs"] = {{"per_request", false}};
  expect_error(doc, "/workload/trace_csv", "requests would wait at once");
}

TEST(Budget, UnboundedTailsNeedAMax) {
  json doc = testing::base_unified();
  doc["workload"]["clients"][0]["prompt_tokens"] = {
      {"dist", "lognormal"}, {"mean", 1e6}, {"std", 1e7}};
  expect_error(doc, "/workload/clients/0/prompt_tokens/max", "one sample in 1e15");
  doc["workload"]["clients"][0]["prompt_tokens"]["max"] = 4096;
  const DecodeResult r = decode_scenario(doc.dump());
  for (const auto& d : r.diagnostics) EXPECT_NE(d.pointer, "/workload/clients/0/prompt_tokens/max");
  // A narrow tail needs none.
  doc["workload"]["clients"][0]["prompt_tokens"] = {{"dist", "normal"}, {"mean", 500}, {"std", 50}};
  EXPECT_TRUE(decode_scenario(doc.dump()).scenario);
  doc["workload"]["clients"][0]["prompt_tokens"] = {{"dist", "exponential"}, {"mean", 1e6}};
  expect_error(doc, "/workload/clients/0/prompt_tokens/max", "exponential");
}

TEST(Budget, OneKvBlockHoldsNothing) {
  json doc = testing::base_unified();
  // validate said ok; the engine then refused it. vLLM's own check names it first
  // (_check_enough_kv_cache_memory, the rules pack's message).
  args(doc)["num_gpu_blocks_override"] = 1;
  expect_error(doc, "/pools/0/engine/args/num_gpu_blocks_override", "512 KV blocks are needed");
  args(doc)["num_gpu_blocks_override"] = 2;  // one usable block cannot hold 8192 tokens
  expect_error(doc, "/pools/0/engine/args/num_gpu_blocks_override", "512 KV blocks are needed");
  args(doc)["num_gpu_blocks_override"] = 513;  // 512 x 16 = 8192: fits
  EXPECT_TRUE(decode_scenario(doc.dump()).scenario);
}

TEST(Budget, RequestsWaitingAtOnceAreBounded) {
  // A gamma process with cv 1000 at 5/s: bursts of about a million arrivals at one instant.
  json doc = testing::base_unified();
  doc["workload"]["clients"][0]["load"]["arrival"] = {{"process", "gamma"}, {"cv", 1000}};
  expect_error(doc, "/workload/clients/0/load", "gamma bursts of 1e+06");
  // An open loop far beyond what one H100 serves: the backlog grows for the whole run.
  doc = testing::base_unified();
  doc["horizon"] = {{"duration_s", 3000}};
  doc["workload"]["clients"][0]["load"] = {{"rate", 1000}};
  doc["outputs"] = {{"per_request", false}};
  expect_error(doc, "/workload/clients/0/load", "outrun the pools'");
  // A million closed-loop users each hold a request.
  doc = testing::base_unified();
  doc["workload"]["clients"][0]["load"] = {{"concurrency", 1000000}};
  doc["horizon"] = {{"max_requests", 1000}};
  expect_error(doc, "/workload", "1e+06 closed-loop users");
}

}  // namespace
}  // namespace blis::scenario
