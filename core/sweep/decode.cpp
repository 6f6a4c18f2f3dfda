// decode_sweep: the blis/sweep/v1 document, read with the scenario decoder's field reader so
// that every problem names its JSON pointer the same way.

#include <cmath>
#include <set>

#include "rules/json_fields.h"
#include "scenario/json_text.h"
#include "sweep/sweep.h"

namespace blis::sweep {

namespace {

using nlohmann::json;
using rules::FieldReader;

const std::vector<std::string> kRootKeys = {"schema",      "name",      "base",   "set",   "axes",
                                            "constraints", "objective", "pareto", "budget"};
const std::vector<std::string> kAxisKeys = {"name", "pointer", "values", "range", "linked"};
const std::vector<std::string> kMemberKeys = {"pointer", "values", "range"};
const std::vector<std::string> kRangeKeys = {"from", "to", "step"};
const std::vector<std::string> kConstraintKeys = {"metric", "min", "max"};
const std::vector<std::string> kGoalKeys = {"minimize", "maximize"};
const std::vector<std::string> kBudgetKeys = {"max_runs"};

// The named objectives and the summary value each one ranks by (docs/results.md#cost).
struct NamedObjective {
  const char* name;
  Goal goal;
};
const NamedObjective kObjectives[] = {
    {"min_cost", {"/cost/usd_per_million_output_tokens", false}},
    {"min_gpus", {"/cost/gpus", false}},
    {"max_goodput_per_gpu", {"/cost/goodput_requests_per_s_per_gpu", true}},
};

bool valid_pointer(const std::string& p) {
  if (p.empty() || p[0] != '/') return false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == '~' && (i + 1 >= p.size() || (p[i + 1] != '0' && p[i + 1] != '1'))) return false;
  }
  return true;
}

std::optional<std::string> read_pointer(FieldReader& r, const std::string& key,
                                        const std::string& what) {
  auto p = r.string(key, what);
  if (!p) {
    if (!r.has(key)) r.missing(key, what);
    return std::nullopt;
  }
  if (!valid_pointer(*p)) {
    r.error(key, rules::show(*r.raw(key)) + " is not a JSON pointer, expected " + what);
    return std::nullopt;
  }
  return p;
}

std::vector<json> decode_range(const json& v, const std::string& ptr, Diagnostics& d) {
  std::vector<json> out;
  FieldReader r(v, ptr, d, kRangeKeys, "an object ({from, to, step})");
  if (!r.valid()) return out;
  const auto from = r.number("from", -1e15, false, 1e15, "a number");
  const auto to = r.number("to", -1e15, false, 1e15, "a number");
  const auto step = r.number("step", 0, true, 1e15, "a number > 0");
  for (const char* k : {"from", "to", "step"}) {
    if (!r.has(k)) r.missing(k, "a number");
  }
  r.report_unknown_keys();
  if (!from || !to || !step) return out;
  if (*to < *from) {
    r.error("to", rules::show(*r.raw("to")) + " is below from, expected to >= from");
    return out;
  }
  const double n = std::floor((*to - *from) / *step + 1e-9) + 1;
  if (n > static_cast<double>(kMaxRuns)) {
    // n may be far beyond any integer (a step of 1e-15 over 1e15): shown as a number then,
    // never converted.
    const std::string count = n < 9e15 ? std::to_string(static_cast<long long>(n)) : rules::show(n);
    r.error("step", "gives " + count + " values, expected at most " + std::to_string(kMaxRuns));
    return out;
  }
  const bool integral = std::floor(*from) == *from && std::floor(*step) == *step;
  for (long long k = 0; k < static_cast<long long>(n); ++k) {
    // from + k * step, not a running sum, so no rounding accumulates.
    const double x = *from + static_cast<double>(k) * *step;
    if (integral)
      out.emplace_back(static_cast<std::int64_t>(x));
    else
      out.emplace_back(x);
  }
  return out;
}

