#include "engine/vllm/finish_reason.h"

namespace blis::vllm {

// vllm/v1/engine/__init__.py FINISH_REASON_STRINGS, indexed by FinishReason's value.
const char* finish_reason_string(FinishReason reason) {
  switch (reason) {
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kAbort:
      return "abort";
    case FinishReason::kError:
      return "error";
    case FinishReason::kRepetition:
      return "repetition";
    case FinishReason::kNone:
      break;
  }
  return "";
}

}  // namespace blis::vllm
