// Simulation::load: the checks a run needs, then the run's state at t = 0 (pools and their
// engines, instances, routers, the workload, the time-series columns, the first events).

#include <algorithm>
#include <utility>

#include "cluster/dp_ranks.h"
#include "cluster/simulation.h"
#include "cluster/simulation_state.h"
#include "scenario/scenario_checks.h"
#include "scenario/scenario_decode.h"
#include "util/digest.h"

namespace blis::cluster {
namespace {

// What the event loop relies on in each field. The decoder refuses the same values in a
// document; a scenario built in code meets them here.
Diagnostics check_fields(const scenario::Scenario& sc) {
  Diagnostics ds;
  for (const auto& d : Router::validate(sc.router, sc.pools)) ds.push_back(d);
  if (sc.pools.empty()) ds.push_back({"/pools", "at least one pool is required"});
  if (!(sc.outputs.timeseries_interval_ms >= 1)) {
    ds.push_back({"/outputs/timeseries_interval_ms", "must be >= 1 ms"});
  }
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    const auto& pool = sc.pools[p];
    const std::string ptr = json_pointer_append("/pools", p);
    if (pool.role != "unified" && pool.role != "prefill" && pool.role != "decode") {
      ds.push_back({ptr + "/role", "'" + pool.role + "': expected unified, prefill or decode"});
    }
    if (pool.instances < 1) ds.push_back({ptr + "/instances", "must be >= 1"});
  }
  for (std::size_t c = 0; c < sc.workload.clients.size(); ++c) {
    const auto& t = sc.workload.clients[c].timeout_s;
    if (t && !(*t > 0)) {
      ds.push_back({json_pointer_append(json_pointer_append("/workload/clients", c), "timeout_s"),
                    "must be > 0 seconds"});
    }
  }
  return ds;
}

}  // namespace

Diagnostics Simulation::load(const std::string& scenario_json,
                             const scenario::DecodeOptions& options) {
  st_.reset();
  scenario::DecodeResult decoded = scenario::decode_scenario(scenario_json, options);
  if (!decoded.scenario || has_errors(decoded.diagnostics)) return decoded.diagnostics;
  Diagnostics ds = std::move(decoded.diagnostics);  // warnings
  // The decoder ran the cross-section checks (and reported their warnings) already.
  for (auto& d : prepare(*decoded.scenario, false)) ds.push_back(std::move(d));
  return ds;
}

Diagnostics Simulation::load(const scenario::Scenario& s) {
  return prepare(s, true);
}

Diagnostics Simulation::prepare(const scenario::Scenario& s, bool cross_section_checks) {
  st_.reset();
  scenario_ = std::make_unique<scenario::Scenario>(s);
  const scenario::Scenario& sc = *scenario_;
  Diagnostics ds = check_fields(sc);
  if (cross_section_checks) {
    for (auto& d : scenario::check_cross_sections(sc)) ds.push_back(std::move(d));
  }
  if (has_errors(ds)) return ds;

  auto st = std::make_unique<State>();
  st->scenario = scenario_.get();
  st->backend = backend_factory_();
  if (!st->build_pools(ds)) return ds;
  st->build_routers();
  for (const auto& client : sc.workload.clients) {
    st->client_timeout.push_back(client.timeout_s ? from_seconds(*client.timeout_s) : 0);
  }
  st->workload = workload_factory_(sc);
  st->results.configure(st->pools.size(), st->instances.size(), sc.outputs.per_request);
  st->define_series();

  for (auto& inst : st->instances) st->publish(*inst);
  st->arm_arrival();
  st->queue.push(0, EventClass::kSample);
  if (sc.horizon.duration_s && !sc.horizon.drain) {
    st->queue.push(from_seconds(*sc.horizon.duration_s), EventClass::kHorizonEnd);
  }
  st_ = std::move(st);
  return ds;
}

