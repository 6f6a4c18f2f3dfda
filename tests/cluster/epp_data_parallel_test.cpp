// The EPP's data-parallel-profile-handler (llm-d dp_profile_handler.go): exactly one
// scheduling profile; each DP rank of a dp > 1 instance is an endpoint with its own signals,
// the profile picks a rank and that rank serves the request (vLLM's data_parallel_rank), not
// the rank vLLM's internal DP load balancer would pick. And the LoRA probe over DP ranks.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cluster/epp/config.h"
#include "cluster/lora_residency.h"
#include "cluster/router.h"
#include "kernel/deployment.h"
#include "run_summary.h"

namespace blis::cluster {
namespace {

using nlohmann::json;

const std::string kDpTestQueue = R"({"plugins": [{"type": "data-parallel-profile-handler"},
    {"type": "queue-scorer"}, {"type": "max-score-picker"}],
    "schedulingProfiles": [{"name": "default", "plugins": [{"pluginRef": "queue-scorer"}]}]})";

std::string dp_first_error(const std::string& text) {
  epp::EppConfig c;
  const Diagnostics ds = epp::parse_epp_config(text, "/x", c);
  return ds.empty() ? std::string() : ds[0].pointer + ": " + ds[0].message;
}

TEST(EppDataParallel, ConfigLoadsWithItsPrimaryPort) {
  epp::EppConfig c;
  ASSERT_TRUE(epp::parse_epp_config(kDpTestQueue, "/x", c).empty());
  EXPECT_TRUE(c.data_parallel);
  EXPECT_EQ(c.primary_port, 8000);  // ProfileHandlerFactory's default
  EXPECT_EQ(c.profile_handler, 0);
  const std::string yaml =
      "plugins:\n- type: data-parallel-profile-handler\n  parameters:\n    primaryPort: 9000\n"
      "- type: queue-scorer\n";
  ASSERT_TRUE(epp::parse_epp_config(yaml, "/x", c).empty());
  EXPECT_EQ(c.primary_port, 9000);
  // 0 is not checked upstream ("if parameters.PrimaryPort != 0").
  EXPECT_EQ(dp_first_error(R"({"plugins": [{"type": "data-parallel-profile-handler",
      "parameters": {"primaryPort": 0}}, {"type": "queue-scorer"}]})"),
            "");
  // Without the handler nothing is data-parallel.
  ASSERT_TRUE(epp::parse_epp_config(R"({"plugins": [{"type": "queue-scorer"}]})", "/x", c).empty());
  EXPECT_FALSE(c.data_parallel);
}

TEST(EppDataParallel, ConfigErrorsNameThePointer) {
  const std::string port = R"({"plugins": [{"type": "data-parallel-profile-handler",
      "parameters": {"primaryPort": 70000}}, {"type": "queue-scorer"}]})";
  EXPECT_EQ(dp_first_error(port),
            "/x/plugins/0/parameters/primaryPort: invalid primaryPort: must be between 1 and "
            "65535, got 70000");
  EXPECT_NE(dp_first_error(R"({"plugins": [{"type": "data-parallel-profile-handler",
      "parameters": {"primaryPort": -1}}, {"type": "queue-scorer"}]})")
                .find("got -1"),
            std::string::npos);
  EXPECT_NE(dp_first_error(R"({"plugins": [{"type": "data-parallel-profile-handler",
      "parameters": {"primaryPort": "8000"}}]})")
                .find("/x/plugins/0/parameters/primaryPort: expected an integer"),
            std::string::npos);
  EXPECT_NE(dp_first_error(R"({"plugins": [{"type": "data-parallel-profile-handler",
      "parameters": {"primaryPrt": 8000}}]})")
                .find("did you mean \"primaryPort\""),
            std::string::npos);
  // Pick: "Data Parallel profile handler requires exactly one scheduling profile".
  const std::string two = R"({"plugins": [{"type": "queue-scorer"},
      {"type": "data-parallel-profile-handler"}], "schedulingProfiles": [
      {"name": "a", "plugins": [{"pluginRef": "queue-scorer"}]},
      {"name": "b", "plugins": [{"pluginRef": "queue-scorer"}]}]})";
  EXPECT_EQ(dp_first_error(two),
            "/x/plugins/1: data-parallel-profile-handler requires exactly one scheduling "
            "profile; 2 are configured");
  // YAML: the line and column of the handler's entry.
  const std::string yaml =
      "plugins:\n- type: queue-scorer\n- type: data-parallel-profile-handler\n"
      "schedulingProfiles:\n- name: a\n  plugins:\n  - pluginRef: queue-scorer\n"
      "- name: b\n  plugins:\n  - pluginRef: queue-scorer\n";
  epp::EppConfig c;
  const Diagnostics ds = epp::parse_epp_config(yaml, "/router/epp_config", c);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].pointer, "/router/epp_config");
  EXPECT_NE(ds[0].message.find("line 3, column 3 (/plugins/1): data-parallel-profile-handler"),
            std::string::npos)
      << ds[0].message;
}

