// Simulation outputs: summary.json, the digest, timeseries.json, requests.csv and the
// per-instance Prometheus text (docs/results.md describes every field).

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "blis_version.h"
#include "cluster/dense_dp_engine.h"
#include "cluster/deployment_cost.h"
#include "cluster/dp_engine.h"
#include "cluster/simulation.h"
#include "cluster/simulation_state.h"
#include "util/digest.h"
#include "util/text.h"

namespace blis::cluster {
namespace {

using ojson = nlohmann::ordered_json;

ojson summary_of(const Summary& s) {
  return ojson{{"mean", s.mean}, {"p50", s.p50}, {"p90", s.p90},
               {"p95", s.p95},   {"p99", s.p99}, {"max", s.max}};
}

double per_second(std::uint64_t n, SimTime span) {
  return span > 0 ? static_cast<double>(n) / to_seconds(span) : 0.0;
}

// Latencies, throughput and goodput of one scope (the cluster or a pool).
void put_latency_set(ojson& out, const LatencySet& set) {
  const std::pair<const char*, Summary> dists[] = {{"ttft_ms", set.ttft_ms.summary()},
                                                   {"itl_ms", set.itl_us.summary(1e-3)},
                                                   {"e2e_ms", set.e2e_ms.summary()},
                                                   {"tpot_ms", set.tpot_ms.summary()},
                                                   {"queue_ms", set.queue_ms.summary()}};
  ojson approximate = ojson::array();
  for (const auto& [key, s] : dists) {
    out[key] = summary_of(s);
    if (!s.exact) approximate.push_back(key);
  }
  // Beyond Percentiles::kExactLimit distinct values a distribution's percentiles come from
  // the relative-error sketch (util/percentiles.h); said only then, so exact runs keep their
  // summary and digest.
  if (!approximate.empty()) {
    out["percentiles"] = ojson{{"exact", false},
                               {"approximate", std::move(approximate)},
                               {"relative_error", Percentiles::kRelativeError},
                               {"exact_limit", Percentiles::kExactLimit}};
  }
  // Throughput over the span from the first request sent to the last one finished, as
  // inference-perf reports it.
  const SimTime span = set.finished > 0 ? set.last_finish - set.first_sent : 0;
  out["throughput"] = ojson{{"requests_per_s", per_second(set.finished, span)},
                            {"output_tokens_per_s", per_second(set.output_tokens, span)},
                            {"input_tokens_per_s", per_second(set.input_tokens, span)}};
  out["goodput_requests_per_s"] = per_second(set.good, span);
}

// `t` microseconds printed exactly in units of `per` microseconds, with as many decimals as
// `per` has zeros: "12.345678" (seconds, per = 10^6, 6 digits), "12.345" (milliseconds).
void put_exact(std::string& out, SimTime t, std::int64_t per, int digits) {
  char buf[40];
  const char* sign = t < 0 ? "-" : "";
  const std::int64_t a = t < 0 ? -t : t;
  std::snprintf(buf, sizeof buf, "%s%" PRId64 ".%0*" PRId64, sign, a / per, digits, a % per);
  out += buf;
}

void put_seconds(std::string& out, SimTime t) {
  put_exact(out, t, 1000000, 6);
}

// True when any SLO target is set (the scenario's or a class's): without one, "goodput" would
// only restate throughput, so summary.json writes null instead.
bool any_slo(const scenario::Scenario& sc) {
  auto set = [](const scenario::Slo& s) { return s.ttft_ms || s.itl_ms || s.e2e_ms; };
  if (set(sc.slo)) return true;
  for (const auto& c : sc.slo_classes) {
    if (set(c.slo)) return true;
  }
  return false;
}

ojson slo_of(const scenario::Slo& s) {
  ojson o = ojson::object();
  if (s.ttft_ms) o["ttft_ms"] = *s.ttft_ms;
  if (s.itl_ms) o["itl_ms"] = *s.itl_ms;
  if (s.e2e_ms) o["e2e_ms"] = *s.e2e_ms;
  return o;
}

// The saturation verdict (docs/results.md "Saturation"), from what the run has seen so far:
//  - overloaded: at least 1% of arrived requests timed out (aborted) or were rejected;
//  - backlogged: the cluster's waiting queue grew over the arrival period: its mean over the
//    second half of the arrival window is at least twice that of the first half and at least
//    one more request per instance;
//  - stable: neither.
ojson saturation_of(const Simulation::State& st, std::uint64_t arrived, std::uint64_t lost) {
  const SimTime now = st.done ? st.end : st.now;
  const auto& dur = st.scenario->horizon.duration_s;
  const double window_s = std::min(to_seconds(now), dur ? *dur : to_seconds(now));
  double sum[2] = {0, 0};
  std::uint64_t count[2] = {0, 0};
  const TimeSeries& ts = st.series;
  for (std::size_t r = 0; r < ts.rows(); ++r) {
    const double t = ts.column(st.col_time)[r];
    if (!(window_s > 0) || t > window_s) continue;
    double waiting = 0;
    for (const auto& c : st.inst_cols) waiting += ts.column(c.waiting)[r];
    // Requests the EPP's flow control holds wait too, at the gateway.
    if (st.router.flow() != nullptr) waiting += ts.column(st.col_flow_queued)[r];
    const int half = t * 2 < window_s ? 0 : 1;
    sum[half] += waiting;
    ++count[half];
  }
  const double first = count[0] > 0 ? sum[0] / static_cast<double>(count[0]) : 0.0;
  const double second = count[1] > 0 ? sum[1] / static_cast<double>(count[1]) : 0.0;
  const auto n = static_cast<double>(st.instances.size());
  std::string verdict = "stable";
  char reason[200];
  if (lost > 0 && static_cast<double>(lost) * 100 >= static_cast<double>(arrived)) {
    verdict = "overloaded";
    std::snprintf(reason, sizeof reason, "%llu of %llu arrived requests timed out or were rejected",
                  static_cast<unsigned long long>(lost), static_cast<unsigned long long>(arrived));
  } else if (count[0] > 0 && count[1] > 0 && second >= 2 * first && second >= first + n) {
    verdict = "backlogged";
    std::snprintf(reason, sizeof reason,
                  "the waiting queue grew from %.1f to %.1f requests (mean, first vs second half "
                  "of the arrivals)",
                  first, second);
  } else {
    std::snprintf(reason, sizeof reason,
                  "no timeouts and no queue growth (waiting %.1f then %.1f requests on average)",
                  first, second);
  }
  return ojson{{"verdict", verdict},
               {"reason", reason},
               {"waiting_mean_first_half", first},
               {"waiting_mean_second_half", second},
               {"timed_out_or_rejected", lost}};
}

void put_millis(std::string& out, SimTime t) {
  put_exact(out, t, 1000, 3);
}

// The cost block: GPU count, per-GPU throughput and dollars (deployment_cost.h).
ojson cost_of(const Simulation::State& st, const ojson& throughput, const ojson& goodput) {
  std::vector<PoolCostInput> pools;
  for (std::size_t p = 0; p < st.pools.size(); ++p) {
    const PoolRuntime& pr = st.pools[p];
    const scenario::Parallelism& par = st.scenario->pools[p].parallelism;
    pools.push_back({pr.name, static_cast<std::int64_t>(pr.count) * par.tp * par.pp * par.dp,
                     pr.res.usd_per_gpu_hour, pr.res.price_source});
  }
  const DeploymentCost c =
      deployment_cost(pools, throughput["output_tokens_per_s"].get<double>(),
                      throughput["requests_per_s"].get<double>(),
                      goodput.is_null() ? std::optional<double>() : goodput.get<double>());
  return cost_json(pools, c);
}

// What only some instances have, so documents without it keep their results (and digests):
// data parallelism's wave bookkeeping, passes whose transfers between nodes were slowed.
void put_instance_extras(const Instance& inst, ojson& out) {
  if (const auto* dense = dynamic_cast<const DenseDpEngine*>(&inst.engine())) {
    // Independent ranks (no waves): what the balancer sent to each and the passes each ran.
    ojson per_rank = ojson::array(), steps = ojson::array();
    for (std::int64_t n : dense->requests_per_rank()) per_rank.push_back(n);
    for (std::int64_t n : dense->steps_per_rank()) steps.push_back(n);
    out["dp"] = ojson{{"ranks", dense->dp()},
                      {"requests_per_rank", std::move(per_rank)},
                      {"steps_per_rank", std::move(steps)}};
  }
  if (const auto* dp = dynamic_cast<const DpEngine*>(&inst.engine())) {
    const DpWaveCounters& w = dp->waves();
    ojson per_rank = ojson::array();
    for (std::int64_t n : dp->requests_per_rank()) per_rank.push_back(n);
    out["dp"] = ojson{{"waves_started", w.waves_started},
                      {"waves_completed", w.waves_completed},
                      {"steps", w.steps},
                      {"dummy_batches", w.dummy_passes},
                      {"requests_per_rank", std::move(per_rank)}};
  }
  const InstanceCounters& k = inst.counters();
  if (k.collectives_slowed > 0) {
    out["network"] =
        ojson{{"passes_slowed", k.collectives_slowed},
              {"collective_extra_ms", static_cast<double>(k.collective_extra) / 1000.0}};
    if (k.collectives_repriced > 0) out["network"]["passes_repriced"] = k.collectives_repriced;
  }
}

// The links' share of the run: the P/D pulls that crossed a link against their time alone,
// and the passes whose transfers between nodes were slowed by flows sharing their links;
// present when either happened.
void put_network(const Simulation::State& st, ojson& out) {
  std::uint64_t slowed = 0, repriced = 0;
  SimTime extra = 0;
  for (const auto& inst : st.instances) {
    slowed += inst->counters().collectives_slowed;
    repriced += inst->counters().collectives_repriced;
    extra += inst->counters().collective_extra;
  }
  if (slowed == 0 && st.pulls_timed == 0) return;
  const double n = static_cast<double>(st.pulls_timed);
  out["network"] = ojson{
      {"passes_slowed", slowed},
      {"collective_extra_ms", static_cast<double>(extra) / 1000.0},
      {"kv_pulls", st.pulls_timed},
      {"kv_pull_ms_mean", st.pulls_timed > 0 ? st.pull_us_sum / n / 1000.0 : 0.0},
      {"kv_pull_alone_ms_mean", st.pulls_timed > 0 ? st.pull_alone_us_sum / n / 1000.0 : 0.0}};
  // Present only when it happened, so a run without it reads as before.
  if (repriced > 0) out["network"]["passes_repriced"] = repriced;
}

// P/D pulls that failed (kv_pull_failure_rate): present when some did.
void put_kv_load_failures(const Simulation::State& st, ojson& out) {
  if (st.pulls_failed == 0) return;
  std::uint64_t failed = 0, errored = 0;
  for (const auto& inst : st.instances) {
    const engine::EngineStats s = inst->engine().stats();
    failed += s.kv_load_failed_requests;
    errored += s.kv_load_errored_requests;
  }
  out["kv_load_failures"] = ojson{{"pulls_failed", st.pulls_failed},
                                  {"requests_errored", errored},
                                  {"requests_recomputed", failed - errored},
                                  {"error_responses", st.kv_load_errors}};
}

}  // namespace

// The EPP's flow-control layer (router epp with the flowControl feature gate): its
// rejected_capacity (HTTP 429) and evicted_ttl (HTTP 503) are among requests.rejected.
static ojson flow_control_of(const epp::FlowController& fc) {
  const epp::FlowStats& f = fc.stats();
  ojson out{
      {"enqueued", f.enqueued},
      {"dispatched", f.dispatched},
      {"rejected_capacity", f.rejected_capacity},
      {"evicted_ttl", f.evicted_ttl},
      {"cancelled", f.cancelled},
      {"queued", fc.queued()},
      {"max_queued", f.max_queued},
      {"wait_ms_mean", f.dispatched > 0 ? f.wait_ms_sum / static_cast<double>(f.dispatched) : 0.0},
      {"wait_ms_max", f.wait_ms_max}};
  ojson bands = ojson::array();
  for (const auto& [prio, b] : fc.band_stats()) {
    bands.push_back(
        ojson{{"priority", prio},
              {"enqueued", b.enqueued},
              {"dispatched", b.dispatched},
              {"rejected_capacity", b.rejected_capacity},
              {"evicted_ttl", b.evicted_ttl},
              {"cancelled", b.cancelled},
              {"max_queued", b.max_queued},
              {"wait_ms_mean",
               b.dispatched > 0 ? b.wait_ms_sum / static_cast<double>(b.dispatched) : 0.0},
              {"wait_ms_max", b.wait_ms_max}});
  }
  out["bands"] = std::move(bands);
  return out;
}

// What produced the results: the engines per pool and the catalog and coefficient sources.
static ojson provenance_of(const Simulation::State& st) {
  ojson prov;
  prov["blis"] = BLIS_VERSION;
  ojson engines = ojson::array();
  std::set<std::string> catalog, coefficients;
  for (std::size_t p = 0; p < st.pools.size(); ++p) {
    const PoolRuntime& pr = st.pools[p];
    const engine::Provenance e =
        st.instances[static_cast<std::size_t>(pr.first_instance)]->engine().provenance();
    engines.push_back(ojson{{"pool", pr.name},
                            {"kind", e.kind},
                            {"release", e.release},
                            {"upstream_repo", e.upstream_repo},
                            {"upstream_commit", e.upstream_commit}});
    catalog.insert(pr.res.catalog_entries.begin(), pr.res.catalog_entries.end());
    coefficients.insert(pr.res.coefficient_sources.begin(), pr.res.coefficient_sources.end());
    if (!pr.res.overheads.source.empty()) coefficients.insert(pr.res.overheads.source);
  }
  prov["engines"] = std::move(engines);
  prov["catalog"] = std::vector<std::string>(catalog.begin(), catalog.end());
  prov["coefficients"] = std::vector<std::string>(coefficients.begin(), coefficients.end());
  return prov;
}

// One instance's row of summary.json "instances".
static ojson instance_row(const Simulation::State& st, const Instance& inst,
                          const engine::EngineStats& s, const InstanceTally& t, double kv_mean,
                          SimTime span) {
  const auto p = static_cast<std::size_t>(inst.pool());
  const InstanceCounters& k = inst.counters();
  ojson row{
      {"name", inst.name()},
      {"pool", st.pools[p].name},
      {"requests", ojson{{"routed", t.routed},
                         {"finished", t.finished},
                         {"aborted", t.aborted},
                         {"rejected", t.rejected}}},
      {"ttft_ms_mean", t.ttft_ms.mean()},
      {"e2e_ms_mean", t.e2e_ms.mean()},
      {"preemptions", s.preemptions},
      {"prefix_cache_hit_rate", s.prefix_queries > 0 ? static_cast<double>(s.prefix_hits) /
                                                           static_cast<double>(s.prefix_queries)
                                                     : 0.0},
      {"kv_usage", ojson{{"mean", kv_mean}, {"max", t.kv_max}}},
      {"kv_blocks", s.num_total_blocks},
      {"steps", k.steps},
      // A dense model's DP ranks each have their GPUs: the mean over the ranks' sets.
      {"gpu_busy_fraction",
       span > 0 ? to_seconds(k.gpu_busy) / to_seconds(span) / inst.lanes() : 0.0},
  };
  if (inst.lora() != nullptr) {
    // LoRA pools only, so documents without LoRA keep their results (and digests); a dense
    // DP instance's ranks summed.
    LoraCounters lc;
    for (std::int32_t lane = 0; lane < inst.lanes(); ++lane) {
      const LoraCounters& x = inst.lora(lane)->counters();
      lc.cpu_loads += x.cpu_loads;
      lc.gpu_loads += x.gpu_loads;
      lc.load_us += x.load_us;
      lc.compute_us += x.compute_us;
    }
    row["lora"] = ojson{{"cpu_loads", lc.cpu_loads},
                        {"gpu_loads", lc.gpu_loads},
                        {"load_ms", lc.load_us / 1000.0},
                        {"compute_ms", lc.compute_us / 1000.0}};
  }
  put_instance_extras(inst, row);
  return row;
}

// Everything in summary.json except sim.wall_s and the digest.
static ojson summary_body(const Simulation::State& st) {
  const scenario::Scenario& sc = *st.scenario;
  const LatencySet& c = st.results.cluster();
  ojson out;
  out["schema"] = "blis/results/v1";
  out["scenario"] = sc.name;
  out["seed"] = sc.seed;
  const std::uint64_t in_flight = st.requests.live();
  out["requests"] = ojson{{"arrived", st.results.arrived()},
                          {"finished", c.finished},
                          {"aborted", c.aborted},
                          {"rejected", c.rejected},
                          {"unfinished", in_flight}};
  if (const epp::FlowController* fc = st.router.flow()) out["flow_control"] = flow_control_of(*fc);
  put_latency_set(out, c);
  const bool has_slo = any_slo(sc);
  if (!has_slo) out["goodput_requests_per_s"] = nullptr;
  out["slo"] = slo_of(sc.slo);
  if (!sc.slo_classes.empty()) {
    ojson classes = ojson::object();
    for (const auto& cl : sc.slo_classes) classes[cl.name] = slo_of(cl.slo);
    out["slo"]["classes"] = std::move(classes);
  }
  out["saturation"] = saturation_of(st, st.results.arrived(), c.aborted + c.rejected);

  std::uint64_t preemptions = 0, queries = 0, hits = 0;
  double kv_mean_sum = 0, kv_max = 0;
  const SimTime span = st.done ? st.end : st.now;
  ojson instances = ojson::array();
  std::vector<std::uint64_t> pool_preempt(st.pools.size(), 0), pool_q(st.pools.size(), 0),
      pool_h(st.pools.size(), 0);
  std::vector<double> pool_kv_sum(st.pools.size(), 0), pool_kv_max(st.pools.size(), 0);
  // Pools with a KV connector also report the connector's share (absent otherwise, so runs
  // without connectors keep their summary and digest).
  std::vector<std::uint64_t> pool_xq(st.pools.size(), 0), pool_xh(st.pools.size(), 0);
  std::vector<std::uint8_t> pool_conn(st.pools.size(), 0);
  for (std::size_t i = 0; i < st.instances.size(); ++i) {
    const Instance& inst = *st.instances[i];
    const engine::EngineStats s = inst.engine().stats();
    const InstanceTally& t = st.results.instance(i);
    // Time-weighted mean KV usage up to the current instant.
    const double integral =
        t.kv_integral + t.kv_current * static_cast<double>(std::max<SimTime>(0, span - t.kv_since));
    const double kv_mean = span > 0 ? integral / static_cast<double>(span) : 0.0;
    const auto p = static_cast<std::size_t>(inst.pool());
    preemptions += s.preemptions;
    queries += s.prefix_queries;
    hits += s.prefix_hits;
    kv_mean_sum += kv_mean;
    kv_max = std::max(kv_max, t.kv_max);
    pool_preempt[p] += s.preemptions;
    pool_q[p] += s.prefix_queries;
    pool_h[p] += s.prefix_hits;
    pool_kv_sum[p] += kv_mean;
    pool_kv_max[p] = std::max(pool_kv_max[p], t.kv_max);
    if (s.has_connector) {
      pool_conn[p] = 1;
      pool_xq[p] += s.external_prefix_queries;
      pool_xh[p] += s.external_prefix_hits;
    }
    instances.push_back(instance_row(st, inst, s, t, kv_mean, span));
  }
  out["preemptions"] = preemptions;
  out["prefix_cache_hit_rate"] =
      queries > 0 ? static_cast<double>(hits) / static_cast<double>(queries) : 0.0;
  const auto n_inst = static_cast<double>(st.instances.size());
  out["kv_usage"] = ojson{{"mean", n_inst > 0 ? kv_mean_sum / n_inst : 0.0}, {"max", kv_max}};

  ojson pools = ojson::array();
  for (std::size_t p = 0; p < st.pools.size(); ++p) {
    const PoolRuntime& pr = st.pools[p];
    const LatencySet& ps = st.results.pool(p);
    ojson po;
    po["name"] = pr.name;
    po["role"] = pr.role;
    po["instances"] = pr.count;
    po["requests"] =
        ojson{{"finished", ps.finished}, {"aborted", ps.aborted}, {"rejected", ps.rejected}};
    put_latency_set(po, ps);
    if (!has_slo) po["goodput_requests_per_s"] = nullptr;
    po["preemptions"] = pool_preempt[p];
    po["prefix_cache_hit_rate"] =
        pool_q[p] > 0 ? static_cast<double>(pool_h[p]) / static_cast<double>(pool_q[p]) : 0.0;
    po["kv_usage"] =
        ojson{{"mean", pr.count > 0 ? pool_kv_sum[p] / pr.count : 0.0}, {"max", pool_kv_max[p]}};
    po["kv_blocks_per_instance"] = pr.res.gpu_blocks;
    if (pool_conn[p] != 0) {
      // vllm:external_prefix_cache_hits / queries: tokens the connector supplied (NIXL: the
      // pulled prompt; offload: CPU hits beyond the GPU hit) over tokens looked up.
      po["external_prefix_cache_hit_rate"] =
          pool_xq[p] > 0 ? static_cast<double>(pool_xh[p]) / static_cast<double>(pool_xq[p]) : 0.0;
    }
    pools.push_back(std::move(po));
  }
  out["pools"] = std::move(pools);
  out["instances"] = std::move(instances);
  out["cost"] = cost_of(st, out["throughput"], out["goodput_requests_per_s"]);
  put_network(st, out);
  put_kv_load_failures(st, out);
  out["sim"] = ojson{{"events", st.events}, {"steps", st.steps}, {"simulated_s", to_seconds(span)}};

  out["provenance"] = provenance_of(st);
  return out;
}

static const char* outcome_name(RequestOutcome o) {
  switch (o) {
    case RequestOutcome::kFinished:
      return "finished";
    case RequestOutcome::kAborted:
      return "aborted";
    case RequestOutcome::kRejected:
      return "rejected";
  }
  return "finished";
}

static std::string render_requests_csv(const Simulation::State& st) {
  std::vector<RequestRow> rows = st.results.rows();
  std::stable_sort(rows.begin(), rows.end(),
                   [](const RequestRow& a, const RequestRow& b) { return a.seq < b.seq; });
  std::string out =
      "id,client,instance,arrival_s,first_token_s,finish_s,prompt_tokens,cached_tokens,"
      "output_tokens,preemptions,status,ttft_ms,e2e_ms\n";
  const auto& clients = st.scenario->workload.clients;
  char buf[160];
  for (const RequestRow& r : rows) {
    out += std::to_string(r.seq);
    out += ',';
    const auto ci = static_cast<std::size_t>(r.client);
    // RFC 4180: a client name with a comma, quote or line break is quoted.
    out += ci < clients.size() ? csv_field(clients[ci].name) : std::string("trace");
    out += ',';
    out += st.instances[static_cast<std::size_t>(r.instance)]->name();
    out += ',';
    put_seconds(out, r.sent);
    out += ',';
    if (r.first_token != kUnset) put_seconds(out, r.first_token);
    out += ',';
    put_seconds(out, r.finish);
    std::snprintf(buf, sizeof buf, ",%d,%d,%d,%d,%s,", r.prompt_tokens, r.cached_tokens,
                  r.output_tokens, r.preemptions, outcome_name(r.outcome));
    out += buf;
    // Latencies as the summary defines them (empty when the request never got that far).
    if (r.first_token != kUnset) put_millis(out, r.first_token - r.sent);
    out += ',';
    if (r.outcome == RequestOutcome::kFinished) put_millis(out, r.finish - r.sent);
    out += '\n';
  }
  return out;
}

static std::string compute_digest(const Simulation::State& st) {
  Digest d;
  d.add_string(summary_body(st).dump());
  d.add_string(st.series.to_json(st.scenario->outputs.timeseries_interval_ms));
  d.add_string(render_requests_csv(st));
  return d.hex();
}

std::string Simulation::summary_json(double wall_s) const {
  if (!st_) throw std::logic_error("no scenario loaded");
  ojson out = summary_body(*st_);
  out["sim"]["wall_s"] = wall_s;
  out["digest"] = compute_digest(*st_);
  return out.dump(2);
}

std::string Simulation::digest() const {
  if (!st_) throw std::logic_error("no scenario loaded");
  return compute_digest(*st_);
}

const TimeSeries& Simulation::timeseries() const {
  if (!st_) throw std::logic_error("no scenario loaded");
  return st_->series;
}

std::string Simulation::timeseries_json() const {
  if (!st_) throw std::logic_error("no scenario loaded");
  return st_->series.to_json(st_->scenario->outputs.timeseries_interval_ms);
}

std::string Simulation::requests_csv() const {
  if (!st_) throw std::logic_error("no scenario loaded");
  return render_requests_csv(*st_);
}

std::size_t Simulation::instance_count() const {
  return st_ ? st_->instances.size() : 0;
}

std::string Simulation::instance_name(std::size_t i) const {
  if (!st_ || i >= st_->instances.size()) throw std::out_of_range("no such instance");
  return st_->instances[i]->name();
}

const engine::Engine& Simulation::instance_engine(std::size_t i) const {
  if (!st_ || i >= st_->instances.size()) throw std::out_of_range("no such instance");
  return st_->instances[i]->engine();
}

std::string Simulation::metrics_text(std::size_t i) const {
  if (!st_ || i >= st_->instances.size()) throw std::out_of_range("no such instance");
  const Instance& inst = *st_->instances[i];
  const auto& pool = st_->scenario->pools[static_cast<std::size_t>(inst.pool())];
  std::string model = pool.model;
  // Prometheus label values escape backslash, quote and newline.
  std::string escaped;
  for (const char ch : model) {
    if (ch == '\\' || ch == '"') escaped += '\\';
    if (ch == '\n') {
      escaped += "\\n";
      continue;
    }
    escaped += ch;
  }
  return inst.engine().metrics_text(st_->now, "model_name=\"" + escaped + "\",engine=\"0\"");
}

const scenario::Scenario& Simulation::scenario() const {
  if (!scenario_) throw std::logic_error("no scenario loaded");
  return *scenario_;
}

std::uint64_t Simulation::events_processed() const {
  return st_ ? st_->events : 0;
}

std::uint64_t Simulation::requests_finished() const {
  return st_ ? st_->results.cluster().finished : 0;
}

}  // namespace blis::cluster
