#pragma once
// Checks of the scenario's `workload` section that the generators rely on: one request shape
// per client, load and distribution parameters in range, unique client names, trace CSVs
// well formed. Each problem is a Diagnostic at the JSON pointer of the offending key, so the
// scenario decoder can report them before a run; make_workload() throws on the same errors.

#include "scenario/scenario.h"
#include "util/diagnostic.h"

namespace blis::cluster {

Diagnostics validate_workload(const scenario::Workload& workload);

}  // namespace blis::cluster
