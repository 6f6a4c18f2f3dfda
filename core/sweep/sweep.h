#pragma once
// A sweep document (schema blis/sweep/v1, docs/sweeps.md): a base scenario, axes that set
// scenario keys by JSON pointer, constraints on summary.json values, an objective and a budget
// of runs. decode_sweep() validates it with JSON-pointer diagnostics, as scenarios are; the
// points are the axes' grid, numbered 0..points()-1 with the last axis moving fastest.

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/diagnostic.h"

namespace blis::sweep {

inline constexpr const char* kSchemaV1 = "blis/sweep/v1";
// Above this many points a sweep is refused whatever its budget says (bounded work).
inline constexpr std::size_t kMaxRuns = 100000;

// One scenario key and the values it takes, one per step of its axis.
struct AxisMember {
  std::string pointer;  // into the scenario, e.g. "/pools/0/instances"
  std::vector<nlohmann::json> values;
};

// An axis: one key, or linked keys that move together (member i takes values[i] at step i).
struct Axis {
  std::string name;
  std::vector<AxisMember> members;
  std::size_t steps() const { return members.empty() ? 0 : members.front().values.size(); }
};

// A summary.json value (by JSON pointer) that must stay within [min, max].
struct Constraint {
  std::string metric;
  std::optional<double> min, max;
};

// A summary.json value to minimise or maximise.
struct Goal {
  std::string metric;
  bool maximize = false;
};

struct Sweep {
  std::string name;
  nlohmann::json base;  // the base scenario document, with `set` applied
  std::vector<Axis> axes;
  std::vector<Constraint> constraints;
  std::string objective_name;  // as written ("min_cost", ... or "custom")
  Goal objective;
  std::vector<Goal> pareto;  // two goals: the Pareto front's axes
  std::size_t max_runs = 0;
  std::size_t points() const;
};

struct DecodeOptions {
  // Reads the base scenario when `base` is a path (the CLI passes the same reader it uses
  // for scenario files). Without one, `base` must be inline.
  std::function<std::optional<std::string>(const std::string& path, std::string* error)> read_file;
};

struct DecodeResult {
  std::optional<Sweep> sweep;  // set when there is no error
  Diagnostics diagnostics;
  bool malformed_json = false;
};

DecodeResult decode_sweep(const std::string& json_text, const DecodeOptions& options = {});

// The step of each axis at point `index` (mixed radix, last axis fastest).
std::vector<std::size_t> coordinates(const Sweep& s, std::size_t index);
// {pointer: value} of every axis member at point `index`, in axis order.
nlohmann::ordered_json point_values(const Sweep& s, std::size_t index);
// The base scenario with point `index`'s values set.
nlohmann::json point_scenario(const Sweep& s, std::size_t index);

// The document with the base inlined: what `blis sweep` writes to DIR/sweep.json, so that
// `blis sweep-merge` can rank shards without the base file.
nlohmann::ordered_json normalized_document(const Sweep& s);

// Sets `value` at `pointer` in `doc`: the parent must exist (an object gets the key, an
// array element is replaced). false with *why set otherwise.
bool set_pointer(nlohmann::json& doc, const std::string& pointer, const nlohmann::json& value,
                 std::string* why);

}  // namespace blis::sweep
