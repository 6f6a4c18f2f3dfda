#include "cluster/saturation_verdict.h"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"

namespace blis::cluster {

namespace {

double mean_between(const SaturationInputs& in, double t0, double t1) {
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < in.time_s.size() && i < in.waiting.size(); ++i) {
    if (in.time_s[i] >= t0 && in.time_s[i] < t1) {
      sum += in.waiting[i];
      ++n;
    }
  }
  return n > 0 ? sum / n : 0.0;
}

}  // namespace

SaturationVerdict judge_saturation(const SaturationInputs& in) {
  char buf[160];
  if (in.arrived > 0 && static_cast<double>(in.aborted) > 0.01 * static_cast<double>(in.arrived)) {
    std::snprintf(buf, sizeof buf, "%llu of %llu requests timed out",
                  static_cast<unsigned long long>(in.aborted),
                  static_cast<unsigned long long>(in.arrived));
    return {true, buf};
  }
  if (in.unfinished > 0) {
    std::snprintf(buf, sizeof buf, "%llu requests never finished",
                  static_cast<unsigned long long>(in.unfinished));
    return {true, buf};
  }
  const double end =
      in.arrivals_end_s > 0 ? in.arrivals_end_s : (in.time_s.empty() ? 0.0 : in.time_s.back());
  if (end > 0) {
    const double mid = mean_between(in, end / 3, 2 * end / 3);
    const double last = mean_between(in, 2 * end / 3, end);
    if (last > 1.5 * mid + 1) {
      std::snprintf(buf, sizeof buf, "waiting queue grew from %.1f to %.1f requests", mid, last);
      return {true, buf};
    }
  }
  return {false, "queues stable, no timeouts"};
}

SaturationInputs saturation_inputs_of(const Simulation& sim) {
  SaturationInputs in;
  const auto s = nlohmann::json::parse(sim.summary_json(0));
  in.arrived = s["requests"]["arrived"].get<std::uint64_t>();
  in.finished = s["requests"]["finished"].get<std::uint64_t>();
  in.aborted = s["requests"]["aborted"].get<std::uint64_t>();
  in.unfinished = s["requests"]["unfinished"].get<std::uint64_t>();
  in.arrivals_end_s = sim.scenario().horizon.duration_s.value_or(0.0);
  const TimeSeries& ts = sim.timeseries();
  const std::size_t t = ts.find("time_s");
  if (t == ts.columns()) return in;
  in.time_s = ts.column(t);
  in.waiting.assign(in.time_s.size(), 0.0);
  const std::string suffix = ".waiting";
  for (std::size_t c = 0; c < ts.columns(); ++c) {
    const std::string& n = ts.name(c);
    if (n.size() <= suffix.size() ||
        n.compare(n.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    const auto& col = ts.column(c);
    for (std::size_t i = 0; i < col.size() && i < in.waiting.size(); ++i) in.waiting[i] += col[i];
  }
  return in;
}

}  // namespace blis::cluster
