#pragma once
// Token-count distributions (scenario LengthDist): constant, normal, lognormal (mean and std
// of the count itself), exponential, uniform; optional min/max clamps; rounded to an
// integer >= 1.

#include <cstdint>

#include "scenario/scenario.h"
#include "scenario/trace_csv.h"
#include "util/rng.h"

namespace blis::cluster {

// The largest token count a sample may take. A larger one (a heavy lognormal tail without a
// `max`) is an error, not a silent clamp: the request's ids would not fit in memory.
inline constexpr std::int32_t kMaxSampledTokens = scenario::kMaxTraceTokens;

// One sample. Throws std::runtime_error when the sample exceeds kMaxSampledTokens.
std::int32_t sample_length(const scenario::LengthDist& d, Rng& rng);

// The mean of the distribution before clamping and rounding (for documentation and tests).
double nominal_mean(const scenario::LengthDist& d);

}  // namespace blis::cluster
