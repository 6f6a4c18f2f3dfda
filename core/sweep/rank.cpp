#include "sweep/rank.h"

#include <algorithm>
#include <optional>

#include "sweep/summary_value.h"

namespace blis::sweep {

namespace {

using oj = nlohmann::ordered_json;

// Values every row reports, besides the sweep's own constraints and goals.
const char* const kHeadline[] = {"/cost/gpus",
                                 "/cost/usd_per_million_output_tokens",
                                 "/throughput/requests_per_s",
                                 "/goodput_requests_per_s",
                                 "/ttft_ms/p99",
                                 "/e2e_ms/p99"};

std::optional<double> metric(const oj& row, const std::string& pointer) {
  const oj& m = row["metrics"];
  const auto it = m.find(pointer);
  if (it == m.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

std::string cell(const oj& v) {
  if (v.is_number()) return short_number(v.get<double>());
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

oj point_row(const Sweep& s, std::size_t index, const nlohmann::json& summary) {
  oj row;
  row["index"] = index;
  row["point"] = point_values(s, index);
  const bool has_digest = summary.contains("digest") && summary["digest"].is_string();
  row["digest"] = has_digest ? oj(summary["digest"].get<std::string>()) : oj(nullptr);
  oj metrics = oj::object();
  auto put = [&](const std::string& p) {
    if (metrics.contains(p)) return;
    const auto v = summary_number(summary, p);
    metrics[p] = v ? oj(*v) : oj(nullptr);
  };
  for (const Constraint& c : s.constraints) put(c.metric);
  put(s.objective.metric);
  for (const Goal& g : s.pareto) put(g.metric);
  for (const char* p : kHeadline) put(p);
  oj violations = oj::array();
  for (const Constraint& c : s.constraints) {
    const auto v = summary_number(summary, c.metric);
    if (!v) {
      violations.push_back(c.metric + " is not a number in the summary");
    } else if (c.max && *v > *c.max) {
      violations.push_back(c.metric + " = " + short_number(*v) + " > " + short_number(*c.max));
    } else if (c.min && *v < *c.min) {
      violations.push_back(c.metric + " = " + short_number(*v) + " < " + short_number(*c.min));
    }
  }
  row["feasible"] = violations.empty();
  row["violations"] = violations;
  row["objective"] = metrics[s.objective.metric];
  row["metrics"] = metrics;
  return row;
}

Ranking rank_rows(const Sweep& s, const std::vector<oj>& rows) {
  Ranking r;
  r.order.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) r.order[i] = i;
  const double sign = s.objective.maximize ? -1.0 : 1.0;
  std::sort(r.order.begin(), r.order.end(), [&](std::size_t a, std::size_t b) {
    const oj& x = rows[a];
    const oj& y = rows[b];
    const bool fx = x["feasible"].get<bool>(), fy = y["feasible"].get<bool>();
    if (fx != fy) return fx;
    const auto ox = metric(x, s.objective.metric), oy = metric(y, s.objective.metric);
    if (ox.has_value() != oy.has_value()) return ox.has_value();
    if (ox && *ox != *oy) return sign * *ox < sign * *oy;
    const std::size_t vx = x["violations"].size(), vy = y["violations"].size();
    if (vx != vy) return vx < vy;
    return x["index"].get<std::size_t>() < y["index"].get<std::size_t>();
  });
  // The front of two goals: sort by the first (then the second, then index), and keep each
  // point that improves on the best second goal seen so far.
  r.pareto.assign(rows.size(), false);
  struct P {
    double x, y;
    std::size_t index, pos;
  };
  std::vector<P> ps;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!rows[i]["feasible"].get<bool>()) continue;
    const auto x = metric(rows[i], s.pareto[0].metric), y = metric(rows[i], s.pareto[1].metric);
    if (!x || !y) continue;
    ps.push_back({s.pareto[0].maximize ? -*x : *x, s.pareto[1].maximize ? -*y : *y,
                  rows[i]["index"].get<std::size_t>(), i});
  }
  std::sort(ps.begin(), ps.end(), [](const P& a, const P& b) {
    if (a.x != b.x) return a.x < b.x;
    if (a.y != b.y) return a.y < b.y;
    return a.index < b.index;
  });
  bool any = false;
  double best_y = 0, last_x = 0;
  for (const P& p : ps) {
    // Equal in both goals to a front point: also on the front (neither dominates).
    const bool tie = any && p.x == last_x && p.y == best_y;
    if (!any || p.y < best_y || tie) {
      r.pareto[p.pos] = true;
      any = true;
      best_y = p.y;
      last_x = p.x;
    }
  }
  return r;
}

oj ranking_json(const Sweep& s, const std::vector<oj>& rows, const Ranking& r) {
  auto goal = [](const Goal& g) { return oj{{g.maximize ? "maximize" : "minimize", g.metric}}; };
  oj out;
  out["objective"] = goal(s.objective);
  out["pareto"] = oj::array({goal(s.pareto[0]), goal(s.pareto[1])});
  oj ranked = oj::array();
  for (std::size_t k = 0; k < r.order.size(); ++k) {
    const oj& row = rows[r.order[k]];
    ranked.push_back({{"rank", k + 1},
                      {"index", row["index"]},
                      {"feasible", row["feasible"]},
                      {"objective", row["objective"]},
                      {"pareto", r.pareto[r.order[k]]}});
  }
  out["ranked"] = ranked;
  return out;
}

std::string ranking_table(const Sweep& s, const std::vector<oj>& rows, const Ranking& r) {
  std::string out = "| rank | point |";
  for (const Axis& a : s.axes) out += " " + a.name + " |";
  out += " " + std::string(s.objective.maximize ? "max " : "min ") + s.objective.metric + " |";
  for (const Goal& g : s.pareto) out += " " + g.metric + " |";
  out += " Pareto | feasible |\n|---|---|";
  for (std::size_t i = 0; i < s.axes.size() + 1 + s.pareto.size() + 2; ++i) out += "---|";
  out += "\n";
  for (std::size_t k = 0; k < r.order.size(); ++k) {
    const oj& row = rows[r.order[k]];
    const std::size_t index = row["index"].get<std::size_t>();
    out += "| " + std::to_string(k + 1) + " | " + std::to_string(index) + " |";
    const std::vector<std::size_t> c = coordinates(s, index);
    for (std::size_t a = 0; a < s.axes.size(); ++a) {
      std::string v;
      for (const AxisMember& m : s.axes[a].members)
        v += (v.empty() ? "" : ", ") + cell(oj::parse(m.values[c[a]].dump()));
      out += " " + v + " |";
    }
    out += " " + cell(row["objective"]) + " |";
    for (const Goal& g : s.pareto) out += " " + cell(row["metrics"][g.metric]) + " |";
    out += std::string(" ") + (r.pareto[r.order[k]] ? "yes" : "") + " |";
    if (row["feasible"].get<bool>()) {
      out += " yes |\n";
    } else {
      std::string why;
      for (const auto& v : row["violations"])
        why += (why.empty() ? "" : "; ") + v.get<std::string>();
      out += " no: " + why + " |\n";
    }
  }
  return out;
}

}  // namespace blis::sweep