// pointer plus values or range (an axis, or one member of a linked axis).
std::optional<AxisMember> decode_member(FieldReader& r, Diagnostics& d) {
  AxisMember m;
  const auto p =
      read_pointer(r, "pointer", "a JSON pointer into the scenario, e.g. \"/pools/0/instances\"");
  const bool has_values = r.has("values"), has_range = r.has("range");
  if (has_values == has_range) {
    d.push_back({has_values ? r.pointer("range") : r.pointer(),
                 has_values ? "is given with values, expected one of values or range"
                            : "expected values (a list) or range ({from, to, step})"});
    return std::nullopt;
  }
  if (has_values) {
    const json& v = *r.raw("values");
    if (!v.is_array() || v.empty()) {
      r.error("values", rules::show(v) + " is " +
                            (v.is_array() ? std::string("empty") : rules::describe_type(v)) +
                            ", expected a non-empty list of values");
      return std::nullopt;
    }
    if (v.size() > kMaxRuns) {
      r.error("values", "has " + std::to_string(v.size()) + " values, expected at most " +
                            std::to_string(kMaxRuns));
      return std::nullopt;
    }
    m.values.assign(v.begin(), v.end());
  } else {
    m.values = decode_range(*r.raw("range"), r.pointer("range"), d);
    if (m.values.empty()) return std::nullopt;
  }
  if (!p) return std::nullopt;
  m.pointer = *p;
  return m;
}

std::optional<Axis> decode_axis(const json& v, const std::string& ptr, std::size_t i,
                                Diagnostics& d) {
  FieldReader r(v, ptr, d, kAxisKeys, "an object (an axis)");
  if (!r.valid()) return std::nullopt;
  Axis a;
  a.name = r.string("name").value_or("");
  std::optional<Axis> out;
  if (const json* linked = r.raw("linked")) {
    for (const char* k : {"pointer", "values", "range"}) {
      if (r.has(k)) r.error(k, "is given with linked, expected the keys inside linked[]");
    }
    if (!linked->is_array() || linked->size() < 2) {
      r.error("linked",
              rules::show(*linked) + " is not a list of two or more {pointer, values | range}");
    } else {
      bool ok = true;
      for (std::size_t k = 0; k < linked->size(); ++k) {
        const std::string mp = json_pointer_append(r.pointer("linked"), k);
        FieldReader mr((*linked)[k], mp, d, kMemberKeys, "an object ({pointer, values | range})");
        if (!mr.valid()) {
          ok = false;
          continue;
        }
        auto m = decode_member(mr, d);
        mr.report_unknown_keys();
        if (!m) {
          ok = false;
          continue;
        }
        if (!a.members.empty() && m->values.size() != a.members.front().values.size()) {
          d.push_back({mp, "has " + std::to_string(m->values.size()) + " values, expected " +
                               std::to_string(a.members.front().values.size()) +
                               " (linked keys move together, so each needs as many)"});
          ok = false;
        }
        a.members.push_back(std::move(*m));
      }
      if (ok) out = a;
    }
  } else if (auto m = decode_member(r, d)) {
    a.members.push_back(std::move(*m));
    out = a;
  }
  r.report_unknown_keys();
  if (out && out->name.empty()) out->name = out->members.front().pointer;
  (void)i;
  return out;
}

std::optional<Goal> decode_goal(const json& v, const std::string& ptr, Diagnostics& d) {
  FieldReader r(v, ptr, d, kGoalKeys, "an object ({minimize: POINTER} or {maximize: POINTER})");
  if (!r.valid()) return std::nullopt;
  std::optional<Goal> g;
  const bool mn = r.has("minimize"), mx = r.has("maximize");
  if (mn == mx) {
    d.push_back({ptr, "expected exactly one of minimize or maximize"});
  } else {
    const std::string key = mx ? "maximize" : "minimize";
    if (auto p = read_pointer(r, key, "a JSON pointer into summary.json, e.g. \"/e2e_ms/p99\""))
      g = Goal{*p, mx};
  }
  r.report_unknown_keys();
  return g;
}

