// Sweeps and capacity search for JavaScript: the same core (core/sweep/) `blis sweep`,
// `blis sweep-point` and `blis capacity` use, so a point has the same digest in the browser as
// natively, and ranking and the Pareto front have one implementation. Stateless: every call
// takes the sweep document's text and decodes it again (cheap next to running a point), so any
// Web Worker can run any point in any order.
//
//   sweepCheck(text)              {diagnostics, points, document}: decode_sweep, then (when
//                                 that has no error) check_points; `document` is the
//                                 normalized sweep (base inlined) as JSON text, "" on errors
//   sweepPointScenario(text, i)   point i's scenario as JSON text
//   sweepRunPoint(text, i)        point i's points.jsonl row as JSON text (run to the end)
//   sweepPointRow(text, i, summary)
//                                 point i's row from its summary.json text (a point run in
//                                 slices on a Simulation gives sweepRunPoint's row)
//   sweepRank(text, rowsJson)     {ranking, pareto, table}: ranking.json, the front flag of
//                                 each row (sorted by index), and ranking.md's table
//   capacitySearch(text, query[, onProbe])
//                                 blis capacity's probes, answer and the scenario at the
//                                 answer as JSON text; onProbe(probeJson) after each probe
//
// In the browser the base scenario must be inline: there is no file reader.

#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnostics_js.h"
#include "embind_guard.h"
#include "scenario/json_text.h"
#include "sweep/capacity.h"
#include "sweep/rank.h"
#include "sweep/run_point.h"
#include "sweep/sweep.h"

