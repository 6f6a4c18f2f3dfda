#pragma once
// The ext conformance driver (tests/conformance/data/ext/FORMAT.md): a base-format case plus
// `metrics` (and, in connector cases, `connector`), replayed through the same driving loop
// as the base format, with vLLM's frontend stat pipeline (MetricsRecorder) on the simulated
// clock of FORMAT.md section 2. The output carries `families`, `steps`, `records`,
// `snapshots` and `final` (section 5).

#include <string_view>

#include "conform/conform.h"

namespace blis::vllm {

// True when the input document has a top-level "metrics" key (the ext format). Invalid JSON
// is not ext: run_conformance then reports the parse error.
bool is_ext_input(std::string_view input_json);

ConformOutcome run_ext_conformance(std::string_view input_json);

}  // namespace blis::vllm
