#include "engine/vllm/sched/utils.h"

namespace blis::vllm {

bool check_stop(Request& r, std::int32_t max_model_len) {
  const std::int32_t outputs = r.num_output_tokens();
  // vllm sched/utils.py check_stop: min_tokens overrides the other checks.
  if (outputs < r.min_tokens) return false;
  // The last token is the EOS token: FINISHED_STOPPED (the token stays in the output). The
  // simulator's synthetic ids mark the EOS by position (eos_at_output) instead of by value.
  // has_value_stops keeps the value checks (and their cache line) out of a synthetic-id step.
  const std::int32_t last = r.has_value_stops ? r.last_token() : 0;
  if ((r.has_value_stops && r.eos_token_id >= 0 && last == r.eos_token_id) ||
      (r.eos_at_output > 0 && outputs == r.eos_at_output)) {
    r.status = RequestStatus::kFinishedStopped;
    return true;
  }
  // A stop token: FINISHED_STOPPED with stop_reason = the token.
  if (r.has_value_stops) {
    for (const std::int32_t t : r.stop_token_ids) {
      if (last == t) {
        r.status = RequestStatus::kFinishedStopped;
        r.stop_reason = t;
        return true;
      }
    }
  }
  if (r.num_tokens() >= max_model_len || outputs >= r.max_tokens) {
    r.status = RequestStatus::kFinishedLengthCapped;
    return true;
  }
  return false;
}

}  // namespace blis::vllm
