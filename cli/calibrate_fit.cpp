// blis calibrate's fitting (calibrate_fit.h).
#include "calibrate_fit.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "cluster/simulation.h"
#include "cluster/vllm_backend.h"
#include "cluster/workload/workload.h"
#include "scenario/scenario_decode.h"

namespace blis::cli::calibrate {

using nlohmann::json;

const std::vector<Param>& known_params() {
  static const std::vector<Param> p = {
      {"/memory/hbm_derate", 0.6, 0.95,
       "achieved fraction of peak HBM bandwidth streaming weights"},
      {"/memory/kernel_floor_us", 2, 15, "shortest memory-bound kernel in a graph, gap included"},
      {"/attention/decode_derate", 0.6, 0.95, "achieved fraction of HBM bandwidth reading KV"},
      {"/attention/decode_per_seq_us", 0, 0.5, "decode attention per sequence per layer"},
      {"/attention/floor_us", 2, 20, "fixed cost of one attention call per layer"},
      {"/moe/expert_derate", 0.6, 1.0, "achieved fraction of HBM bandwidth reading experts"},
      {"/moe/routing_us", 0, 60, "routing kernels per MoE layer"},
      {"/collectives/allreduce_latency_us", 2, 30, "fixed latency of one all-reduce"},
      {"/collectives/allreduce_latency_per_peer_us", 0, 15, "all-reduce latency per extra peer"},
      {"/sampler/step_us", 0, 500, "sampler fixed cost per step"},
      {"/sampler/per_kvocab_us", 0, 10, "sampler cost per 1000 vocabulary entries per step"},
      {"/sampler/per_row_kvocab_us", 0, 0.5, "sampler cost per row per 1000 vocabulary entries"},
      {"/host/step_us", 0, 2000, "engine-core CPU per step"},
      {"/host/per_request_us", 0, 50, "engine-core CPU per scheduled request"},
      {"/serving/request_us", 0, 20000, "HTTP + request handling before the engine"},
      {"/serving/output_per_request_us", 0, 120, "API-server output handling per request"},
  };
  return p;
}

const std::vector<std::string>& default_fit() {
  static const std::vector<std::string> f = {
      "/memory/hbm_derate",
      "/memory/kernel_floor_us",
      "/attention/decode_derate",
      "/moe/expert_derate",
      "/collectives/allreduce_latency_us",
      "/collectives/allreduce_latency_per_peer_us",
      "/sampler/per_kvocab_us",
      "/sampler/per_row_kvocab_us",
      "/serving/request_us",
  };
  return f;
}

Errors simulate(const Run& r, const std::string& text, const std::string& coefficients) {
  cluster::Simulation sim(
      [coefficients] {
        return std::make_unique<cluster::VllmBackend>(std::vector<std::string>{coefficients});
      },
      [](const scenario::Scenario& s) { return cluster::make_workload(s); });
  Errors e;
  if (has_errors(sim.load(text, scenario::DecodeOptions{}))) return e;
  sim.run();
  const json s = json::parse(sim.summary_json(0));
  const double e2e = s["e2e_ms"]["mean"].get<double>(), ttft = s["ttft_ms"]["mean"].get<double>();
  const double itl = s["tpot_ms"]["mean"].get<double>();
  e.e2e = e2e / r.measured.e2e - 1;
  e.ttft = ttft / r.measured.ttft - 1;
  e.itl = itl / r.measured.itl - 1;
  e.ok = std::isfinite(e.e2e) && std::isfinite(e.ttft) && std::isfinite(e.itl);
  return e;
}

namespace {

// One run's residuals: log ratios of the means of E2E, ITL and (weighted by 1/sqrt 2) TTFT.
// A failed simulation counts as a large miss.
void residuals(const Errors& e, std::vector<double>* out) {
  if (!e.ok) {
    out->insert(out->end(), {5.0, 5.0, 5.0});
    return;
  }
  out->push_back(std::log1p(e.e2e));
  out->push_back(std::log1p(e.itl));
  out->push_back(std::log1p(e.ttft) * std::sqrt(0.5));
}

double sum_squares(const std::vector<double>& r) {
  double s = 0;
  for (double v : r) s += v * v;
  return r.empty() ? 0 : s / static_cast<double>(r.size());
}

json with_values(const json& entry, const std::vector<Param>& params,
                 const std::vector<double>& x) {
  json e = entry;
  for (std::size_t i = 0; i < params.size(); ++i) e[json::json_pointer(params[i].pointer)] = x[i];
  return e;
}

std::vector<double> residual_vector(const std::vector<const Run*>& runs, const json& entry) {
  const std::string text = entry.dump();
  std::vector<double> r;
  for (const Run* run : runs) residuals(simulate(*run, run->scenario_short, text), &r);
  return r;
}

// Solves A d = b (n x n, row-major) by Gaussian elimination with partial pivoting.
std::vector<double> solve(std::vector<double> a, std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r) {
      if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
    }
    for (std::size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[piv * n + k]);
    std::swap(b[c], b[piv]);
    if (std::fabs(a[c * n + c]) < 1e-300) continue;
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = a[r * n + c] / a[c * n + c];
      for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
      b[r] -= f * b[c];
    }
  }
  std::vector<double> x(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    double v = b[i];
    for (std::size_t k = i + 1; k < n; ++k) v -= a[i * n + k] * x[k];
    x[i] = std::fabs(a[i * n + i]) < 1e-300 ? 0 : v / a[i * n + i];
  }
  return x;
}

