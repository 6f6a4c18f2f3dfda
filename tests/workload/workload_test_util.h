#pragma once
// Helpers for the workload tests: scenario builders and a tiny driver that plays the
// cluster's part (pops arrivals, finishes each request after a chosen latency, reports
// on_finished), so closed loops and multi-turn sessions can be exercised without an engine.

#include <cstdint>
#include <functional>
#include <queue>
#include <string>
#include <vector>

#include "cluster/workload/workload.h"
#include "scenario/scenario.h"
#include "util/digest.h"

namespace blis::cluster::testing {

inline scenario::LengthDist constant_len(double v) {
  scenario::LengthDist d;
  d.kind = scenario::LengthDist::Kind::kConstant;
  d.value = v;
  return d;
}
inline scenario::LengthDist dist(scenario::LengthDist::Kind kind, double mean, double std = 0) {
  scenario::LengthDist d;
  d.kind = kind;
  d.mean = mean;
  d.std = std;
  return d;
}
inline scenario::LengthDist uniform_len(double lo, double hi) {
  scenario::LengthDist d;
  d.kind = scenario::LengthDist::Kind::kUniform;
  d.min = lo;
  d.max = hi;
  return d;
}

inline scenario::Load rate_load(
    double rate, scenario::ArrivalProcess::Kind kind = scenario::ArrivalProcess::Kind::kPoisson,
    double cv = 1.0) {
  scenario::Load l;
  l.kind = scenario::Load::Kind::kRate;
  l.rate = rate;
  l.arrival.kind = kind;
  l.arrival.cv = cv;
  return l;
}
inline scenario::Load stages_load(std::vector<scenario::LoadStage> stages,
                                  scenario::ArrivalProcess::Kind kind) {
  scenario::Load l;
  l.kind = scenario::Load::Kind::kStages;
  l.stages = std::move(stages);
  l.arrival.kind = kind;
  return l;
}
inline scenario::Load concurrency_load(std::int32_t users, double think_s) {
  scenario::Load l;
  l.kind = scenario::Load::Kind::kConcurrency;
  l.concurrency = users;
  l.think_time_s = think_s;
  return l;
}

inline scenario::Client lengths_client(const std::string& name, scenario::Load load,
                                       scenario::LengthDist prompt, scenario::LengthDist output) {
  scenario::Client c;
  c.name = name;
  c.load = std::move(load);
  c.prompt_tokens = prompt;
  c.output_tokens = output;
  return c;
}

inline scenario::Client shared_prefix_client(const std::string& name, scenario::Load load,
                                             scenario::SharedPrefix sp) {
  scenario::Client c;
  c.name = name;
  c.load = std::move(load);
  c.shared_prefix = sp;
  return c;
}

inline scenario::Scenario scenario_with(std::vector<scenario::Client> clients,
                                        std::optional<double> duration_s,
                                        std::optional<std::int64_t> max_requests = std::nullopt,
                                        std::uint64_t seed = 1) {
  scenario::Scenario s;
  s.seed = seed;
  s.horizon.duration_s = duration_s;
  s.horizon.max_requests = max_requests;
  s.workload.clients = std::move(clients);
  return s;
}

// Pops every request of an open-loop workload (no feedback), at most `limit`.
inline std::vector<GeneratedRequest> pop_all(Workload& w, std::size_t limit = 1000000) {
  std::vector<GeneratedRequest> out;
  while (out.size() < limit && w.next_arrival() != kSimTimeNever) {
    out.emplace_back();
    w.pop(out.back());
  }
  return out;
}

inline void add_to_digest(const GeneratedRequest& r, Digest& d) {
  d.add_u64(r.seq);
  d.add_i64(r.arrival);
  d.add_i64(r.client);
  d.add_i64(r.session);
  d.add_i64(r.turn);
  d.add_u64(r.prompt_token_ids.size());
  for (std::int32_t id : r.prompt_token_ids) d.add_i64(id);
  d.add_i64(r.output_tokens);
  d.add_i64(r.max_tokens);
  d.add_i64(r.output_token_base);
  d.add_i64(r.prefix_group);
  d.add_i64(r.priority);
  d.add_i64(r.lora);
  d.add_string(r.slo_class);
}

// Plays the cluster: every popped request finishes `latency(request)` later with
// `produced(request)` output tokens (its output_tokens by default). Finishes at an instant are
// reported before arrivals at the same instant. Stops when the workload is exhausted and
// nothing is in flight, or after `max_requests` requests. Calls `on_arrival` for each request
// with the number in flight (including it) and `on_finish` for each finish.
struct DriveResult {
  std::vector<GeneratedRequest> requests;
  std::vector<SimTime> finish;  // finish[i] of requests[i]
  std::int64_t max_in_flight = 0;
};

inline DriveResult drive(
    Workload& w, const std::function<SimTime(const GeneratedRequest&)>& latency,
    std::size_t max_requests = 100000,
    const std::function<std::int32_t(const GeneratedRequest&)>& produced = {}) {
  DriveResult res;
  using Finish = std::pair<SimTime, std::size_t>;  // (time, request index)
  std::priority_queue<Finish, std::vector<Finish>, std::greater<Finish>> finishes;
  std::int64_t in_flight = 0;
  for (;;) {
    const SimTime next_finish = finishes.empty() ? kSimTimeNever : finishes.top().first;
    const SimTime next_arrival =
        res.requests.size() >= max_requests ? kSimTimeNever : w.next_arrival();
    if (next_finish == kSimTimeNever && next_arrival == kSimTimeNever) break;
    if (next_finish <= next_arrival) {
      const std::size_t i = finishes.top().second;
      finishes.pop();
      --in_flight;
      const GeneratedRequest& r = res.requests[i];
      w.on_finished(r, produced ? produced(r) : r.output_tokens, next_finish);
      continue;
    }
    res.requests.emplace_back();
    w.pop(res.requests.back());
    const GeneratedRequest& r = res.requests.back();
    const SimTime done = r.arrival + latency(r);
    res.finish.push_back(done);
    finishes.push({done, res.requests.size() - 1});
    ++in_flight;
    if (in_flight > res.max_in_flight) res.max_in_flight = in_flight;
  }
  return res;
}

}  // namespace blis::cluster::testing
