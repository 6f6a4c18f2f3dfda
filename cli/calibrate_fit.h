#pragma once
// blis calibrate's fitting: the runs, the fittable coefficients with their physical ranges,
// pricing a run with trial coefficients, and the Levenberg-Marquardt search (deterministic:
// fixed start, fixed steps, no random numbers). cmd_calibrate.cpp reads the runs and reports.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace blis::cli::calibrate {

// A fitted coefficient: where it is in the entry and the physical range it may take.
struct Param {
  std::string pointer;
  double lo, hi;
  const char* meaning;
};

const std::vector<Param>& known_params();
// The coefficients fitted when --fit is not given (docs/accuracy.md lists them).
const std::vector<std::string>& default_fit();

struct Measured {
  double e2e = 0, ttft = 0, itl = 0;  // ms
};

struct Run {
  std::string name, model, gpu;
  std::string scenario_full, scenario_short;  // JSON text; short = stages cut for fitting
  Measured measured;
};

struct Errors {
  double e2e = 0, ttft = 0, itl = 0;  // simulated / measured - 1
  bool ok = false;
};

// Simulates one scenario text of a run with `coefficients` (a coefficients entry, JSON text)
// replacing the built-in entry of the same id.
Errors simulate(const Run& r, const std::string& text, const std::string& coefficients);

struct Fit {
  nlohmann::json entry;
  std::vector<double> x;
  double objective = 0;
  int evals = 0;
};

// Fits `params` of the entry `start` to the runs' shortened scenarios.
Fit fit(const std::vector<const Run*>& runs, const nlohmann::json& start,
        const std::vector<Param>& params, int iterations);

}  // namespace blis::cli::calibrate