// Three instances: 0 and 2 without DP, 1 with two ranks (endpoints 3 and 4).
Router dp_test_router(const std::string& epp_config) {
  scenario::Router cfg;
  cfg.policy = "epp";
  cfg.epp_config = epp_config;
  return Router(cfg, 3, {0, 1, 2}, 16, 1, Rng(3), {1, 2, 1});
}

TEST(EppDataParallel, RankEndpointsReplaceTheirInstance) {
  Router r = dp_test_router(kDpTestQueue);
  ASSERT_EQ(r.endpoints(), 5u);
  EXPECT_TRUE(r.ranks_are_endpoints(1));
  EXPECT_FALSE(r.ranks_are_endpoints(0));
  EXPECT_EQ(r.endpoint_of(1, 0), 3);
  EXPECT_EQ(r.endpoint_of(1, 1), 4);
  EXPECT_EQ(r.endpoint_of(2, 1), 2);  // no ranks: the instance itself
  EXPECT_EQ(r.endpoint(4).instance, 1);
  EXPECT_EQ(r.endpoint(4).rank, 1);
  SignalBoard board(5, 0);
  const std::vector<std::int32_t> prompt(64, 5);
  epp::Request req;
  req.prompt = &prompt;
  // The instance's own (summed) queue is long; its rank 1 is empty: the queue scorer reads
  // the ranks, so rank 1 of instance 1 wins.
  board.publish(0, 0, {5, 0, 0});
  board.publish(1, 0, {9, 0, 0});
  board.publish(2, 0, {5, 0, 0});
  board.publish(3, 0, {9, 0, 0});
  board.publish(4, 0, {0, 0, 0});
  epp::Decision d = r.route(req, 0, board);
  EXPECT_EQ(d.target, 1);
  EXPECT_EQ(d.rank, 1);
  board.publish(4, 1, {9, 0, 0});
  board.publish(2, 1, {1, 0, 0});
  d = r.route(req, 1, board);
  EXPECT_EQ(d.target, 2);
  EXPECT_EQ(d.rank, -1);
  // The in-flight counts are the rank endpoint's: the request routed to (1, 1) leaves it.
  EXPECT_EQ(r.epp()->in_flight(4), 1);
  r.on_finished(1, 64, 1);
  EXPECT_EQ(r.epp()->in_flight(4), 0);

  // Without the handler the instance is one endpoint, its summed queue loses.
  Router plain =
      dp_test_router(R"({"plugins": [{"type": "queue-scorer"}, {"type": "max-score-picker"}]})");
  EXPECT_EQ(plain.endpoints(), 3u);
  EXPECT_FALSE(plain.ranks_are_endpoints(1));
  SignalBoard b3(3, 0);
  b3.publish(0, 0, {5, 0, 0});
  b3.publish(1, 0, {9, 0, 0});
  b3.publish(2, 0, {1, 0, 0});
  d = plain.route(req, 0, b3);
  EXPECT_EQ(d.target, 2);
  EXPECT_EQ(d.rank, -1);
}

