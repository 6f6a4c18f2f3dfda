#include "engine/vllm/finish_reason.h"

namespace blis::vllm {

engine::FinishReason to_engine_reason(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
    case FinishReason::kRepetition:
      return engine::FinishReason::kStop;
    case FinishReason::kLength:
      return engine::FinishReason::kLength;
    case FinishReason::kAbort:
      return engine::FinishReason::kAbort;
    case FinishReason::kError:
      return engine::FinishReason::kError;
    case FinishReason::kNone:
      break;
  }
  return engine::FinishReason::kNone;
}

// vllm/v1/engine/__init__.py FINISH_REASON_STRINGS, indexed by FinishReason's value: the
// engine API's names (engine::to_string) and "repetition", which the API folds into a stop.
const char* finish_reason_string(FinishReason reason) {
  if (reason == FinishReason::kNone) return "";
  if (reason == FinishReason::kRepetition) return "repetition";
  return engine::to_string(to_engine_reason(reason));
}

}  // namespace blis::vllm
