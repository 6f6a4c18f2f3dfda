#include "sweep/capacity.h"

#include <cmath>

#include "cluster/simulation.h"
#include "sweep/summary_value.h"
#include "util/text.h"

namespace blis::sweep {

namespace {

using nlohmann::json;

CapacityProbe probe(const json& scenario, double value, const CapacityQuery& q,
                    const scenario::DecodeOptions& options, Diagnostics* errors) {
  CapacityProbe p;
  p.value = value;
  cluster::Simulation sim;
  const Diagnostics ds = sim.load(scenario.dump(), options);
  if (has_errors(ds)) {
    // Reported once (the first invalid probe's errors), and each invalid probe's line says
    // why, so a search that keeps meeting a limit prints a bounded number of lines.
    const bool first = errors->empty();
    for (const auto& d : ds) {
      if (d.severity != Severity::kError) continue;
      if (first) errors->push_back(d);
      if (!p.invalid) p.why = sanitize_line("invalid scenario: " + format_diagnostic(d), 300);
      p.invalid = true;
    }
    return p;
  }
  sim.run();
  const json s = json::parse(sim.summary_json(0));
  p.digest = s["digest"].get<std::string>();
  // The summary's saturation verdict (docs/results.md "Saturation"): the one rule the CLI,
  // the playground and the capacity search share.
  const json& sat = s.at("saturation");
  const std::string verdict = sat.at("verdict").get<std::string>();
  p.saturated = verdict != "stable";
  p.pass = !p.saturated;
  p.why = p.saturated ? verdict + ": " + sat.at("reason").get<std::string>() : "ok";
  if (!p.pass) return p;
  // A probe in which no request finished measured nothing (a rate so low that nothing
  // arrived within the horizon): it cannot show that the SLO holds.
  if (s.at("requests").at("finished").get<double>() == 0) {
    p.pass = false;
    p.why = "no request finished (nothing to measure)";
    return p;
  }
  for (const SloBound& b : q.slo) {
    const auto x = summary_number(s, b.metric);
    if (!x || (b.upper ? *x > b.value : *x < b.value)) {
      p.pass = false;
      p.why = b.text + " missed (" + (x ? short_number(*x) : std::string("no value")) + ")";
      return p;
    }
  }
  return p;
}

void search_rate(const json& base, double r0, const CapacityQuery& q,
                 const scenario::DecodeOptions& o, CapacityResult& out) {
  auto run = [&](double rate) {
    json sc = base;
    scale_rate(sc, rate / r0);
    out.probes.push_back(probe(sc, rate, q, o, &out.diagnostics));
    if (q.on_probe) q.on_probe(out.probes.back());
    return out.probes.back().pass;
  };
  double lo = 0, hi = 0;
  const double start = q.rate.value_or(r0);
  // Bracket: double up from a passing rate, or halve down from a failing one.
  if (run(start)) {
    lo = start;
    for (hi = 2 * start; static_cast<int>(out.probes.size()) < q.max_probes; hi *= 2) {
      if (!run(hi)) break;
      lo = hi;
    }
    if (lo == hi) return void(out.answer = lo);  // never failed within the probe budget
  } else {
    hi = start;
    for (lo = start / 2; static_cast<int>(out.probes.size()) < q.max_probes; lo /= 2) {
      if (run(lo)) break;
      hi = lo;
      if (lo < 1e-3) return;  // nothing passes
    }
    if (!out.probes.back().pass) return;
  }
  while (static_cast<int>(out.probes.size()) < q.max_probes && (hi - lo) / hi > q.tolerance) {
    const double mid = 0.5 * (lo + hi);
    if (run(mid))
      lo = mid;
    else
      hi = mid;
  }
  out.answer = lo;
  out.first_fail = hi;
}

void search_instances(const json& base, const CapacityQuery& q, const scenario::DecodeOptions& o,
                      CapacityResult& out) {
  const std::string ptr = "/pools/" + std::to_string(q.pool) + "/instances";
  auto run = [&](long n) {
    json sc = base;
    sc[json::json_pointer(ptr)] = n;
    out.probes.push_back(probe(sc, static_cast<double>(n), q, o, &out.diagnostics));
    if (q.on_probe) q.on_probe(out.probes.back());
    return out.probes.back().pass;
  };
  const long start = base.at(json::json_pointer(ptr)).is_number_integer()
                         ? base.at(json::json_pointer(ptr)).get<long>()
                         : 1;
  long lo = 0, hi = 0;  // lo fails (0: no count below hi was seen to fail), hi passes
  if (run(start)) {
    hi = start;
    for (long n = start / 2; n >= 1 && static_cast<int>(out.probes.size()) < q.max_probes; n /= 2) {
      if (!run(n)) {
        lo = n;
        break;
      }
      hi = n;
    }
  } else {
    lo = start;
    for (hi = 2 * start; static_cast<int>(out.probes.size()) < q.max_probes; hi *= 2) {
      if (hi > 10000) return;  // the scenario's limit: no count passes
      if (run(hi)) break;
      if (out.probes.back().invalid) return;  // more instances are as invalid (a limit)
      lo = hi;
    }
    if (!out.probes.back().pass) return;
  }
  while (hi - lo > 1 && static_cast<int>(out.probes.size()) < q.max_probes) {
    const long mid = lo + (hi - lo) / 2;
    if (run(mid))
      hi = mid;
    else
      lo = mid;
  }
  out.answer = static_cast<double>(hi);
  if (lo >= 1) out.first_fail = static_cast<double>(lo);
}

}  // namespace

std::optional<SloBound> parse_slo(const std::string& text, std::string* why) {
  SloBound b;
  // Echoed in every probe line and error: escaped, so a control character or an ANSI escape
  // on the command line never reaches the terminal raw (docs/reliability.md "Text").
  b.text = escape_excerpt(text, 200);
  std::size_t op = text.find("<=");
  b.upper = true;
  if (op == std::string::npos) {
    op = text.find(">=");
    b.upper = false;
  }
  if (op == std::string::npos || op == 0) {
    *why = "'" + b.text + "' is not METRIC<=VALUE or METRIC>=VALUE (e.g. ttft_ms.p99<=500)";
    return std::nullopt;
  }
  std::string m = text.substr(0, op);
  if (m[0] != '/') {
    std::string p = "/";
    for (char c : m) p += c == '.' ? '/' : c;
    m = p;
  }
  b.metric = m;
  const std::string v = text.substr(op + 2);
  char* end = nullptr;
  b.value = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || !std::isfinite(b.value)) {
    *why = "'" + escape_excerpt(v) + "' in '" + b.text + "' is not a number";
    return std::nullopt;
  }
  return b;
}