json dp_example_json(const std::string& name) {
  std::ifstream in(std::filesystem::path(BLIS_SOURCE_DIR) / "examples" / name);
  std::ostringstream ss;
  ss << in.rdbuf();
  return json::parse(ss.str());
}

// One instance of `dp` dense ranks, constant prompts of 600 tokens.
json dp_one_instance(int dp, const std::string& epp_config) {
  json d = dp_example_json("dense-data-parallel.json");
  d["horizon"] = {{"duration_s", 8}, {"drain", true}};
  d["pools"][0]["parallelism"]["dp"] = dp;
  d["router"] = {{"policy", "epp"}, {"epp_config", epp_config}};
  d["workload"]["clients"][0]["load"] = {{"rate", 24}, {"arrival", "poisson"}};
  d["workload"]["clients"][0]["prompt_tokens"] = {{"dist", "constant"}, {"value", 600}};
  d["workload"]["clients"][0]["output_tokens"] = {{"dist", "constant"}, {"value", 50}};
  d["outputs"] = json::object();
  return d;
}

std::vector<std::int64_t> dp_per_rank(const json& summary) {
  std::vector<std::int64_t> v;
  for (const auto& n : summary["instances"][0]["dp"]["requests_per_rank"])
    v.push_back(n.get<std::int64_t>());
  return v;
}

const std::string kDpTestPrefixOnly = R"({"plugins": [{"type": "prefix-cache-scorer"},
    {"type": "max-score-picker"}]})";
const std::string kDpTestDpPrefixOnly = R"({"plugins": [{"type": "data-parallel-profile-handler"},
    {"type": "prefix-cache-scorer"}, {"type": "max-score-picker"}]})";

TEST(EppDataParallel, TheEppPicksTheRankNotTheInternalBalancer) {
  // Every prompt starts with the same 600-token system prompt: the prefix scorer, reading
  // each rank's own index, sends every request after the first to the rank that holds it.
  // vLLM's internal balancer spreads the same requests over all four ranks.
  auto shared = [](const std::string& cfg) {
    json d = dp_one_instance(4, cfg);
    json& c = d["workload"]["clients"][0];
    c.erase("prompt_tokens");
    c.erase("output_tokens");
    c["shared_prefix"] = {{"system_prompts", 1},
                          {"users_per_prompt", 8},
                          {"system_prompt_tokens", 600},
                          {"question_tokens", 20},
                          {"output_tokens", 50}};
    return d.dump();
  };
  const json lb = test::run_summary(shared(kDpTestPrefixOnly));
  const json epp = test::run_summary(shared(kDpTestDpPrefixOnly));
  ASSERT_TRUE(lb.contains("instances"));
  ASSERT_TRUE(epp.contains("instances"));
  const auto total = epp["requests"]["arrived"].get<std::int64_t>();
  EXPECT_GT(total, 100);
  EXPECT_EQ(epp["requests"]["finished"], epp["requests"]["arrived"]);
  const std::vector<std::int64_t> a = dp_per_rank(lb), b = dp_per_rank(epp);
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (const std::int64_t n : a) EXPECT_GT(n, total / 8);  // the balancer spreads
  int used = 0;
  for (const std::int64_t n : b) used += n > 0 ? 1 : 0;
  EXPECT_EQ(used, 1) << b[0] << " " << b[1] << " " << b[2] << " " << b[3];
  EXPECT_EQ(b[0] + b[1] + b[2] + b[3], total);
}

