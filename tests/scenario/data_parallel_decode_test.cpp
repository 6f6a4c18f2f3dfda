// `parallelism.dp` is accepted where vLLM 8d9b52f7 accepts data_parallel_size > 1: dense and
// MoE models, prefill/decode pools (NIXL) and pools with a KV connector (CPU offload). vLLM
// runs a dense model's ranks as independent engine cores (v1/engine/core.py run_engine_core)
// and gives each rank's connector its own engine_id; nothing in vllm/config/parallel.py
// refuses these combinations. Out-of-range sizes are still refused.

#include <gtest/gtest.h>

#include "diagnostics_text.h"
#include "documents.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

using ::blis::testing::all_diagnostics;

void dp_expect_accepted(const std::string& doc, int pool, int dp) {
  const DecodeResult r = decode_scenario(doc);
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  EXPECT_FALSE(has_errors(r.diagnostics)) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.scenario->pools[static_cast<std::size_t>(pool)].parallelism.dp, dp);
}

TEST(DataParallelDecode, DenseModel) {
  dp_expect_accepted(testing::patched(testing::base_unified(),
                                      R"([{"op": "add", "path": "/pools/0/parallelism",
                                        "value": {"tp": 1, "pp": 1, "dp": 4}}])"),
                     0, 4);
}

TEST(DataParallelDecode, MoeModelWithExpertParallelism) {
  dp_expect_accepted(testing::patched(testing::base_unified(),
                                      R"([{"op": "replace", "path": "/pools/0/model",
                                        "value": "Qwen/Qwen3-30B-A3B"},
                                       {"op": "add", "path": "/pools/0/parallelism",
                                        "value": {"dp": 2}},
                                       {"op": "add", "path": "/pools/0/engine/args/enable_expert_parallel",
                                        "value": true}])"),
                     0, 2);
}

TEST(DataParallelDecode, PrefillAndDecodePools) {
  const std::string doc = testing::patched(
      testing::base_pd(), R"([{"op": "add", "path": "/pools/0/parallelism", "value": {"dp": 2}},
                              {"op": "add", "path": "/pools/1/parallelism", "value": {"dp": 4}}])");
  dp_expect_accepted(doc, 0, 2);
  dp_expect_accepted(doc, 1, 4);
}

TEST(DataParallelDecode, CpuOffloadConnector) {
  dp_expect_accepted(testing::patched(testing::base_unified(),
                                      R"([{"op": "add", "path": "/pools/0/parallelism",
                                        "value": {"dp": 2}},
                                       {"op": "add", "path": "/pools/0/engine/args/kv_offloading_size",
                                        "value": 8}])"),
                     0, 2);
}

TEST(DataParallelDecode, SizeOutOfRangeIsRefusedAtTheKey) {
  for (const char* dp : {"0", "1025", "1.5"}) {
    const DecodeResult r = decode_scenario(testing::patched(
        testing::base_unified(),
        std::string(R"([{"op": "add", "path": "/pools/0/parallelism", "value": {"dp": )") + dp +
            "}}]"));
    EXPECT_FALSE(r.scenario) << dp;
    bool at_dp = false;
    for (const auto& d : r.diagnostics) at_dp |= d.pointer == "/pools/0/parallelism/dp";
    EXPECT_TRUE(at_dp) << dp << ": " << all_diagnostics(r.diagnostics);
  }
}

}  // namespace
}  // namespace blis::scenario
