#include "engine/engine.h"

namespace blis::engine {

const char* to_string(FinishReason r) {
  // vLLM's FinishReason names (v1/engine/__init__.py FINISH_REASON_STRINGS).
  switch (r) {
    case FinishReason::kNone:
      return "none";
    case FinishReason::kStop:
      return "stop";
    case FinishReason::kLength:
      return "length";
    case FinishReason::kAbort:
      return "abort";
    case FinishReason::kError:
      return "error";
  }
  return "none";
}

}  // namespace blis::engine