TEST(EppDataParallel, WithoutTheHandlerTheInstanceIsOneEndpoint) {
  // One instance, no handler: the EPP's only endpoint is the instance and vLLM's balancer
  // places every request, so the run is round robin's exactly.
  json rr = dp_one_instance(4, kDpTestQueue);
  rr["router"] = {{"policy", "round-robin"}};
  std::string d_rr, d_epp, d_dp;
  test::run_summary(rr.dump(), &d_rr);
  test::run_summary(
      dp_one_instance(4, R"({"plugins": [{"type": "queue-scorer"}, {"type": "max-score-picker"}]})")
          .dump(),
      &d_epp);
  test::run_summary(dp_one_instance(4, kDpTestQueue).dump(), &d_dp);
  EXPECT_EQ(d_rr, d_epp);
  EXPECT_NE(d_rr, d_dp);  // with it, the EPP picks the ranks
}

TEST(EppDataParallel, PreciseScorerReadsEachRanksKvEvents) {
  // Six system prompts over two ranks that cache three each: with the ranks as endpoints the
  // precise scorer (each rank's own KV events) keeps a prompt's requests on the rank that
  // caches it; the internal balancer does not look at prompts, so the ranks evict them.
  auto shared = [](bool handler) {
    const std::string cfg = std::string(R"({"plugins": [)") +
                            (handler ? R"({"type": "data-parallel-profile-handler"}, )" : "") +
                            R"({"type": "precise-prefix-cache-scorer"}, {"type": "queue-scorer"},
            {"type": "max-score-picker"}], "schedulingProfiles": [{"name": "default",
            "plugins": [{"pluginRef": "precise-prefix-cache-scorer", "weight": 2},
                        {"pluginRef": "queue-scorer"}]}]})";
    json d = dp_one_instance(2, cfg);
    json& c = d["workload"]["clients"][0];
    c.erase("prompt_tokens");
    c.erase("output_tokens");
    c["load"] = {{"rate", 12}, {"arrival", "poisson"}};
    c["shared_prefix"] = {{"system_prompts", 6},
                          {"users_per_prompt", 4},
                          {"system_prompt_tokens", 1500},
                          {"question_tokens", 50},
                          {"output_tokens", 30}};
    d["horizon"] = {{"duration_s", 20}, {"drain", true}};
    // 450 blocks (7200 tokens) a rank: three of the prompts fit, all six do not.
    d["pools"][0]["engine"]["args"]["num_gpu_blocks_override"] = 450;
    d["pools"][0]["engine"]["args"]["max_model_len"] = 4096;
    return d.dump();
  };
  const json lb = test::run_summary(shared(false));
  const json epp = test::run_summary(shared(true));
  const double hit_lb = lb["prefix_cache_hit_rate"].get<double>();
  const double hit_epp = epp["prefix_cache_hit_rate"].get<double>();
  EXPECT_GT(hit_epp, hit_lb + 0.02) << hit_epp << " vs " << hit_lb;
}

TEST(EppDataParallel, QueueScorerBalancesTheRanks) {
  const json s = test::run_summary(dp_one_instance(4, kDpTestQueue).dump());
  ASSERT_TRUE(s.contains("instances"));
  const auto total = s["requests"]["arrived"].get<std::int64_t>();
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  const std::vector<std::int64_t> b = dp_per_rank(s);
  ASSERT_EQ(b.size(), 4u);
  for (const std::int64_t n : b) EXPECT_GT(n, total / 8) << n << " of " << total;
}

TEST(EppDataParallel, TheExampleRunsOnEveryRank) {
  json d = dp_example_json("epp-data-parallel.json");
  d["horizon"] = {{"duration_s", 10}, {"drain", true}};
  d["outputs"] = json::object();
  const json s = test::run_summary(d.dump());
  ASSERT_EQ(s["instances"].size(), 2u);
  EXPECT_EQ(s["requests"]["finished"], s["requests"]["arrived"]);
  for (const json& inst : s["instances"]) {
    for (const auto& n : inst["dp"]["requests_per_rank"]) EXPECT_GT(n.get<int>(), 0);
  }
}

