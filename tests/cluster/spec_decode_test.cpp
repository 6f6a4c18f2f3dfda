// Speculative decoding in the cluster: a client's acceptance model (decoding, its pointer
// errors, the draws), the drafter's price, and whole runs with the product pieces (fewer
// steps per token, the same tokens, vllm:spec_decode_* metrics).

#include <gtest/gtest.h>

#include <map>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "cluster/kernel_step_cost.h"
#include "cluster/simulation.h"
#include "cluster/spec_acceptance.h"
#include "kernel/drafter_cost.h"
#include "scenario/scenario_decode.h"
#include "sim_harness.h"

namespace blis::cluster {
namespace {

using nlohmann::json;

// A small one-instance run; `spec` is the speculative_config (or null), `acceptance` the
// client's spec_acceptance (or null).
std::string scenario_text(const json& spec, const json& acceptance) {
  json doc = json::parse(R"({
    "schema": "blis/scenario/v1", "name": "spec", "seed": 7,
    "horizon": {"duration_s": 3, "drain": true},
    "pools": [{"name": "p", "role": "unified", "instances": 1, "hardware": "H100-SXM-80GB",
               "model": "meta-llama/Llama-3.1-8B-Instruct",
               "parallelism": {"tp": 1, "pp": 1, "dp": 1},
               "engine": {"kind": "vllm", "release": "0.32.0",
                          "args": {"max_model_len": 4096, "max_num_seqs": 32,
                                   "max_num_batched_tokens": 8192, "async_scheduling": false}}}],
    "router": {"policy": "round-robin"},
    "workload": {"clients": [{"name": "c", "load": {"rate": 6, "arrival": "poisson"},
      "prompt_tokens": {"dist": "constant", "value": 400},
      "output_tokens": {"dist": "constant", "value": 120}}]},
    "slo": {"ttft_ms": 500, "itl_ms": 50},
    "outputs": {"timeseries_interval_ms": 500, "per_request": true}
  })");
  if (!spec.is_null()) doc["pools"][0]["engine"]["args"]["speculative_config"] = spec;
  if (!acceptance.is_null()) doc["workload"]["clients"][0]["spec_acceptance"] = acceptance;
  return doc.dump();
}

json ngram(double rate) {
  return {{"method", "ngram"}, {"num_speculative_tokens", 3}, {"acceptance_rate", rate}};
}

struct SpecRun {
  json summary;
  std::string digest, csv, metrics;
};

SpecRun run_spec(const std::string& text) {
  Simulation sim;
  testing::load_and_run(sim, text);
  return {json::parse(sim.summary_json(0)), sim.digest(), sim.requests_csv(), sim.metrics_text(0)};
}

// requests.csv's output_tokens by request id.
std::map<std::string, std::string> output_tokens(const std::string& csv) {
  std::map<std::string, std::string> out;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header: id,...,output_tokens is the 9th column
  while (std::getline(in, line)) {
    std::istringstream f(line);
    std::string cell, id;
    for (int i = 0; std::getline(f, cell, ','); ++i) {
      if (i == 0) id = cell;
      if (i == 8) out[id] = cell;
    }
  }
  return out;
}

double itl_mean(const SpecRun& r) {
  return r.summary["itl_ms"]["mean"].get<double>();
}

std::vector<std::string> pointers(const std::string& text) {
  std::vector<std::string> ps;
  for (const auto& d : scenario::decode_scenario(text).diagnostics)
    if (d.severity == Severity::kError) ps.push_back(d.pointer);
  return ps;
}

TEST(SpecDecode, ClientAcceptanceDecodes) {
  const auto r =
      scenario::decode_scenario(scenario_text(ngram(0.5), {{"per_position", {0.9, 0.6, 0.3}}}));
  ASSERT_TRUE(r.scenario.has_value());
  const auto& a = r.scenario->workload.clients[0].spec_acceptance;
  ASSERT_TRUE(a.has_value());
  EXPECT_FALSE(a->acceptance_rate.has_value());
  EXPECT_EQ(a->per_position, (std::vector<double>{0.9, 0.6, 0.3}));
  const auto r2 = scenario::decode_scenario(scenario_text(ngram(0.5), {{"acceptance_rate", 0.25}}));
  ASSERT_TRUE(r2.scenario.has_value());
  EXPECT_EQ(*r2.scenario->workload.clients[0].spec_acceptance->acceptance_rate, 0.25);
}

TEST(SpecDecode, BadAcceptanceNamesItsPointer) {
  const std::string base = "/workload/clients/0/spec_acceptance";
  EXPECT_EQ(pointers(scenario_text(ngram(0.5), {{"per_position", {0.5, 0.7}}})),
            std::vector<std::string>{base + "/per_position/1"});  // increases
  EXPECT_EQ(pointers(scenario_text(ngram(0.5), {{"per_position", {1.5}}})),
            std::vector<std::string>{base + "/per_position/0"});
  EXPECT_EQ(pointers(scenario_text(ngram(0.5), {{"per_position", json::array()}})),
            std::vector<std::string>{base + "/per_position"});
  EXPECT_EQ(pointers(scenario_text(ngram(0.5), {{"per_position", "x"}})),
            std::vector<std::string>{base + "/per_position"});
  EXPECT_EQ(pointers(scenario_text(ngram(0.5), {{"acceptance_rate", -0.1}})),
            std::vector<std::string>{base + "/acceptance_rate"});
  EXPECT_EQ(
      pointers(scenario_text(ngram(0.5), {{"acceptance_rate", 0.5}, {"per_position", {0.5}}})),
      std::vector<std::string>{base});
  EXPECT_EQ(pointers(scenario_text(ngram(0.5), json::object())), std::vector<std::string>{base});
  EXPECT_EQ(pointers(scenario_text(ngram(0.5), 3)), std::vector<std::string>{base});
  const auto unknown = pointers(scenario_text(ngram(0.5), {{"acceptance_rate", 0.5}, {"k", 1}}));
  EXPECT_EQ(unknown, std::vector<std::string>{base + "/k"});
}

TEST(SpecDecode, AcceptanceWithoutSpecDecodeIsAWarning) {
  const auto r = scenario::decode_scenario(scenario_text(nullptr, {{"acceptance_rate", 0.5}}));
  ASSERT_TRUE(r.scenario.has_value());
  bool warned = false;
  for (const auto& d : r.diagnostics) {
    EXPECT_NE(d.severity, Severity::kError) << format_diagnostic(d);
    warned = warned || (d.pointer == "/workload/clients/0/spec_acceptance" &&
                        d.severity == Severity::kWarning);
  }
  EXPECT_TRUE(warned);
}

TEST(SpecDecode, DrawsFollowThePerPositionRates) {
  scenario::SpecAcceptance m;
  m.per_position = {0.8, 0.5, 0.2};
  Rng a = Rng::stream(1, "spec/x"), b = Rng::stream(1, "spec/x");
  std::int64_t past[4] = {0, 0, 0, 0};
  constexpr int kDraws = 200000;
  for (int i = 0; i < kDraws; ++i) {
    const std::int32_t n = draw_accepted(m, 4, a);
    ASSERT_EQ(n, draw_accepted(m, 4, b));  // same stream, same draws
    ASSERT_LE(n, 3);                       // nothing accepted past the list
    for (int p = 0; p < n; ++p) ++past[p];
  }
  EXPECT_NEAR(past[0] / double(kDraws), 0.8, 0.005);
  EXPECT_NEAR(past[1] / double(kDraws), 0.5, 0.005);
  EXPECT_NEAR(past[2] / double(kDraws), 0.2, 0.005);
  scenario::SpecAcceptance r;
  r.acceptance_rate = 0.5;
  EXPECT_DOUBLE_EQ(accepted_past(r, 0), 0.5);
  EXPECT_DOUBLE_EQ(accepted_past(r, 2), 0.125);
}

engine::Batch decode_batch(int n, int context, int spec) {
  engine::Batch b;
  for (int i = 0; i < n; ++i) {
    engine::ScheduledRequest r;
    r.key = static_cast<engine::RequestKey>(i);
    r.num_tokens = 1 + spec;
    r.num_spec_tokens = spec;
    r.context_before = context;
    r.samples = true;
    b.requests.push_back(r);
  }
  b.total_tokens = b.decode_tokens = n * (1 + spec);
  b.num_sampling = n;
  return b;
}

kernel::Deployment deployment(const std::string& model) {
  kernel::Deployment d;
  EXPECT_TRUE(
      kernel::make_deployment(catalog::Catalog::builtin(), "H100-SXM-80GB", model, 1, &d).empty());
  return d;
}

TEST(SpecDecode, VerificationAndDraftersCostMorePerStep) {
  const kernel::Deployment d = deployment("meta-llama/Llama-3.1-8B-Instruct");
  KernelStepCost plain(d);
  const auto t0 = plain.price(decode_batch(32, 1000, 0));
  const auto t3 = plain.price(decode_batch(32, 1000, 3));  // verification: 4 tokens each
  EXPECT_GT(t3.gpu, t0.gpu);
  const engine::Batch b = decode_batch(32, 1000, 3);
  // n-gram: CPU search, grows with the history scanned.
  const kernel::DrafterCost ng = kernel::DrafterCost::ngram(3);
  EXPECT_GT(ng.price_us(b), 0);
  EXPECT_GT(ng.price_us(decode_batch(32, 4000, 3)), ng.price_us(b));
  // EAGLE head: k passes of one layer, cheaper than the target's step, more with k.
  const kernel::Deployment head = kernel::eagle_head_deployment(d);
  const kernel::DrafterCost e1 = kernel::DrafterCost::passes(head, 1);
  const kernel::DrafterCost e3 = kernel::DrafterCost::passes(head, 3);
  EXPECT_GT(e1.price_us(b), 0);
  EXPECT_GT(e3.price_us(b), e1.price_us(b));
  EXPECT_LT(e1.price_us(b), static_cast<double>(t3.gpu));
  // A draft model (a smaller model of the catalog) costs more than one layer of the target.
  kernel::Deployment draft = d;
  draft.model = *catalog::Catalog::builtin().find_model("Qwen/Qwen2.5-7B-Instruct");
  EXPECT_GT(kernel::DrafterCost::passes(draft, 3).price_us(b), e3.price_us(b));
  KernelStepCost with(d);
  with.set_drafter(ng);
  EXPECT_EQ(with.price(b).gpu, t3.gpu + static_cast<SimTime>(ng.price_us(b) + 0.5));
  EXPECT_EQ(kernel::DrafterCost().price_us(b), 0);
}

TEST(SpecDecode, ZeroAcceptanceGivesTheSameTokensButCostsMore) {
  const SpecRun off = run_spec(scenario_text(nullptr, nullptr));
  const SpecRun zero = run_spec(scenario_text(ngram(0.0), nullptr));
  EXPECT_EQ(output_tokens(off.csv), output_tokens(zero.csv));
  EXPECT_EQ(off.summary["requests"]["finished"], zero.summary["requests"]["finished"]);
  EXPECT_GT(itl_mean(zero), itl_mean(off));  // k + 1 tokens verified, none kept, plus drafting
}

TEST(SpecDecode, HigherAcceptanceLowersItlAndIsDeterministic) {
  const SpecRun off = run_spec(scenario_text(nullptr, nullptr));
  const SpecRun low = run_spec(scenario_text(ngram(0.3), nullptr));
  const SpecRun high = run_spec(scenario_text(ngram(0.8), nullptr));
  EXPECT_LT(itl_mean(high), itl_mean(low));
  EXPECT_LT(itl_mean(high), itl_mean(off));
  // 1 + accepted tokens per verification: the same tokens in fewer engine steps.
  EXPECT_LT(high.summary["sim"]["steps"].get<std::int64_t>(),
            off.summary["sim"]["steps"].get<std::int64_t>());
  EXPECT_EQ(output_tokens(off.csv), output_tokens(high.csv));
  EXPECT_EQ(run_spec(scenario_text(ngram(0.8), nullptr)).digest, high.digest);
  // A client's model overrides the pool's rate.
  const SpecRun client = run_spec(scenario_text(ngram(0.3), {{"per_position", {0.9, 0.8, 0.7}}}));
  EXPECT_LT(itl_mean(client), itl_mean(low));
  EXPECT_EQ(run_spec(scenario_text(ngram(0.3), {{"per_position", {0.9, 0.8, 0.7}}})).digest,
            client.digest);
}

TEST(SpecDecode, MetricsReportDraftsAndAcceptance) {
  const SpecRun r = run_spec(scenario_text(ngram(0.6), nullptr));
  for (const char* family :
       {"vllm:spec_decode_num_drafts_total{", "vllm:spec_decode_num_draft_tokens_total{",
        "vllm:spec_decode_num_accepted_tokens_total{", "position=\"0\"", "position=\"2\""}) {
    EXPECT_NE(r.metrics.find(family), std::string::npos) << family;
  }
  const SpecRun off = run_spec(scenario_text(nullptr, nullptr));
  EXPECT_EQ(off.metrics.find("vllm:spec_decode_num_drafts_total{"), std::string::npos);
}

}  // namespace
}  // namespace blis::cluster
