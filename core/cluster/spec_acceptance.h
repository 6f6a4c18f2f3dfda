#pragma once
// How many of a request's draft tokens the target model accepts in one verification, drawn
// from a client's acceptance model (scenario::SpecAcceptance). The simulator runs no draft
// model, so acceptance is supplied; these draws are what the engine's rejection sampler
// would have decided.

#include <cstdint>

#include "scenario/scenario.h"
#include "util/rng.h"

namespace blis::cluster {

// The probability that a draft's accepted prefix is longer than `position` (0-based):
// per_position[position], or acceptance_rate^(position + 1); 0 past the list.
double accepted_past(const scenario::SpecAcceptance& m, std::int32_t position);

// Accepted drafts out of `drafts`, from one uniform draw u: the longest prefix of positions
// whose accepted_past exceeds u. Because accepted_past does not increase with the position,
// P(accepted > i) is exactly accepted_past(i), the quantity vLLM's
// vllm:spec_decode_num_accepted_tokens_per_pos / num_drafts estimates.
std::int32_t draw_accepted(const scenario::SpecAcceptance& m, std::int32_t drafts, Rng& rng);

}  // namespace blis::cluster