// Each pool's resources (from the backend), then its instances, numbered globally pool after
// pool. False (with the diagnostics in `ds`) when a pool cannot be built.
bool Simulation::State::build_pools(Diagnostics& ds) {
  const scenario::Scenario& sc = *scenario;
  pools.resize(sc.pools.size());
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    PoolRuntime& pr = pools[p];
    pr.name = sc.pools[p].name;
    pr.role = sc.pools[p].role;
    for (auto& d : backend->prepare_pool(sc, p, pr.res)) ds.push_back(std::move(d));
  }
  if (has_errors(ds)) return false;
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    if (sc.pools[p].role == "prefill") prefill_pool = static_cast<std::int32_t>(p);
    if (sc.pools[p].role == "decode") decode_pool = static_cast<std::int32_t>(p);
  }
  pd = prefill_pool >= 0 && decode_pool >= 0;

  bool any_client_acceptance = false;
  for (const auto& cl : sc.workload.clients)
    any_client_acceptance = any_client_acceptance || cl.spec_acceptance.has_value();
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    PoolRuntime& pr = pools[p];
    pr.first_instance = static_cast<std::int32_t>(instances.size());
    pr.count = sc.pools[p].instances;
    for (std::int32_t i = 0; i < pr.count; ++i) {
      const auto global = static_cast<std::int32_t>(instances.size());
      std::string name = pr.name + "-" + std::to_string(i);
      auto eng = backend->make_engine(sc, p, global, pr.res);
      if (!eng) {
        ds.push_back({json_pointer_append("/pools", p), "could not build the engine"});
        return false;
      }
      instances.push_back(std::make_unique<Instance>(
          global, name, static_cast<std::int32_t>(p), std::move(eng), *pr.res.pricer,
          pr.res.overheads, pr.res.spec_acceptance, Rng::stream(sc.seed, "spec/" + name)));
      if (pr.res.lora_cost) {
        // Each engine-core lane (a dense model's DP rank) has its own workers and slots.
        for (std::int32_t lane = 0; lane < instances.back()->lanes(); ++lane)
          instances.back()->set_lora(make_lora_residency(sc, p, pr.res), lane);
      }
      {
        State* state = this;
        instances.back()->set_link_share(
            [state](Instance& i, SimTime, double us) { return state->share_links(i, us); });
      }
      if (any_client_acceptance) {
        // A client's spec_acceptance overrides the pool's rate for its requests.
        State* state = this;
        instances.back()->set_acceptance_of(
            [state](engine::RequestKey key) -> const scenario::SpecAcceptance* {
              const RequestRecord* rec = state->requests.find(key);
              if (rec == nullptr) return nullptr;
              const auto& clients = state->scenario->workload.clients;
              const auto c = static_cast<std::size_t>(rec->gen.client);
              return c < clients.size() && clients[c].spec_acceptance ? &*clients[c].spec_acceptance
                                                                      : nullptr;
            });
      }
    }
  }
  return true;
}

