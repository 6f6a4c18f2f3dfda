#pragma once
// A sweep's results: one row per point (points.jsonl), the ranking by constraints and
// objective, and the Pareto front of the sweep's two goals. Pure functions of the rows, so a
// merged set of shards ranks exactly as the unsharded run.

#include <cstddef>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sweep/sweep.h"

namespace blis::sweep {

// The row of point `index` from its summary.json: {index, point, digest, feasible,
// violations, objective, metrics}. A constraint on a value the summary lacks is violated.
nlohmann::ordered_json point_row(const Sweep& s, std::size_t index, const nlohmann::json& summary);

struct Ranking {
  std::vector<std::size_t> order;  // positions in `rows`, best first
  std::vector<bool> pareto;        // per position in `rows`: on the Pareto front
};

// Feasible points first, by the objective (missing values last), then by fewer violations,
// then by point index. The front is over feasible points with both goals present.
Ranking rank_rows(const Sweep& s, const std::vector<nlohmann::ordered_json>& rows);

// {"objective", "pareto": [goals], "ranked": [{rank, index, feasible, objective, pareto}]}.
nlohmann::ordered_json ranking_json(const Sweep& s, const std::vector<nlohmann::ordered_json>& rows,
                                    const Ranking& r);
// A Markdown table: rank, point values, objective, the pareto goals, feasible or why not.
std::string ranking_table(const Sweep& s, const std::vector<nlohmann::ordered_json>& rows,
                          const Ranking& r);

}  // namespace blis::sweep
