#include "sweep/run_point.h"

#include "cluster/simulation.h"
#include "rules/json_fields.h"
#include "scenario/scenario_decode.h"
#include "util/text.h"

namespace blis::sweep {

namespace {

std::string describe_point(const Sweep& s, std::size_t index) {
  std::string out = "point " + std::to_string(index) + " (";
  bool first = true;
  const nlohmann::ordered_json values = point_values(s, index);
  for (const auto& [k, v] : values.items()) {
    out += (first ? "" : ", ") + escape_excerpt(k) + " = " +
           rules::show(nlohmann::json::parse(v.dump()));
    first = false;
  }
  return out + ")";
}

// Every pointer the ranking reads must name a number (or null: a cost without a price) of
// summary.json; checked on the summary of the loaded, unrun first point.
void check_metrics(const Sweep& s, const nlohmann::json& summary, Diagnostics& d) {
  auto check = [&](const std::string& pointer, const std::string& where) {
    try {
      const nlohmann::json& v = summary.at(nlohmann::json::json_pointer(pointer));
      if (v.is_number() || v.is_null()) return;
      d.push_back({where, quote_excerpt(pointer) + " is " + rules::describe_type(v) +
                              " in summary.json, expected a number (e.g. /ttft_ms/p99)"});
    } catch (const std::exception&) {
      d.push_back({where, quote_excerpt(pointer) +
                              " names nothing in summary.json (docs/results.md lists its "
                              "fields, e.g. /ttft_ms/p99, /cost/usd_per_million_output_tokens)"});
    }
  };
  for (std::size_t i = 0; i < s.constraints.size(); ++i) {
    check(s.constraints[i].metric,
          json_pointer_append(json_pointer_append("/constraints", i), "metric"));
  }
  if (s.objective_name == "custom") check(s.objective.metric, "/objective");
  for (std::size_t i = 0; i < s.pareto.size(); ++i)
    check(s.pareto[i].metric, json_pointer_append("/pareto", i));
}

}  // namespace

namespace {

Diagnostics check_points_uncapped(const Sweep& s, const scenario::DecodeOptions& options,
                                  std::size_t max_point_errors) {
  Diagnostics d;
  for (std::size_t k = 0; k < s.axes.size(); ++k) {
    const Axis& a = s.axes[k];
    for (std::size_t m = 0; m < a.members.size(); ++m) {
      nlohmann::json probe = s.base;
      std::string why;
      if (!set_pointer(probe, a.members[m].pointer, a.members[m].values.front(), &why)) {
        const std::string at = json_pointer_append("/axes", k);
        d.push_back({a.members.size() > 1
                         ? json_pointer_append(json_pointer_append(at + "/linked", m), "pointer")
                         : at + "/pointer",
                     quote_excerpt(a.members[m].pointer) + ": " + why});
      }
    }
  }
  if (has_errors(d)) return d;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < s.points() && bad < max_point_errors; ++i) {
    const scenario::DecodeResult r =
        scenario::decode_scenario(point_scenario(s, i).dump(), options);
    bool reported = false;
    for (const Diagnostic& x : r.diagnostics) {
      if (x.severity != Severity::kError) continue;
      d.push_back(
          {"/axes", describe_point(s, i) + " is not a valid scenario: " + format_diagnostic(x)});
      reported = true;
    }
    if (reported) ++bad;
  }
  if (has_errors(d)) return d;
  cluster::Simulation sim;
  const Diagnostics ld = sim.load(point_scenario(s, 0).dump(), options);
  for (const Diagnostic& x : ld) {
    if (x.severity == Severity::kError)
      d.push_back({"/axes", describe_point(s, 0) + " cannot run: " + format_diagnostic(x)});
  }
  if (has_errors(d)) return d;
  check_metrics(s, nlohmann::json::parse(sim.summary_json(0)), d);
  return d;
}

}  // namespace

Diagnostics check_points(const Sweep& s, const scenario::DecodeOptions& options,
                         std::size_t max_point_errors) {
  Diagnostics d = check_points_uncapped(s, options, max_point_errors);
  scenario::cap_diagnostics(d);  // a thousand axes that name nothing: 50 lines, then a count
  return d;
}

PointRun run_point(const Sweep& s, std::size_t index, const scenario::DecodeOptions& options) {
  PointRun out;
  cluster::Simulation sim;
  out.diagnostics = sim.load(point_scenario(s, index).dump(), options);
  if (has_errors(out.diagnostics)) return out;
  sim.run();
  out.summary = sim.summary_json(0);
  return out;
}

}  // namespace blis::sweep
