// Determinism across platforms: a small scenario run end to end with the product pieces
// (scenario decoder, workload, vLLM engine, latency kernel) gives one digest, asserted by the
// same constant natively and in WebAssembly. If a deliberate change moves it (a calibration, an
// engine rule), update the constant in the same commit; the WASM tier then proves the two
// builds still agree.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

constexpr const char* kScenario = R"({
  "schema": "blis/scenario/v1", "name": "golden", "seed": 42,
  "horizon": {"duration_s": 4, "drain": true},
  "pools": [{"name": "p", "role": "unified", "instances": 2, "hardware": "H100-SXM-80GB",
             "model": "meta-llama/Llama-3.1-8B-Instruct", "parallelism": {"tp": 1, "pp": 1, "dp": 1},
             "engine": {"kind": "vllm", "release": "0.32.0",
                        "args": {"max_model_len": 4096, "max_num_seqs": 16, "max_num_batched_tokens": 512}}}],
  "router": {"policy": "weighted", "scorers": [{"name": "prefix-cache", "weight": 2},
             {"name": "queue-depth", "weight": 1}, {"name": "kv-utilization", "weight": 1}],
             "signal_staleness_ms": 20},
  "workload": {"clients": [{"name": "c", "load": {"rate": 12, "arrival": "poisson"},
    "prompt_tokens": {"dist": "lognormal", "mean": 600, "std": 250, "min": 16, "max": 2000},
    "output_tokens": {"dist": "exponential", "mean": 60, "min": 2, "max": 400},
    "prefix": {"groups": 3, "tokens": 256}, "timeout_s": 3}]},
  "slo": {"ttft_ms": 200, "itl_ms": 20},
  "outputs": {"timeseries_interval_ms": 250, "per_request": true}
})";

constexpr const char* kGoldenDigest = "260b1f407f07c93d";

TEST(GoldenDigest, SmallScenarioHasTheSameDigestNativelyAndInWasm) {
  Simulation sim;
  const Diagnostics ds = sim.load(kScenario, scenario::DecodeOptions{});
  ASSERT_FALSE(has_errors(ds)) << format_diagnostic(ds.front());
  sim.run();
  ASSERT_TRUE(sim.done());
  const auto s = nlohmann::json::parse(sim.summary_json(0));
  EXPECT_GT(s["requests"]["finished"].get<int>(), 30);
  EXPECT_GT(s["sim"]["steps"].get<int>(), 100);
  EXPECT_EQ(sim.digest(), kGoldenDigest);
  EXPECT_EQ(s["digest"].get<std::string>(), sim.digest());
}

}  // namespace
}  // namespace blis::cluster
