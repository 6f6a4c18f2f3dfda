// Router epp with the flowControl feature gate, end to end: an overloaded instance behind
// the EPP's flow controller (concurrency-detector, so saturation is exact): the critical
// client's requests go first while the sheddable client's wait, the band capacity rejects
// the overflow (HTTP 429 upstream), a TTL evicts requests that waited too long (503), the
// queue drains once arrivals stop, and pools[].labels reach the label selector.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

// One instance; "chat" (priority 0: the EPP's band 0) and "batch" (vLLM priority 1: the
// EPP's band -1, sheddable), each sending `rate` requests/s for 10 s.
nlohmann::json flow_scenario(double rate, const nlohmann::json& flow_control) {
  nlohmann::json j = nlohmann::json::parse(R"({
    "schema": "blis/scenario/v1", "seed": 3, "horizon": {"duration_s": 10, "drain": true},
    "pools": [{"name": "u", "instances": 1, "hardware": "H100-SXM-80GB",
               "model": "meta-llama/Llama-3.1-8B-Instruct",
               "engine": {"release": "0.32.0", "args": {"max_model_len": 4096}}}],
    "router": {"policy": "epp"},
    "workload": {"clients": [
      {"name": "chat", "load": {"rate": 4}, "priority": 0,
       "prompt_tokens": {"dist": "constant", "value": 256},
       "output_tokens": {"dist": "constant", "value": 64}},
      {"name": "batch", "load": {"rate": 4}, "priority": 1,
       "prompt_tokens": {"dist": "constant", "value": 256},
       "output_tokens": {"dist": "constant", "value": 64}}]}
  })");
  for (auto& c : j["workload"]["clients"]) c["load"]["rate"] = rate;
  j["router"]["epp_config"] = {
      {"featureGates", {"flowControl"}},
      {"plugins",
       {{{"type", "concurrency-detector"}, {"parameters", {{"maxConcurrency", 4}}}},
        {{"type", "queue-scorer"}},
        {{"type", "max-score-picker"}}}},
      {"saturationDetector", {{"pluginRef", "concurrency-detector"}}},
      {"flowControl", flow_control}};
  return j;
}

struct FlowRun {
  nlohmann::json summary;
  std::map<std::string, double> ttft_mean_ms;  // per client, finished requests
  std::map<std::string, int> finished, rejected;
};

FlowRun run_flow(const nlohmann::json& sc) {
  FlowRun out;
  Simulation sim;
  const Diagnostics ds = sim.load(sc.dump(), scenario::DecodeOptions{});
  for (const auto& d : ds) EXPECT_NE(d.severity, Severity::kError) << format_diagnostic(d);
  if (has_errors(ds)) return out;
  sim.run();
  EXPECT_TRUE(sim.done());
  out.summary = nlohmann::json::parse(sim.summary_json(0));
  // requests.csv: id,client,instance,arrival_s,first_token_s,finish_s,...,status (column 10)
  std::istringstream csv(sim.requests_csv());
  std::string line;
  std::getline(csv, line);
  std::map<std::string, double> sum;
  while (std::getline(csv, line)) {
    std::vector<std::string> f;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) f.push_back(cell);
    if (f.size() < 11) continue;
    if (f[10] == "rejected") ++out.rejected[f[1]];
    if (f[10] != "finished") continue;
    sum[f[1]] += (std::stod(f[4]) - std::stod(f[3])) * 1000.0;
    ++out.finished[f[1]];
  }
  for (const auto& [c, s] : sum) out.ttft_mean_ms[c] = s / out.finished[c];
  return out;
}

TEST(EppFlowRouting, SheddableBandWaitsWhileTheCriticalBandGoesFirst) {
  const FlowRun r = run_flow(flow_scenario(4, nlohmann::json::object()));
  const auto& fc = r.summary["flow_control"];
  ASSERT_TRUE(fc.is_object());
  // Everything arrived was queued and, after the arrivals stopped, dispatched: the queue
  // drains as saturation falls.
  const auto arrived = r.summary["requests"]["arrived"].get<std::uint64_t>();
  EXPECT_EQ(fc["enqueued"].get<std::uint64_t>(), arrived);
  EXPECT_EQ(fc["dispatched"].get<std::uint64_t>(), arrived);
  EXPECT_EQ(fc["queued"], 0);
  EXPECT_EQ(r.summary["requests"]["finished"].get<std::uint64_t>(), arrived);
  EXPECT_GT(fc["max_queued"].get<std::uint64_t>(), 10u);  // overloaded: a real queue
  // The critical client's mean TTFT is a fraction of the sheddable one's.
  ASSERT_EQ(r.ttft_mean_ms.count("chat"), 1u);
  ASSERT_EQ(r.ttft_mean_ms.count("batch"), 1u);
  EXPECT_LT(r.ttft_mean_ms.at("chat") * 3, r.ttft_mean_ms.at("batch"))
      << r.ttft_mean_ms.at("chat") << " vs " << r.ttft_mean_ms.at("batch");
}