std::optional<double> offered_rate(const json& scenario, std::string* why) {
  const json* clients = nullptr;
  try {
    clients = &scenario.at("workload").at("clients");
  } catch (const std::exception&) {
    *why = "the scenario has no workload.clients (a whole-trace replay has no rate to vary)";
    return std::nullopt;
  }
  double total = 0;
  for (const json& c : *clients) {
    const json& load = c.value("load", json::object());
    if (load.contains("rate") && load["rate"].is_number()) {
      total += load["rate"].get<double>();
    } else if (load.contains("stages") && load["stages"].is_array()) {
      double sum = 0, dur = 0;
      for (const json& st : load["stages"]) {
        sum += st.value("rate", 0.0) * st.value("duration_s", 0.0);
        dur += st.value("duration_s", 0.0);
      }
      total += dur > 0 ? sum / dur : 0;
    } else {
      *why = "client '" + c.value("name", std::string("?")) +
             "' has no open-loop rate (load.rate or load.stages); --vary rate needs one";
      return std::nullopt;
    }
  }
  if (total <= 0) {
    *why = "the scenario's offered rate is 0";
    return std::nullopt;
  }
  return total;
}

void scale_rate(json& scenario, double factor) {
  for (json& c : scenario["workload"]["clients"]) {
    json& load = c["load"];
    if (load.contains("rate")) load["rate"] = load["rate"].get<double>() * factor;
    if (load.contains("stages")) {
      for (json& st : load["stages"]) st["rate"] = st["rate"].get<double>() * factor;
    }
  }
}

CapacityResult capacity_search(const json& scenario, const CapacityQuery& q,
                               const scenario::DecodeOptions& options) {
  CapacityResult out;
  std::string why;
  const auto r0 = offered_rate(scenario, &why);
  if (!r0) {
    out.diagnostics.push_back({"/workload/clients", why});
    return out;
  }
  if (q.vary == Vary::kRate) {
    search_rate(scenario, *r0, q, options, out);
    return out;
  }
  if (!scenario.contains("pools") || q.pool >= scenario["pools"].size()) {
    out.diagnostics.push_back({"/pools", "has no pool " + std::to_string(q.pool)});
    return out;
  }
  json base = scenario;
  if (!base["pools"][q.pool].contains("instances")) base["pools"][q.pool]["instances"] = 1;
  if (q.rate) scale_rate(base, *q.rate / *r0);
  search_instances(base, q, options, out);
  return out;
}

}  // namespace blis::sweep