void decode_objective(const json& v, Sweep& s, Diagnostics& d) {
  if (v.is_string()) {
    for (const auto& o : kObjectives) {
      if (v.get<std::string>() == o.name) {
        s.objective_name = o.name;
        s.objective = o.goal;
        return;
      }
    }
    d.push_back({"/objective", rules::show(v) +
                                   " is not an objective, expected \"min_cost\", \"min_gpus\", "
                                   "\"max_goodput_per_gpu\" or {minimize | maximize: POINTER}"});
    return;
  }
  if (auto g = decode_goal(v, "/objective", d)) {
    s.objective_name = "custom";
    s.objective = *g;
  }
}

std::vector<Constraint> decode_constraints(const json& v, Diagnostics& d) {
  std::vector<Constraint> out;
  if (!v.is_array()) {
    d.push_back(
        {"/constraints", rules::show(v) + " is " + rules::describe_type(v) + ", expected a list"});
    return out;
  }
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string ptr = json_pointer_append("/constraints", i);
    FieldReader r(v[i], ptr, d, kConstraintKeys, "an object ({metric, min, max})");
    if (!r.valid()) continue;
    Constraint c;
    auto m = read_pointer(r, "metric", "a JSON pointer into summary.json, e.g. \"/ttft_ms/p99\"");
    c.min = r.number("min", -1e300, false, 1e300, "a number");
    c.max = r.number("max", -1e300, false, 1e300, "a number");
    if (!r.has("min") && !r.has("max")) d.push_back({ptr, "expected min, max or both"});
    if (c.min && c.max && *c.max < *c.min) r.error("max", "is below min, expected max >= min");
    r.report_unknown_keys();
    if (m) {
      c.metric = *m;
      out.push_back(c);
    }
  }
  return out;
}

// The base: an inline scenario object, or a path read through options.read_file.
void decode_base(const json& v, Sweep& s, const DecodeOptions& o, Diagnostics& d) {
  if (v.is_object()) {
    s.base = v;
    return;
  }
  if (!v.is_string()) {
    d.push_back({"/base", rules::show(v) + " is " + rules::describe_type(v) +
                              ", expected a scenario object or the path of a scenario file"});
    return;
  }
  const std::string path = v.get<std::string>();
  if (!o.read_file) {
    d.push_back(
        {"/base",
         "\"" + path + "\" is a path, and files cannot be read here: give the scenario inline"});
    return;
  }
  std::string err;
  const auto text = o.read_file(path, &err);
  if (!text) {
    d.push_back({"/base", "cannot read " + rules::show(v) + ": " + err});
    return;
  }
  scenario::JsonText parsed = scenario::parse_json_text(*text);
  if (parsed.error) {
    d.push_back({"/base", rules::show(v) + " is not JSON: " + parsed.error->message});
    return;
  }
  s.base = std::move(parsed.value);
}

void decode_set(const json& v, Sweep& s, Diagnostics& d) {
  if (!v.is_object()) {
    d.push_back({"/set", rules::show(v) + " is " + rules::describe_type(v) +
                             ", expected an object {POINTER: value}"});
    return;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    std::string why;
    if (!valid_pointer(it.key())) {
      d.push_back(
          {json_pointer_append("/set", it.key()), "is not a JSON pointer into the scenario"});
    } else if (!set_pointer(s.base, it.key(), it.value(), &why)) {
      d.push_back({json_pointer_append("/set", it.key()), why});
    }
  }
}