TEST(EppFlowRouting, CapacityOverflowRejectsAndTtlEvicts) {
  // The sheddable band holds 3 requests; the rest of its overflow is refused (429).
  const FlowRun cap =
      run_flow(flow_scenario(4, {{"priorityBands", {{{"priority", -1}, {"maxRequests", 3}}}}}));
  const auto& fc = cap.summary["flow_control"];
  EXPECT_GT(fc["rejected_capacity"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(cap.summary["requests"]["rejected"], fc["rejected_capacity"]);
  EXPECT_EQ(cap.summary["requests"]["finished"].get<std::uint64_t>() +
                fc["rejected_capacity"].get<std::uint64_t>(),
            cap.summary["requests"]["arrived"].get<std::uint64_t>());
  // Per band, highest first: only the sheddable band (-1) refuses, and it waits longer.
  const auto& bands = fc["bands"];
  ASSERT_EQ(bands.size(), 2u);
  EXPECT_EQ(bands[0]["priority"], 0);
  EXPECT_EQ(bands[1]["priority"], -1);
  EXPECT_EQ(bands[0]["rejected_capacity"], 0);
  EXPECT_EQ(bands[1]["rejected_capacity"], fc["rejected_capacity"]);
  EXPECT_LE(bands[1]["max_queued"].get<std::uint64_t>(), 3u);
  EXPECT_LT(bands[0]["wait_ms_mean"].get<double>(), bands[1]["wait_ms_mean"].get<double>());
  // Only batch requests are refused.
  EXPECT_EQ(cap.rejected.count("chat"), 0u);
  EXPECT_GT(cap.rejected.at("batch"), 0);

  // A 2 s TTL: requests that wait longer are evicted (503), counted as rejected.
  const FlowRun ttl = run_flow(flow_scenario(4, {{"defaultRequestTTL", "2s"}}));
  const auto& ft = ttl.summary["flow_control"];
  EXPECT_GT(ft["evicted_ttl"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(ttl.summary["requests"]["rejected"], ft["evicted_ttl"]);
  EXPECT_LE(ft["wait_ms_max"].get<double>(), 2000.0);
}

TEST(EppFlowRouting, NoQueueingWithoutLoad) {
  // Under the concurrency limit every request dispatches at its arrival.
  const FlowRun r = run_flow(flow_scenario(0.5, nlohmann::json::object()));
  EXPECT_EQ(r.summary["flow_control"]["wait_ms_max"].get<double>(), 0.0);
}

TEST(EppFlowRouting, DisaggregatedRequestsPassThroughFlowControl) {
  // P/D behind the EPP with flow control: every request is queued, dispatched, prefilled on
  // P (always-disagg-pd-decider) and decoded on D; the in-flight counts it holds on both
  // endpoints are released, so the queue drains.
  nlohmann::json j = flow_scenario(4, nlohmann::json::object());
  j["pools"] = nlohmann::json::array();
  for (const char* role : {"prefill", "decode"}) {
    j["pools"].push_back(
        {{"name", role},
         {"role", role},
         {"instances", 1},
         {"hardware", "H100-SXM-80GB"},
         {"model", "meta-llama/Llama-3.1-8B-Instruct"},
         {"engine", {{"release", "0.32.0"}, {"args", {{"max_model_len", 4096}}}}}});
  }
  j["fabric"] = "ib-ndr";
  j["router"]["epp_config"] = nlohmann::json::parse(R"({
    "featureGates": ["flowControl"],
    "plugins": [{"type": "concurrency-detector", "parameters": {"maxConcurrency": 3}},
                {"type": "prefill-filter"}, {"type": "decode-filter"},
                {"type": "always-disagg-pd-decider"}, {"type": "max-score-picker"},
                {"type": "disagg-profile-handler",
                 "parameters": {"deciders": {"prefill": "always-disagg-pd-decider"}}}],
    "saturationDetector": {"pluginRef": "concurrency-detector"},
    "schedulingProfiles": [
      {"name": "prefill", "plugins": [{"pluginRef": "prefill-filter"}]},
      {"name": "decode", "plugins": [{"pluginRef": "decode-filter"}]}]})");
  const FlowRun r = run_flow(j);
  const auto arrived = r.summary["requests"]["arrived"].get<std::uint64_t>();
  EXPECT_GT(arrived, 40u);
  EXPECT_EQ(r.summary["requests"]["finished"].get<std::uint64_t>(), arrived);
  EXPECT_EQ(r.summary["flow_control"]["dispatched"].get<std::uint64_t>(), arrived);
  EXPECT_GT(r.summary["flow_control"]["max_queued"].get<std::uint64_t>(), 0u);
  for (const auto& i : r.summary["instances"])
    EXPECT_EQ(i["requests"]["routed"].get<std::uint64_t>(), arrived) << i["name"];
}

TEST(EppFlowRouting, StaleMetricsBlockDispatchWithAWarning) {
  // The default utilization-detector sees metrics 500 ms old as stale (> 200 ms): the pool is
  // saturated for good, nothing dispatches, and the run ends with every request queued.
  nlohmann::json j = flow_scenario(1, nlohmann::json::object());
  j["router"]["signal_staleness_ms"] = 500;
  j["router"]["epp_config"] = {{"featureGates", {"flowControl"}},
                               {"plugins", {{{"type", "queue-scorer"}}}}};
  Simulation sim;
  const Diagnostics ds = sim.load(j.dump(), scenario::DecodeOptions{});
  ASSERT_FALSE(has_errors(ds));
  bool warned = false;
  for (const auto& d : ds)
    warned = warned || (d.pointer == "/router/signal_staleness_ms" &&
                        d.message.find("never dispatch") != std::string::npos);
  EXPECT_TRUE(warned);
  sim.run();
  ASSERT_TRUE(sim.done());
  const auto s = nlohmann::json::parse(sim.summary_json(0));
  EXPECT_GT(s["requests"]["arrived"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(s["requests"]["unfinished"], s["requests"]["arrived"]);
  EXPECT_EQ(s["flow_control"]["queued"], s["requests"]["arrived"]);
}

TEST(EppFlowRouting, PoolLabelsReachTheLabelSelector) {
  nlohmann::json j = flow_scenario(1, nlohmann::json::object());
  j["pools"][0]["instances"] = 2;
  j["pools"].push_back(j["pools"][0]);
  j["pools"][0]["name"] = "gold";
  j["pools"][0]["labels"] = {{"tier", "gold"}};
  j["pools"][1]["name"] = "bronze";
  j["pools"][1]["labels"] = {{"tier", "bronze"}};
  j["router"]["epp_config"] = {
      {"plugins",
       {{{"type", "label-selector-filter"}, {"parameters", {{"matchLabels", {{"tier", "gold"}}}}}},
        {{"type", "max-score-picker"}}}}};
  const FlowRun r = run_flow(j);
  std::map<std::string, std::int64_t> routed;
  for (const auto& i : r.summary["instances"])
    routed[i["name"].get<std::string>()] = i["requests"]["routed"].get<std::int64_t>();
  EXPECT_GT(routed["gold-0"] + routed["gold-1"], 0);
  EXPECT_EQ(routed["bronze-0"] + routed["bronze-1"], 0);
}

TEST(EppFlowRouting, LabelErrorsNameThePointer) {
  nlohmann::json j = flow_scenario(1, nlohmann::json::object());
  j["pools"][0]["labels"] = {{"ok", "v"}, {"bad key!", "v"}, {"llm-d.ai/role", "decode"}};
  Simulation sim;
  const Diagnostics ds = sim.load(j.dump(), scenario::DecodeOptions{});
  std::vector<std::string> ptrs;
  for (const auto& d : ds)
    if (d.severity == Severity::kError) ptrs.push_back(d.pointer);
  EXPECT_EQ(ptrs, (std::vector<std::string>{"/pools/0/labels/bad key!",
                                            "/pools/0/labels/llm-d.ai~1role"}));
}

}  // namespace
}  // namespace blis::cluster
