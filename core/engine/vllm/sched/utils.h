#pragma once
// Stop check (vllm v1/core/sched/utils.py check_stop), run after every appended token.

#include <cstdint>

#include "engine/vllm/request.h"

namespace blis::vllm {

// Order (utils.py check_stop): min_tokens first (overrides everything), then EOS, then the
// stop token ids (setting stop_reason), then length (num_tokens >= max_model_len or outputs
// >= max_tokens). Sets the finished status and returns true when the request must stop. EOS is
// the last token equal to eos_token_id, or (synthetic ids) the output count eos_at_output.
bool check_stop(Request& r, std::int32_t max_model_len);

}  // namespace blis::vllm