void decode_root(const json& doc, Sweep& s, const DecodeOptions& o, Diagnostics& d) {
  FieldReader r(doc, "", d, kRootKeys, "an object (a blis/sweep/v1 document)");
  if (!r.valid()) return;
  const std::string expected_schema = json(kSchemaV1).dump();
  if (auto schema = r.string("schema", expected_schema)) {
    if (*schema != kSchemaV1)
      r.error("schema", rules::show(*r.raw("schema")) +
                            " is not a schema this build reads, expected " + expected_schema);
  } else if (!r.has("schema")) {
    r.missing("schema", expected_schema);
  }
  s.name = r.string("name").value_or("");
  if (const json* b = r.raw("base"))
    decode_base(*b, s, o, d);
  else
    r.missing("base", "a scenario object or the path of a scenario file");
  if (const json* set = r.raw("set"); set && s.base.is_object()) decode_set(*set, s, d);
  if (const json* axes = r.raw("axes")) {
    if (!axes->is_array() || axes->empty()) {
      r.error("axes", rules::show(*axes) + " is not a non-empty list of axes");
    } else {
      std::set<std::string> pointers;
      for (std::size_t i = 0; i < axes->size(); ++i) {
        const std::string ptr = json_pointer_append("/axes", i);
        auto a = decode_axis((*axes)[i], ptr, i, d);
        if (!a) continue;
        for (const auto& m : a->members) {
          if (!pointers.insert(m.pointer).second)
            d.push_back({ptr, "sets " + m.pointer + ", which another axis sets too"});
        }
        s.axes.push_back(std::move(*a));
      }
    }
  } else {
    r.missing("axes", "a non-empty list of axes");
  }
  if (const json* c = r.raw("constraints")) s.constraints = decode_constraints(*c, d);
  if (const json* obj = r.raw("objective"))
    decode_objective(*obj, s, d);
  else
    r.missing(
        "objective",
        "\"min_cost\", \"min_gpus\", \"max_goodput_per_gpu\" or {minimize | maximize: POINTER}");
  s.pareto = {Goal{"/cost/usd_per_million_output_tokens", false}, Goal{"/ttft_ms/p99", false}};
  if (const json* p = r.raw("pareto")) {
    if (!p->is_array() || p->size() != 2) {
      r.error("pareto",
              rules::show(*p) + " is not a list of two goals ({minimize | maximize: POINTER})");
    } else {
      for (std::size_t i = 0; i < 2; ++i) {
        if (auto g = decode_goal((*p)[i], json_pointer_append("/pareto", i), d)) s.pareto[i] = *g;
      }
    }
  }
  s.max_runs = 1000;
  if (const json* b = r.raw("budget")) {
    FieldReader br(*b, "/budget", d, kBudgetKeys, "an object ({max_runs})");
    if (br.valid()) {
      if (auto m = br.integer("max_runs", 1, static_cast<std::int64_t>(kMaxRuns),
                              "an integer in [1, " + std::to_string(kMaxRuns) + "]"))
        s.max_runs = static_cast<std::size_t>(*m);
      br.report_unknown_keys();
    }
  }
  r.report_unknown_keys();
  if (has_errors(d) || s.axes.empty()) return;
  double n = 1;
  for (const auto& a : s.axes) n *= static_cast<double>(a.steps());
  if (n > static_cast<double>(s.max_runs)) {
    d.push_back({r.has("budget") ? "/budget/max_runs" : "/axes",
                 "the grid has " + std::to_string(static_cast<long long>(n)) +
                     " points, above the budget of " + std::to_string(s.max_runs) +
                     " runs (raise budget.max_runs, up to " + std::to_string(kMaxRuns) +
                     ", or narrow the axes)"});
  }
}

}  // namespace

DecodeResult decode_sweep(const std::string& json_text, const DecodeOptions& options) {
  DecodeResult out;
  scenario::JsonText parsed = scenario::parse_json_text(json_text);
  if (parsed.error) {
    out.malformed_json = true;
    out.diagnostics.push_back(*parsed.error);
    return out;
  }
  Sweep s;
  decode_root(parsed.value, s, options, out.diagnostics);
  if (!has_errors(out.diagnostics)) out.sweep = std::move(s);
  scenario::cap_diagnostics(out.diagnostics);  // 10,000 linked axes: 50 lines and "… and N more"
  return out;
}

}  // namespace blis::sweep
