#pragma once
// The input of a conformance case (FORMAT.md "Input"), decoded and checked. Internal to the
// conformance driver.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/vllm/vllm_config.h"
#include "util/diagnostic.h"

namespace blis::vllm::conform {

struct CaseRequest {
  std::string id;
  std::int32_t arrival_step = 0;
  std::vector<std::int32_t> prompt;
  std::int32_t max_tokens = 0;
  std::int32_t priority = 0;
  double arrival_time = 0;
};

struct CaseAbort {
  std::string id;
  std::int32_t step = 0;
  bool during_step = false;  // "phase": "during_step" (async); default "input"
};

struct Case {
  VllmConfig config;
  nlohmann::ordered_json config_echo;  // the config with every default filled in
  bool token_fn_per_request = false;   // "token_fn": "per_request" (default "index")
  std::vector<CaseRequest> requests;
  std::vector<CaseAbort> aborts;
  std::int32_t max_steps = 0;
};

// Decodes `text`; on failure returns false with diagnostics naming the JSON pointer.
bool decode_case(std::string_view text, Case& out, Diagnostics& diags);

}  // namespace blis::vllm::conform
