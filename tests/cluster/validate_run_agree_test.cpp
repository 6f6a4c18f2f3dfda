// `validate` and `run` agree (issue 12): documents at the edges of the decoder's checks either
// fail to decode or load into a Simulation without an error. Each edge used to pass validate
// and then fail when the run started.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::cluster {
namespace {

using nlohmann::json;

json base() {
  return json::parse(R"({
    "schema": "blis/scenario/v1", "seed": 3, "horizon": {"max_requests": 20},
    "pools": [{"name": "main", "hardware": "H100-SXM-80GB",
               "model": "meta-llama/Llama-3.1-8B-Instruct",
               "engine": {"args": {"max_model_len": 8192}}}],
    "workload": {"clients": [{"name": "chat", "load": {"rate": 5},
                              "prompt_tokens": {"dist": "constant", "value": 512},
                              "output_tokens": {"dist": "constant", "value": 64}}]}
  })");
}

using ::blis::testing::all_diagnostics;

TEST(ValidateRunAgree, EdgeDocumentsDecodeIffTheyLoad) {
  std::vector<json> docs;
  for (const json& blocks : {json(1), json(2), json(512), json(513)}) {
    json d = base();
    d["pools"][0]["engine"]["args"]["num_gpu_blocks_override"] = blocks;
    docs.push_back(d);
  }
  for (const json& gib : {json(1e-6), json(0.001), json(0.002), json(4)}) {
    json d = base();
    d["pools"][0]["engine"]["args"]["kv_offloading_size"] = gib;
    docs.push_back(d);
  }
  for (const json& bytes : {json("9T"), json("70G"), json("1G")}) {
    json d = base();
    d["pools"][0]["engine"]["args"]["kv_cache_memory_bytes"] = bytes;
    docs.push_back(d);
  }
  // Data parallelism on a dense model: vLLM runs its ranks as independent engine cores
  // (v1/engine/core.py run_engine_core) and so does the cluster (dense_dp_engine.h): validate
  // accepts it and the run loads it.
  {
    json d = base();
    d["pools"][0]["parallelism"] = {{"dp", 2}};
    docs.push_back(d);
    const scenario::DecodeResult r = scenario::decode_scenario(d.dump());
    EXPECT_TRUE(r.scenario.has_value()) << all_diagnostics(r.diagnostics);
  }
  std::size_t loaded = 0;
  for (const auto& d : docs) {
    const scenario::DecodeResult r = scenario::decode_scenario(d.dump());
    if (!r.scenario) continue;  // refused up front: fine
    ++loaded;
    Simulation sim;
    const Diagnostics ds = sim.load(*r.scenario);
    EXPECT_FALSE(has_errors(ds)) << d["pools"][0]["engine"]["args"].dump() << "\n"
                                 << all_diagnostics(ds);
  }
  EXPECT_GE(loaded, 4u);  // the edges that fit (513 blocks, 4 GiB offload, 70G, 1G) do run
}

// The same diagnostics, warnings included, from validate and from load: an instance over two
// nodes with no scale-out fabric used to be warned about at load only (wasm_api fuzzer).
TEST(ValidateRunAgree, PlacementWarningsComeFromTheDecoder) {
  json d = base();
  d["pools"][0]["model"] = "meta-llama/Llama-3.1-70B-Instruct";
  d["pools"][0]["parallelism"] = {{"tp", 8}, {"pp", 2}};
  const std::string text = d.dump();
  const scenario::DecodeResult r = scenario::decode_scenario(text);
  ASSERT_TRUE(r.scenario.has_value()) << all_diagnostics(r.diagnostics);
  bool warned = false;
  for (const auto& x : r.diagnostics) warned |= x.pointer == "/pools/0/parallelism";
  EXPECT_TRUE(warned) << all_diagnostics(r.diagnostics);
  Simulation sim;
  const Diagnostics loaded = sim.load(text, scenario::DecodeOptions{});
  EXPECT_EQ(all_diagnostics(loaded), all_diagnostics(r.diagnostics));
}

}  // namespace
}  // namespace blis::cluster