// (run, coefficient) pairs whose results do not depend on the coefficient (see fit()).
std::set<std::string> unused_;

}  // namespace

// Levenberg-Marquardt from the entry's values, in coordinates scaled to each parameter's
// range and clamped to it: forward-difference Jacobian (2% of the range), damping 0.01 x the
// diagonal, raised tenfold when a step does not lower the mean squared residual. Deterministic:
// fixed start, fixed steps, no random numbers.
Fit fit(const std::vector<const Run*>& runs, const json& start, const std::vector<Param>& params,
        int iterations) {
  Fit f;
  const std::size_t n = params.size();
  for (const Param& p : params) {
    const json::json_pointer ptr(p.pointer);
    const double v = start.contains(ptr) ? start.at(ptr).get<double>() : p.lo;
    f.x.push_back(std::min(p.hi, std::max(p.lo, v)));
  }
  auto clamp = [&](std::size_t i, double v) {
    return std::min(params[i].hi, std::max(params[i].lo, v));
  };
  std::vector<double> r = residual_vector(runs, with_values(start, params, f.x));
  f.objective = sum_squares(r);
  f.evals = 1;
  double lambda = 0.01;
  for (int it = 0; it < iterations; ++it) {
    const std::size_t m = r.size();
    std::vector<double> jac(m * n);  // d residual / d (x / range)
    for (std::size_t i = 0; i < n; ++i) {
      const double range = params[i].hi - params[i].lo;
      std::vector<double> y = f.x;
      double h = 0.02 * range;
      if (y[i] + h > params[i].hi) h = -h;
      y[i] = clamp(i, y[i] + h);
      const std::string text = with_values(start, params, y).dump();
      for (std::size_t q = 0; q < runs.size(); ++q) {
        // A coefficient a run does not use (experts of a dense model, all-reduce at TP 1)
        // leaves its result bit-identical: once seen, that run is not simulated for it again.
        const std::string key = runs[q]->name + " " + params[i].pointer;
        std::vector<double> rq;
        if (unused_.count(key) == 0)
          residuals(simulate(*runs[q], runs[q]->scenario_short, text), &rq);
        for (std::size_t c = 0; c < 3; ++c) {
          const double d = rq.empty() ? 0 : rq[c] - r[3 * q + c];
          jac[(3 * q + c) * n + i] = d / (h / range);
        }
        if (!rq.empty() && rq[0] == r[3 * q] && rq[1] == r[3 * q + 1] && rq[2] == r[3 * q + 2]) {
          unused_.insert(key);
        }
      }
      ++f.evals;
    }
    std::vector<double> jtj(n * n, 0), jtr(n, 0);
    for (std::size_t k = 0; k < m; ++k) {
      for (std::size_t i = 0; i < n; ++i) {
        jtr[i] -= jac[k * n + i] * r[k];
        for (std::size_t j = 0; j < n; ++j) jtj[i * n + j] += jac[k * n + i] * jac[k * n + j];
      }
    }
    bool accepted = false;
    for (int attempt = 0; attempt < 4 && !accepted; ++attempt) {
      std::vector<double> a = jtj;
      for (std::size_t i = 0; i < n; ++i) a[i * n + i] += lambda * (jtj[i * n + i] + 1e-9);
      const std::vector<double> d = solve(a, jtr);
      std::vector<double> y = f.x;
      for (std::size_t i = 0; i < n; ++i)
        y[i] = clamp(i, y[i] + d[i] * (params[i].hi - params[i].lo));
      const std::vector<double> ry = residual_vector(runs, with_values(start, params, y));
      ++f.evals;
      const double obj = sum_squares(ry);
      if (obj < f.objective) {
        f.x = y, r = ry, f.objective = obj, accepted = true;
        lambda = std::max(1e-4, lambda / 10);
      } else {
        lambda *= 10;
      }
    }
    std::fprintf(stderr, "calibrate: iteration %d, %d evaluations, objective %.5f\n", it + 1,
                 f.evals, f.objective);
    if (!accepted) break;
  }
  f.entry = with_values(start, params, f.x);
  return f;
}

}  // namespace blis::cli::calibrate
