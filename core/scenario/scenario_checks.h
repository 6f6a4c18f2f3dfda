#pragma once
// The checks that span sections of a typed Scenario: the shape of a prefill/decode
// deployment (one prefill pool, one decode pool, no unified pool, a fabric, one model) and
// each client's references (SLO class, LoRA, priority) and lengths against max_model_len.
// The decoder runs them on every document; cluster::Simulation::load runs the same ones on
// a scenario built in code, so both refuse the same deployments with the same messages.

#include <cstdint>

#include "scenario/scenario.h"
#include "util/diagnostic.h"

namespace blis::scenario {

// The most users a workload may hold at once (a client's concurrency, shared-prefix groups x
// users per prompt, each costing memory up front): each count's bound and their product's.
inline constexpr std::int64_t kMaxUsers = 10'000'000;

Diagnostics check_cross_sections(const Scenario& s);

// The one validation of a typed workload (core/scenario/workload_checks.cpp): one request shape
// per client, load and distribution parameters in range, unique client names, trace CSVs well
// formed; each problem at the JSON pointer of its key. The decoder reports them before a run;
// cluster::make_workload throws on the same errors.
Diagnostics validate_workload(const Workload& workload);

}  // namespace blis::scenario
