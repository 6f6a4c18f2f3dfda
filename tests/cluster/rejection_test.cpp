// Requests too long for the pool's max_model_len are refused by the API server (HTTP 400)
// before they reach the engine: the run goes on, and the results count them as rejected.
#include <gtest/gtest.h>

#include "scenario/scenario_decode.h"
#include "sim_harness.h"

namespace blis::cluster {
namespace {

// Prompts of 200..1000 tokens plus 100 output tokens against max_model_len 700: the longer
// prompts cannot fit their output and are refused.
constexpr const char* kRejectionScenario = R"({
  "schema": "blis/scenario/v1", "name": "too long", "seed": 3,
  "horizon": {"max_requests": 200},
  "pools": [{"name": "p", "role": "unified", "instances": 2, "hardware": "H100-SXM-80GB",
             "model": "meta-llama/Llama-3.1-8B-Instruct",
             "engine": {"kind": "vllm", "release": "0.32.0", "args": {"max_model_len": 700}}}],
  "router": {"policy": "round-robin"},
  "workload": {"clients": [{"name": "c", "load": {"rate": 20},
    "prompt_tokens": {"dist": "uniform", "min": 200, "max": 1000},
    "output_tokens": {"dist": "constant", "value": 100}}]}
})";

TEST(Rejection, PromptPlusMaxTokensBeyondMaxModelLenIsRefusedAndCounted) {
  Simulation sim;
  const Diagnostics ds = sim.load(kRejectionScenario, scenario::DecodeOptions{});
  ASSERT_FALSE(has_errors(ds)) << format_diagnostic(ds.front());
  sim.run();
  ASSERT_TRUE(sim.done());
  const auto s = testing::summary(sim);
  const int finished = s["requests"]["finished"].get<int>();
  const int rejected = s["requests"]["rejected"].get<int>();
  EXPECT_EQ(finished + rejected, 200);
  EXPECT_GT(rejected, 50);  // prompts above 600 tokens: about half of the uniform range
  EXPECT_GT(finished, 50);
  EXPECT_EQ(s["requests"]["aborted"].get<int>(), 0);
  EXPECT_EQ(s["pools"][0]["requests"]["rejected"].get<int>(), rejected);
  EXPECT_EQ(s["instances"][0]["requests"]["rejected"].get<int>() +
                s["instances"][1]["requests"]["rejected"].get<int>(),
            rejected);
  // Every rejected row has a prompt that leaves no room for its 100 tokens, and no first
  // token; every finished row fits.
  const auto rows = testing::csv_rows(sim.requests_csv());
  for (const auto& f : rows) {
    ASSERT_EQ(f.size(), 13u) << f[0];  // ... status, ttft_ms, e2e_ms
    const int prompt = std::stoi(f[6]);
    if (f[10] == "rejected") {
      EXPECT_GT(prompt + 100, 700) << f[0];
      EXPECT_TRUE(f[4].empty()) << f[0];
      EXPECT_TRUE(f[11].empty() && f[12].empty()) << f[0];  // no latency to report
    } else {
      EXPECT_EQ(f[10], "finished") << f[0];
      EXPECT_LE(prompt + 100, 700) << f[0];
    }
  }
  EXPECT_EQ(rows.size(), 200u);
}

}  // namespace
}  // namespace blis::cluster