// The router over the unified (or prefill) instances, in P/D a second one over the decode
// pool, and the signal board both read.
void Simulation::State::build_routers() {
  const scenario::Scenario& sc = *scenario;
  const std::size_t n = instances.size();
  // P/D: the proxy routes to the prefill pool first, then to the decode pool.
  std::vector<std::int32_t> candidates, decode_candidates;
  const bool epp = sc.router.policy == "epp";
  for (const auto& inst : instances) {
    // The EPP sees every endpoint; its filters split the pools by role.
    (pd && !epp && inst->pool() == decode_pool ? decode_candidates : candidates)
        .push_back(inst->index());
  }
  // Each instance's DP ranks (the EPP's data-parallel-profile-handler makes them endpoints).
  std::vector<std::int32_t> dp_ranks;
  for (const auto& inst : instances) {
    const auto* ranks = dynamic_cast<const DpRanks*>(&inst->engine());
    dp_ranks.push_back(ranks != nullptr ? ranks->dp() : 1);
  }
  Digest model_salt;
  model_salt.add_string(sc.pools.front().model);
  const std::size_t first_pool = pd ? static_cast<std::size_t>(prefill_pool) : 0;
  router = Router(sc.router, n, candidates, sc.pools[first_pool].engine.args.block_size,
                  model_salt.value(), Rng::stream(sc.seed, "router"), dp_ranks);
  pull_failure_rng = Rng::stream(sc.seed, "kv_pull_failures");
  if (epp) {
    wire_epp();
  } else if (pd) {
    const auto& dp = sc.pools[static_cast<std::size_t>(decode_pool)];
    Digest decode_salt;
    decode_salt.add_string(dp.model);
    decode_router = Router(sc.router, n, decode_candidates, dp.engine.args.block_size,
                           decode_salt.value(), Rng::stream(sc.seed, "router/decode"));
  }
  // One lane per EPP endpoint: the instances, then any DP rank endpoints.
  board = SignalBoard(std::max(n, router.endpoints()), from_millis(sc.router.signal_staleness_ms));
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const PoolRuntime& pr = pools[p];
    // A DP instance's ranks each hold gpu_blocks (their prefix caches side by side).
    const std::int64_t blocks = pr.res.gpu_blocks * std::max(1, sc.pools[p].parallelism.dp);
    for (std::int32_t i = 0; i < pr.count; ++i) {
      router.set_instance_blocks(pr.first_instance + i, blocks);
      if (pd) decode_router.set_instance_blocks(pr.first_instance + i, blocks);
    }
  }
}

// The EPP's view of each endpoint: its role label, KV blocks, LoRA slots and resident
// adapters, and (precise prefix-cache scorer) the engine's KV events. With
// data-parallel-profile-handler a dp > 1 instance's ranks are endpoints of their own: each
// holds one rank's blocks and publishes its own rank's KV events.
void Simulation::State::wire_epp() {
  epp::Scheduler& s = *router.epp();
  for (std::size_t p = 0; p < pools.size(); ++p) {
    const PoolRuntime& pr = pools[p];
    const auto& pool = scenario->pools[p];
    const epp::Role role = pr.role == "prefill"  ? epp::Role::kPrefill
                           : pr.role == "decode" ? epp::Role::kDecode
                                                 : epp::Role::kNone;
    const std::int32_t max_loras = pool.engine.args.enable_lora ? pool.engine.args.max_loras : 0;
    for (std::int32_t i = 0; i < pr.count; ++i) {
      const std::int32_t inst = pr.first_instance + i;
      engine::Engine& eng = instances[static_cast<std::size_t>(inst)]->engine();
      s.set_endpoint(inst, role, pr.res.gpu_blocks * std::max(1, pool.parallelism.dp), max_loras);
      s.set_labels(inst, pool.labels);
      auto* ranks = dynamic_cast<DpRanks*>(&eng);
      if (ranks == nullptr || !router.ranks_are_endpoints(inst)) {
        if (engine::KvEventListener* l = s.kv_listener(inst)) eng.set_kv_event_listener(l);
        continue;
      }
      for (std::int32_t r = 0; r < ranks->dp(); ++r) {
        const std::int32_t e = router.endpoint_of(inst, r);
        s.set_endpoint(e, role, pr.res.gpu_blocks, max_loras);
        s.set_labels(e, pool.labels);
        if (engine::KvEventListener* l = s.kv_listener(e)) ranks->set_rank_kv_event_listener(r, l);
      }
    }
  }
  State* state = this;
  s.set_lora_probe([state](std::int32_t e) { return state->lora_of_endpoint(e); });
}

// The adapters in an endpoint's GPU LoRA slots as the EPP reads them (reported_adapters).
const std::vector<std::int32_t>* Simulation::State::lora_of_endpoint(std::int32_t e) {
  const Endpoint& ep = router.endpoint(e);
  const Instance& inst = *instances[static_cast<std::size_t>(ep.instance)];
  lora_lanes.clear();
  for (std::int32_t lane = 0; lane < inst.lanes(); ++lane) lora_lanes.push_back(inst.lora(lane));
  return reported_adapters(lora_lanes, ep.rank, lora_union);
}

}  // namespace blis::cluster
