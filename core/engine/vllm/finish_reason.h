#pragma once
// vLLM's finish reasons as its engine reports them to the output processor and the metrics
// (vllm/v1/engine/__init__.py FinishReason), and the one mapping from a request's final
// status (vllm/v1/request.py RequestStatus.get_finished_reason, _FINISHED_REASON_MAP).

#include <cstdint>

#include "engine/engine.h"

namespace blis::vllm {

// vllm/v1/engine/__init__.py FinishReason; str() gives FINISH_REASON_STRINGS[value].
enum class FinishReason : std::uint8_t {
  kStop = 0,
  kLength = 1,
  kAbort = 2,
  kError = 3,
  kRepetition = 4,
  kNone = 255,  // not finished
};
inline constexpr int kNumFinishReasons = 5;
// FINISH_REASON_STRINGS: "stop", "length", "abort", "error", "repetition" ("" for kNone).
const char* finish_reason_string(FinishReason reason);
// The engine API's reason, which has no repetition: it counts as a stop.
engine::FinishReason to_engine_reason(FinishReason reason);

}  // namespace blis::vllm
