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
  // FORMAT.md "Additions ...": LoRA adapter, stop conditions and the mocked drafter.
  std::int32_t lora_id = 0;        // 0 = no adapter
  std::int32_t eos_token_id = -1;  // -1 = none
  std::int32_t eos_at_output = 0;  // 1-based output index the mock emits the EOS at; 0 = never
  std::int32_t min_tokens = 0;
  std::vector<std::int32_t> stop_token_ids;
  std::vector<std::int32_t> spec_accept;  // accepted drafts per verification, cyclic
  std::vector<std::int32_t> spec_drafts;  // drafts proposed per sampling step, cyclic
};

struct CaseAbort {
  std::string id;
  std::int32_t step = 0;
  bool during_step = false;  // "phase": "during_step" (async); default "input"
};

// Input bounds, so that a small input can never make the driver allocate without limit.
inline constexpr std::int32_t kMaxGpuBlocks = 1 << 22;
inline constexpr std::int32_t kMaxModelLen = 1 << 22;
inline constexpr std::int32_t kMaxNumSeqs = 1 << 20;  // the running list is sized for it
inline constexpr std::size_t kMaxRequests = 100000;
inline constexpr std::int32_t kMaxSteps = 10000000;
// Sum over requests of their longest possible sequence (token ids held at once, at most).
inline constexpr std::int64_t kMaxTotalSequenceTokens = std::int64_t{1} << 26;
// JSON values the trace may hold in all (a step counts kTraceEntriesPerStep plus one per
// request it lists; each is some 100 bytes in memory): the run stops with a diagnostic at
// /max_steps beyond it. Case 37 (400 requests, 2000+ steps) needs about 0.3 million.
inline constexpr std::int64_t kMaxTraceEntries = 4000000;
inline constexpr std::int64_t kTraceEntriesPerStep = 30;

struct Case {
  VllmConfig config;
  nlohmann::ordered_json config_echo;  // the config with every default filled in
  bool token_fn_per_request = false;   // "token_fn": "per_request" (default "index")
  std::vector<CaseRequest> requests;
  std::vector<CaseAbort> aborts;
  std::int32_t max_steps = 0;
  // Which optional features the input switches on (each adds its output fields).
  bool has_stop_conditions = false;  // any request gives eos_token_id, eos_at_output, ...
  bool max_num_scheduled_tokens_set = false;
};

// Decodes `text`; on failure returns false with diagnostics naming the JSON pointer.
// `extension_request_keys`: request keys an ext extension has read and removed already
// (conform_ext_extension.h); they are not in `text`, but an unknown request key is matched
// against them too for its "did you mean" hint and its list of accepted keys.
bool decode_case(std::string_view text, Case& out, Diagnostics& diags,
                 const std::vector<std::string>& extension_request_keys = {});

}  // namespace blis::vllm::conform
