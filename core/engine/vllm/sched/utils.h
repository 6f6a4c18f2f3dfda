#pragma once
// Scheduler helpers: the stop check (vllm v1/core/sched/utils.py check_stop), run after every
// appended token, and the prefill share of a scheduled chunk.

#include <algorithm>
#include <cstdint>

#include "engine/vllm/request.h"

namespace blis::vllm {

// Order (utils.py check_stop): min_tokens first (overrides everything), then EOS, then the
// stop token ids (setting stop_reason), then length (num_tokens >= max_model_len or outputs
// >= max_tokens). Sets the finished status and returns true when the request must stop. EOS is
// the last token equal to eos_token_id, or (synthetic ids) the output count eos_at_output.
bool check_stop(Request& r, std::int32_t max_model_len);

// Tokens of a scheduled chunk that are prompt or recompute tokens (the rest are decode or
// draft tokens of a request that has caught up with everything it knows).
inline std::int32_t prefill_tokens_of(const Request& r, std::int32_t computed_before,
                                      std::int32_t n) {
  const std::int32_t known = r.num_tokens() + r.num_output_placeholders;
  const bool decoding =
      r.num_output_tokens() + r.num_output_placeholders > 0 && computed_before >= known - 1;
  if (decoding) return 0;
  return std::min(n, std::max(0, known - computed_before));
}

}  // namespace blis::vllm
