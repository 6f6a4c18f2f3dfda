#pragma once
// Running the points of a sweep: checking every point's scenario before anything runs, and
// running one point to its summary (single-threaded and clock-free like every run; the CLI
// runs points in parallel processes).

#include <cstddef>
#include <optional>
#include <string>

#include "scenario/scenario_decode.h"
#include "sweep/sweep.h"
#include "util/diagnostic.h"

namespace blis::sweep {

// Every axis key can be set in the base, every point's scenario decodes, and every
// constraint, objective and Pareto pointer names a value of summary.json. Errors name the
// axis (/axes/<k>/...) or the constraint; at most `max_point_errors` points are reported.
Diagnostics check_points(const Sweep& s, const scenario::DecodeOptions& options,
                         std::size_t max_point_errors = 5);

struct PointRun {
  std::optional<std::string> summary;  // summary.json text with sim.wall_s = 0
  Diagnostics diagnostics;
};

// Runs point `index` to the end. The same point gives the same summary (and digest) in any
// process, in any order.
PointRun run_point(const Sweep& s, std::size_t index, const scenario::DecodeOptions& options);

}  // namespace blis::sweep