namespace blis::wasm {
namespace {

using emscripten::val;
using oj = nlohmann::ordered_json;

std::string joined_errors(const Diagnostics& ds) {
  std::string out;
  for (const Diagnostic& d : ds) {
    if (d.severity != Severity::kError) continue;
    out += (out.empty() ? "" : "; ") + format_diagnostic(d);
  }
  return out;
}

// A sweep that decodes without errors, or an Error naming the first problems.
sweep::Sweep decoded(const std::string& text) {
  sweep::DecodeResult r = sweep::decode_sweep(text);
  if (!r.sweep)
    throw std::invalid_argument("the sweep has errors: " + joined_errors(r.diagnostics));
  return std::move(*r.sweep);
}

std::size_t point_index(const sweep::Sweep& s, double index) {
  if (!(index >= 0) || index != std::floor(index) || index >= static_cast<double>(s.points())) {
    char shown[32];
    std::snprintf(shown, sizeof shown, "%.17g", index);
    throw std::out_of_range(std::string("point ") + shown + " does not exist (the sweep has " +
                            std::to_string(s.points()) + " points: 0 ... " +
                            std::to_string(s.points() - 1) + ")");
  }
  return static_cast<std::size_t>(index);
}

val sweep_check(const std::string& text) {
  return guard([&] {
    sweep::DecodeResult r = sweep::decode_sweep(text);
    Diagnostics ds = r.diagnostics;
    val out = val::object();
    std::string document;
    double points = 0;
    if (r.sweep) {
      const Diagnostics checks = sweep::check_points(*r.sweep, scenario::DecodeOptions{});
      ds.insert(ds.end(), checks.begin(), checks.end());
      points = static_cast<double>(r.sweep->points());
      if (!has_errors(ds)) document = sweep::normalized_document(*r.sweep).dump();
    }
    out.set("diagnostics", diagnostics_to_js(ds));
    out.set("points", points);
    out.set("document", document);
    return out;
  });
}

std::string sweep_point_scenario(const std::string& text, double index) {
  return guard([&] {
    const sweep::Sweep s = decoded(text);
    return sweep::point_scenario(s, point_index(s, index)).dump(2);
  });
}

std::string sweep_run_point(const std::string& text, double index) {
  return guard([&] {
    const sweep::Sweep s = decoded(text);
    const std::size_t i = point_index(s, index);
    const sweep::PointRun run = sweep::run_point(s, i, scenario::DecodeOptions{});
    if (!run.summary) {
      throw std::invalid_argument("point " + std::to_string(i) +
                                  " cannot run: " + joined_errors(run.diagnostics));
    }
    return sweep::point_row(s, i, nlohmann::json::parse(*run.summary)).dump();
  });
}

// The row of point i from its summary.json text, as sweepRunPoint builds it (sim.wall_s set
// to 0 as run_point does): for a point run in slices on a Simulation, so a worker can pause
// between slices and leave the page a core.
std::string sweep_point_row(const std::string& text, double index, const std::string& summary) {
  return guard([&] {
    const sweep::Sweep s = decoded(text);
    const std::size_t i = point_index(s, index);
    nlohmann::json parsed = nlohmann::json::parse(summary);
    if (!parsed.is_object() || !parsed.contains("sim") || !parsed["sim"].is_object())
      throw std::invalid_argument("the summary lacks its sim object");
    parsed["sim"]["wall_s"] = 0;
    return sweep::point_row(s, i, parsed).dump();
  });
}

std::string sweep_rank(const std::string& text, const std::string& rows_json) {
  return guard([&] {
    const sweep::Sweep s = decoded(text);
    const oj parsed = oj::parse(rows_json);
    if (!parsed.is_array()) throw std::invalid_argument("rows must be a JSON array of rows");
    std::vector<oj> rows(parsed.begin(), parsed.end());
    for (const oj& row : rows) {
      if (!row.is_object() || !row.contains("index") || !row["index"].is_number_unsigned() ||
          !row.contains("feasible") || !row["feasible"].is_boolean() ||
          !row.contains("violations") || !row["violations"].is_array() ||
          !row.contains("metrics") || !row["metrics"].is_object()) {
        throw std::invalid_argument("a row lacks index, feasible, violations or metrics");
      }
    }
    // As `blis sweep` ranks them: in index order (the front flags follow that order).
    std::sort(rows.begin(), rows.end(), [](const oj& a, const oj& b) {
      return a["index"].get<std::size_t>() < b["index"].get<std::size_t>();
    });
    const sweep::Ranking r = sweep::rank_rows(s, rows);
    oj pareto = oj::array();
    for (std::size_t i = 0; i < rows.size(); ++i)
      pareto.push_back({{"index", rows[i]["index"]}, {"pareto", static_cast<bool>(r.pareto[i])}});
    oj out;
    out["ranking"] = sweep::ranking_json(s, rows, r);
    out["pareto"] = pareto;
    out["table"] = sweep::ranking_table(s, rows, r);
    return out.dump();
  });
}

// query: {vary: "rate"|"instances", slo: ["ttft_ms.p99<=500", ...], pool?, rate?,
// tolerance?, max_probes?}, the options of `blis capacity`.
sweep::CapacityQuery capacity_query(const nlohmann::json& q) {
  if (!q.is_object()) throw std::invalid_argument("the capacity query must be an object");
  sweep::CapacityQuery out;
  const std::string vary = q.value("vary", std::string("rate"));
  if (vary != "rate" && vary != "instances")
    throw std::invalid_argument("vary must be \"rate\" or \"instances\"");
  out.vary = vary == "rate" ? sweep::Vary::kRate : sweep::Vary::kInstances;
  if (!q.contains("slo") || !q["slo"].is_array() || q["slo"].empty())
    throw std::invalid_argument("slo must be a non-empty list such as [\"ttft_ms.p99<=500\"]");
  for (const auto& t : q["slo"]) {
    std::string why;
    const auto b = t.is_string() ? sweep::parse_slo(t.get<std::string>(), &why) : std::nullopt;
    if (!b)
      throw std::invalid_argument("slo " + t.dump() + ": " + (why.empty() ? "not a string" : why));
    out.slo.push_back(*b);
  }
  if (q.contains("pool")) out.pool = q["pool"].get<std::size_t>();
  if (q.contains("rate")) out.rate = q["rate"].get<double>();
  if (q.contains("tolerance")) out.tolerance = q["tolerance"].get<double>();
  if (q.contains("max_probes")) out.max_probes = q["max_probes"].get<int>();
  if (out.max_probes < 2 || out.max_probes > 200)
    throw std::invalid_argument("max_probes needs 2..200");
  if (!(out.tolerance > 0 && out.tolerance < 1))
    throw std::invalid_argument("tolerance must be in (0, 1)");
  return out;
}

oj probe_json(const sweep::CapacityProbe& p) {
  return {{"value", p.value},
          {"pass", p.pass},
          {"saturated", p.saturated},
          {"why", p.why},
          {"digest", p.digest}};
}

// The scenario at the search's answer, as the search built its probe there (scale_rate or the
// pool's instances), so "open" shows the point that passed; null without an answer.
oj answer_scenario(const nlohmann::json& base, const sweep::CapacityQuery& q,
                   const sweep::CapacityResult& r) {
  if (!r.answer) return nullptr;
  nlohmann::json sc = base;
  if (q.vary == sweep::Vary::kInstances) {
    sc[nlohmann::json::json_pointer("/pools/" + std::to_string(q.pool) + "/instances")] =
        static_cast<long>(*r.answer);
  } else {
    std::string why;
    const std::optional<double> r0 = sweep::offered_rate(base, &why);
    if (!r0 || !(*r0 > 0)) return nullptr;
    sweep::scale_rate(sc, *r.answer / *r0);
  }
  return oj::parse(sc.dump());
}

// on_probe, when a function, is called with each probe's JSON text as the search runs it.
std::string capacity_search_with(const std::string& scenario_text, const std::string& query_json,
                                 val on_probe) {
  return guard([&] {
    const scenario::JsonText doc = scenario::parse_json_text(scenario_text);
    if (doc.error) throw std::invalid_argument(doc.error->message);
    sweep::CapacityQuery q = capacity_query(nlohmann::json::parse(query_json));
    if (on_probe.typeOf().as<std::string>() == "function")
      q.on_probe = [&](const sweep::CapacityProbe& p) { on_probe(probe_json(p).dump()); };
    const sweep::CapacityResult r = sweep::capacity_search(doc.value, q, scenario::DecodeOptions{});
    oj probes = oj::array();
    for (const sweep::CapacityProbe& p : r.probes) probes.push_back(probe_json(p));
    oj out;
    out["vary"] = q.vary == sweep::Vary::kRate ? "rate" : "instances";
    out["probes"] = probes;
    out["answer"] = r.answer ? oj(*r.answer) : oj(nullptr);
    out["first_fail"] = r.first_fail ? oj(*r.first_fail) : oj(nullptr);
    out["answer_scenario"] = answer_scenario(doc.value, q, r);
    oj diags = oj::array();
    for (const Diagnostic& d : r.diagnostics) diags.push_back(format_diagnostic(d));
    out["diagnostics"] = diags;
    return out.dump();
  });
}

std::string capacity_search(const std::string& scenario_text, const std::string& query_json) {
  return capacity_search_with(scenario_text, query_json, val::undefined());
}

}  // namespace
}  // namespace blis::wasm

EMSCRIPTEN_BINDINGS(blis_sweep) {
  emscripten::function("sweepCheck", &blis::wasm::sweep_check);
  emscripten::function("sweepPointScenario", &blis::wasm::sweep_point_scenario);
  emscripten::function("sweepRunPoint", &blis::wasm::sweep_run_point);
  emscripten::function("sweepPointRow", &blis::wasm::sweep_point_row);
  emscripten::function("sweepRank", &blis::wasm::sweep_rank);
  emscripten::function("capacitySearch", &blis::wasm::capacity_search);
  emscripten::function("capacitySearch", &blis::wasm::capacity_search_with);
}
