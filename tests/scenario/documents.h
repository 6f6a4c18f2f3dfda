#pragma once
// Scenario documents shared by the scenario tests: a small valid base for each deployment
// shape, and helpers to derive variants with JSON Patch (RFC 6902) and read data files.

#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

namespace blis::scenario::testing {

// One unified pool, one client with constant lengths.
inline nlohmann::json base_unified() {
  return nlohmann::json::parse(R"({
    "schema": "blis/scenario/v1",
    "name": "base",
    "seed": 7,
    "horizon": {"duration_s": 60},
    "pools": [{"name": "main", "hardware": "H100-SXM-80GB", "model": "meta-llama/Llama-3.1-8B-Instruct",
               "engine": {"release": "0.32.0", "args": {"max_model_len": 8192}}}],
    "workload": {"clients": [{"name": "chat", "load": {"rate": 5},
                              "prompt_tokens": {"dist": "constant", "value": 512},
                              "output_tokens": {"dist": "constant", "value": 128}}]}
  })");
}

// A prefill/decode pair joined by a fabric.
inline nlohmann::json base_pd() {
  return nlohmann::json::parse(R"({
    "schema": "blis/scenario/v1",
    "horizon": {"max_requests": 100},
    "fabric": "nvlink4",
    "pools": [{"name": "p", "role": "prefill", "hardware": "H100-SXM-80GB",
               "model": "meta-llama/Llama-3.1-8B-Instruct"},
              {"name": "d", "role": "decode", "hardware": "H100-SXM-80GB",
               "model": "meta-llama/Llama-3.1-8B-Instruct"}],
    "workload": {"clients": [{"load": {"rate": 2},
                              "prompt_tokens": {"dist": "uniform", "min": 100, "max": 2000},
                              "output_tokens": {"dist": "exponential", "mean": 200, "max": 1000}}]}
  })");
}

inline std::string patched(const nlohmann::json& base, const std::string& patch) {
  return base.patch(nlohmann::json::parse(patch)).dump(2);
}

inline std::string data_path(const std::string& name) {
  return std::string(BLIS_SOURCE_DIR) + "/tests/scenario/data/" + name;
}

inline std::string read_data(const std::string& name) {
  std::ifstream in(data_path(name), std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace blis::scenario::testing