// Two adapters, one GPU slot per rank: with the ranks as endpoints the LoRA-affinity scorer
// keeps each adapter on a rank that holds it; vLLM's balancer, blind to adapters, makes the
// ranks swap them in and out.
TEST(EppDataParallel, LoraAffinityReadsEachRanksAdapters) {
  const std::string lora = R"({"plugins": [{"type": "lora-affinity-scorer"},
      {"type": "max-score-picker"}]})";
  const std::string dp_lora = R"({"plugins": [{"type": "data-parallel-profile-handler"},
      {"type": "lora-affinity-scorer"}, {"type": "max-score-picker"}]})";
  auto scenario = [](const std::string& cfg) {
    json d = dp_one_instance(2, cfg);
    d["pools"][0]["engine"]["args"]["enable_lora"] = true;
    d["pools"][0]["engine"]["args"]["max_loras"] = 1;
    d["pools"][0]["engine"]["args"]["max_cpu_loras"] = 2;
    d["pools"][0]["engine"]["args"]["max_lora_rank"] = 16;
    d["workload"]["clients"][0]["adapters"] = {{{"name", "A"}, {"rank", 16}, {"share", 0.5}},
                                               {{"name", "B"}, {"rank", 16}, {"share", 0.5}}};
    return d.dump();
  };
  const json lb = test::run_summary(scenario(lora));
  const json epp = test::run_summary(scenario(dp_lora));
  ASSERT_TRUE(lb["instances"][0].contains("lora")) << lb["instances"][0].dump(2);
  const auto loads_lb = lb["instances"][0]["lora"]["gpu_loads"].get<std::int64_t>();
  const auto loads_epp = epp["instances"][0]["lora"]["gpu_loads"].get<std::int64_t>();
  EXPECT_LT(loads_epp * 4, loads_lb) << loads_epp << " vs " << loads_lb;
}

TEST(EppDataParallel, ReportedAdaptersAreTheRanksUnionOrTheRanksOwn) {
  kernel::Deployment d;
  ASSERT_FALSE(has_errors(kernel::make_deployment(catalog::Catalog::builtin(), "H100-SXM-80GB",
                                                  "meta-llama/Llama-3.1-8B-Instruct", 1, &d)));
  auto cost = std::make_shared<kernel::LoraCost>(d, 16);
  catalog::Fabric host;
  host.bandwidth_bytes_per_s = 64e9;
  host.efficiency = 1;
  LoraResidency r0(cost, host, 2, 4, 16, {}), r1(cost, host, 2, 4, 16, {});
  auto batch = [](std::vector<std::int32_t> ids) {
    engine::Batch b;
    for (auto id : ids) b.requests.push_back({0, 1, 0, 0, 0, true, id});
    return b;
  };
  r0.apply(batch({1, 2}));
  r1.apply(batch({2, 3}));
  std::vector<std::int32_t> scratch;
  const std::vector<const LoraResidency*> lanes = {&r0, &r1};
  // The instance as one endpoint: every rank's adapters (rank 0's alone would miss 3).
  const std::vector<std::int32_t>* all = reported_adapters(lanes, -1, scratch);
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(*all, (std::vector<std::int32_t>{1, 2, 3}));
  // A rank endpoint: its own.
  EXPECT_EQ(*reported_adapters(lanes, 1, scratch), (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(*reported_adapters(lanes, 0, scratch), (std::vector<std::int32_t>{1, 2}));
  // One lane (no DP, or MoE's lockstep ranks): that lane for every rank.
  EXPECT_EQ(*reported_adapters({&r1}, -1, scratch), (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(*reported_adapters({&r1}, 3, scratch), (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(reported_adapters({nullptr}, -1, scratch), nullptr);
}

}  // namespace
}  // namespace blis::cluster
