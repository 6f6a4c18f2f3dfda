#pragma once
// Conformance driver: replays a golden-trace input (tests/conformance/data/FORMAT.md) through
// the vLLM engine core and returns the step trace as JSON text, in the same format as the
// traces vLLM's own scheduler produced. Sync cases use EngineCore.step; async cases the
// batch-queue loop (step_with_batch_queue). `blis conform` and tests/conformance call it.

#include <string>
#include <string_view>

#include "util/diagnostic.h"

namespace blis::vllm {

struct ConformOutcome {
  bool ok = false;
  std::string trace_json;   // the trace (when ok), pretty-printed
  Diagnostics diagnostics;  // what is wrong with the input (when not ok)
};

ConformOutcome run_conformance(std::string_view input_json);

}  // namespace blis::vllm
