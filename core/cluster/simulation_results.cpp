// Simulation outputs: summary.json, the digest, timeseries.json, requests.csv and the
// per-instance Prometheus text (docs/results.md describes every field).

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "blis_version.h"
#include "cluster/deployment_cost.h"
#include "cluster/simulation.h"
#include "cluster/simulation_state.h"
#include "util/digest.h"

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
  out["ttft_ms"] = summary_of(set.ttft_ms.summary());
  out["itl_ms"] = summary_of(set.itl_us.summary(1e-3));
  out["e2e_ms"] = summary_of(set.e2e_ms.summary());
  out["tpot_ms"] = summary_of(set.tpot_ms.summary());
  out["queue_ms"] = summary_of(set.queue_ms.summary());
  // Throughput over the span from the first request sent to the last one finished, as
  // inference-perf reports it.
  const SimTime span = set.finished > 0 ? set.last_finish - set.first_sent : 0;
  out["throughput"] = ojson{{"requests_per_s", per_second(set.finished, span)},
                            {"output_tokens_per_s", per_second(set.output_tokens, span)},
                            {"input_tokens_per_s", per_second(set.input_tokens, span)}};
  out["goodput_requests_per_s"] = per_second(set.good, span);
}

// "12.345678": microseconds printed exactly as seconds.
void put_seconds(std::string& out, SimTime t) {
  char buf[40];
  const char* sign = t < 0 ? "-" : "";
  const std::int64_t a = t < 0 ? -t : t;
  std::snprintf(buf, sizeof buf, "%s%" PRId64 ".%06" PRId64, sign, a / 1000000, a % 1000000);
  out += buf;
}

// The cost block: GPU count, per-GPU throughput and dollars (deployment_cost.h).
ojson cost_of(const Simulation::State& st, const ojson& throughput, double goodput) {
  std::vector<PoolCostInput> pools;
  for (std::size_t p = 0; p < st.pools.size(); ++p) {
    const PoolRuntime& pr = st.pools[p];
    const scenario::Parallelism& par = st.scenario->pools[p].parallelism;
    pools.push_back({pr.name, static_cast<std::int64_t>(pr.count) * par.tp * par.pp * par.dp,
                     pr.res.usd_per_gpu_hour, pr.res.price_source});
  }
  const DeploymentCost c = deployment_cost(pools, throughput["output_tokens_per_s"].get<double>(),
                                           throughput["requests_per_s"].get<double>(), goodput);
  return cost_json(pools, c);
}

}  // namespace

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
  put_latency_set(out, c);

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
    const InstanceCounters& k = inst.counters();
    instances.push_back(ojson{
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
        {"gpu_busy_fraction", span > 0 ? to_seconds(k.gpu_busy) / to_seconds(span) : 0.0},
    });
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
  out["cost"] = cost_of(st, out["throughput"], out["goodput_requests_per_s"].get<double>());
  out["sim"] = ojson{{"events", st.events}, {"steps", st.steps}, {"simulated_s", to_seconds(span)}};

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
  out["provenance"] = std::move(prov);
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
      "output_tokens,preemptions,status\n";
  const auto& clients = st.scenario->workload.clients;
  char buf[160];
  for (const RequestRow& r : rows) {
    out += std::to_string(r.seq);
    out += ',';
    const auto ci = static_cast<std::size_t>(r.client);
    out += ci < clients.size() ? clients[ci].name : std::string("trace");
    out += ',';
    out += st.instances[static_cast<std::size_t>(r.instance)]->name();
    out += ',';
    put_seconds(out, r.sent);
    out += ',';
    if (r.first_token != kUnset) put_seconds(out, r.first_token);
    out += ',';
    put_seconds(out, r.finish);
    std::snprintf(buf, sizeof buf, ",%d,%d,%d,%d,%s\n", r.prompt_tokens, r.cached_tokens,
                  r.output_tokens, r.preemptions, outcome_name(r.outcome));
    out += buf;
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
