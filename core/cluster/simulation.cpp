#include "cluster/simulation.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "cluster/simulation_state.h"
#include "kernel/transfer.h"
#include "util/digest.h"

namespace blis::cluster {
namespace {

constexpr std::uint64_t kStepSearchLimit = 50'000'000;

std::string prefixed(const std::string& pointer, const std::string& tail) {
  return pointer + tail;
}

// Pool roles: all unified, or one prefill and one decode pool joined by the proxy
// (docs/cluster.md, "Prefill/decode disaggregation").
Diagnostics check_pd_pools(const scenario::Scenario& sc) {
  Diagnostics ds;
  std::vector<std::size_t> prefill, decode, unified;
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    const std::string& role = sc.pools[p].role;
    if (role == "prefill") prefill.push_back(p);
    if (role == "decode") decode.push_back(p);
    if (role == "unified") unified.push_back(p);
  }
  if (prefill.empty() && decode.empty()) return ds;
  auto role_ptr = [](std::size_t p) { return json_pointer_append("/pools", p) + "/role"; };
  for (const std::size_t p : unified) {
    ds.push_back({role_ptr(p),
                  "'unified' cannot be combined with prefill/decode pools: every "
                  "request goes through the prefill pool, then the decode pool"});
  }
  if (prefill.size() > 1)
    ds.push_back({role_ptr(prefill[1]),
                  "'prefill': only one prefill pool is supported (use more "
                  "instances in the first one)"});
  if (decode.size() > 1)
    ds.push_back({role_ptr(decode[1]),
                  "'decode': only one decode pool is supported (use more "
                  "instances in the first one)"});
  if (prefill.empty())
    ds.push_back({role_ptr(decode[0]),
                  "'decode' needs a prefill pool (add a pool with role "
                  "\"prefill\")"});
  if (decode.empty())
    ds.push_back({role_ptr(prefill[0]),
                  "'prefill' needs a decode pool (add a pool with role "
                  "\"decode\")"});
  if (prefill.size() == 1 && decode.size() == 1 &&
      sc.pools[prefill[0]].model != sc.pools[decode[0]].model) {
    ds.push_back({json_pointer_append("/pools", decode[0]) + "/model",
                  "'" + sc.pools[decode[0]].model +
                      "': the decode pool must serve the prefill "
                      "pool's model ('" +
                      sc.pools[prefill[0]].model + "')"});
  }
  return ds;
}

}  // namespace

Simulation::Simulation(BackendFactory backend, WorkloadFactory workload)
    : backend_factory_(std::move(backend)), workload_factory_(std::move(workload)) {}

Simulation::~Simulation() = default;

bool Simulation::loaded() const {
  return st_ != nullptr;
}

Diagnostics Simulation::load(const scenario::Scenario& s) {
  st_.reset();
  scenario_ = std::make_unique<scenario::Scenario>(s);
  Diagnostics ds;
  const scenario::Scenario& sc = *scenario_;

  for (const auto& d : Router::validate(sc.router)) ds.push_back(d);
  if (sc.pools.empty()) ds.push_back({"/pools", "at least one pool is required"});
  if (!(sc.outputs.timeseries_interval_ms >= 1)) {
    ds.push_back({"/outputs/timeseries_interval_ms", "must be >= 1 ms"});
  }
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    const auto& pool = sc.pools[p];
    const std::string ptr = json_pointer_append("/pools", p);
    if (pool.role != "unified" && pool.role != "prefill" && pool.role != "decode") {
      ds.push_back(
          {prefixed(ptr, "/role"), "'" + pool.role + "': expected unified, prefill or decode"});
    }
    if (pool.instances < 1) ds.push_back({prefixed(ptr, "/instances"), "must be >= 1"});
  }
  for (auto& d : check_pd_pools(sc)) ds.push_back(std::move(d));
  for (std::size_t c = 0; c < sc.workload.clients.size(); ++c) {
    const auto& t = sc.workload.clients[c].timeout_s;
    if (t && !(*t > 0)) {
      ds.push_back({json_pointer_append(json_pointer_append("/workload/clients", c), "timeout_s"),
                    "must be > 0 seconds"});
    }
  }
  if (has_errors(ds)) return ds;

  auto st = std::make_unique<State>();
  st->scenario = scenario_.get();
  st->backend = backend_factory_();
  st->pools.resize(sc.pools.size());
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    PoolRuntime& pr = st->pools[p];
    pr.name = sc.pools[p].name;
    pr.role = sc.pools[p].role;
    for (auto& d : st->backend->prepare_pool(sc, p, pr.res)) ds.push_back(std::move(d));
  }
  if (has_errors(ds)) return ds;
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    if (sc.pools[p].role == "prefill") st->prefill_pool = static_cast<std::int32_t>(p);
    if (sc.pools[p].role == "decode") st->decode_pool = static_cast<std::int32_t>(p);
  }
  st->pd = st->prefill_pool >= 0 && st->decode_pool >= 0;

  // Instances, numbered globally pool after pool.
  std::vector<std::int32_t> candidates, decode_candidates;
  for (std::size_t p = 0; p < sc.pools.size(); ++p) {
    PoolRuntime& pr = st->pools[p];
    pr.first_instance = static_cast<std::int32_t>(st->instances.size());
    pr.count = sc.pools[p].instances;
    for (std::int32_t i = 0; i < pr.count; ++i) {
      const auto global = static_cast<std::int32_t>(st->instances.size());
      std::string name = pr.name + "-" + std::to_string(i);
      auto eng = st->backend->make_engine(sc, p, global, pr.res);
      if (!eng) {
        ds.push_back({json_pointer_append("/pools", p), "could not build the engine"});
        return ds;
      }
      st->instances.push_back(std::make_unique<Instance>(
          global, name, static_cast<std::int32_t>(p), std::move(eng), *pr.res.pricer,
          pr.res.overheads, pr.res.spec_acceptance, Rng::stream(sc.seed, "spec/" + name)));
      if (pr.res.lora_cost) st->instances.back()->set_lora(make_lora_residency(sc, p, pr.res));
      // P/D: the proxy routes to the prefill pool first, then to the decode pool.
      (st->pd && static_cast<std::int32_t>(p) == st->decode_pool ? decode_candidates : candidates)
          .push_back(global);
    }
  }
  const std::size_t n = st->instances.size();

  Digest model_salt;
  model_salt.add_string(sc.pools.front().model);
  const std::size_t first_pool = st->pd ? static_cast<std::size_t>(st->prefill_pool) : 0;
  st->router = Router(sc.router, n, candidates, sc.pools[first_pool].engine.args.block_size,
                      model_salt.value(), Rng::stream(sc.seed, "router"));
  if (st->pd) {
    const auto& dp = sc.pools[static_cast<std::size_t>(st->decode_pool)];
    Digest decode_salt;
    decode_salt.add_string(dp.model);
    st->decode_router = Router(sc.router, n, decode_candidates, dp.engine.args.block_size,
                               decode_salt.value(), Rng::stream(sc.seed, "router/decode"));
  }
  st->board = SignalBoard(n, from_millis(sc.router.signal_staleness_ms));
  for (std::size_t p = 0; p < st->pools.size(); ++p) {
    const PoolRuntime& pr = st->pools[p];
    for (std::int32_t i = 0; i < pr.count; ++i) {
      st->router.set_instance_blocks(pr.first_instance + i, pr.res.gpu_blocks);
      if (st->pd) st->decode_router.set_instance_blocks(pr.first_instance + i, pr.res.gpu_blocks);
    }
  }

  for (const auto& client : sc.workload.clients) {
    st->client_timeout.push_back(client.timeout_s ? from_seconds(*client.timeout_s) : 0);
  }
  st->workload = workload_factory_(sc);
  st->results.configure(st->pools.size(), n, sc.outputs.per_request);

  // Time-series columns: time, then per instance, then cluster-wide.
  std::vector<std::string> cols{"time_s"};
  for (const auto& inst : st->instances) {
    for (const char* c : {"kv_usage", "running", "waiting", "preempted_total"}) {
      cols.push_back(inst->name() + "." + c);
    }
  }
  for (const char* c :
       {"ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "throughput_tokens_per_s"}) {
    cols.emplace_back(c);
  }
  const std::size_t xbase = cols.size();  // the added columns, after the original ones
  for (const auto& inst : st->instances) {
    for (const char* c : {"prefix_queries_total", "prefix_hits_total"}) {
      cols.push_back(inst->name() + "." + c);
    }
  }
  for (const char* c : {"prompt_tokens_per_s", "arrived_total", "finished_total", "aborted_total",
                        "rejected_total", "e2e_p50_ms", "e2e_p99_ms", "queue_p50_ms",
                        "queue_p99_ms", "kv_transfers_in_flight", "kv_transfer_blocks_total"}) {
    cols.emplace_back(c);
  }
  st->series.define(cols);
  for (std::size_t i = 0; i < n; ++i) {
    st->inst_cache_cols.push_back({xbase + 2 * i, xbase + 2 * i + 1});
  }
  std::size_t next = xbase + 2 * n;
  for (std::size_t* c : {&st->col_prompt_tps, &st->col_arrived, &st->col_finished, &st->col_aborted,
                         &st->col_rejected, &st->col_e2e_p50, &st->col_e2e_p99, &st->col_queue_p50,
                         &st->col_queue_p99, &st->col_transfers, &st->col_transfer_blocks}) {
    *c = next++;
  }
  st->col_time = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t base = 1 + 4 * i;
    st->inst_cols.push_back({base, base + 1, base + 2, base + 3});
  }
  const std::size_t cbase = 1 + 4 * n;
  st->col_ttft_p50 = cbase;
  st->col_ttft_p99 = cbase + 1;
  st->col_itl_p50 = cbase + 2;
  st->col_itl_p99 = cbase + 3;
  st->col_throughput = cbase + 4;
  st->sample_interval = std::max<SimTime>(1, from_millis(sc.outputs.timeseries_interval_ms));

  for (auto& inst : st->instances) st->publish(*inst);
  st->arm_arrival();
  st->queue.push(0, EventClass::kSample);
  if (sc.horizon.duration_s && !sc.horizon.drain) {
    st->queue.push(from_seconds(*sc.horizon.duration_s), EventClass::kHorizonEnd);
  }
  st_ = std::move(st);
  return ds;
}

void Simulation::reset() {
  if (!scenario_) return;
  const scenario::Scenario copy = *scenario_;
  load(copy);
}

bool Simulation::done() const {
  return st_ && st_->done;
}

SimTime Simulation::now() const {
  return st_ ? st_->now : 0;
}

AdvanceResult Simulation::advance(SimTime until, std::uint64_t max_events) {
  AdvanceResult r;
  if (!st_) throw std::logic_error("no scenario loaded");
  State& st = *st_;
  const std::uint64_t steps_before = st.steps;
  while (!st.done && r.events < max_events) {
    if (st.queue.empty()) {
      st.check_done();
      if (!st.done) {  // requests left that can never progress: end the run here
        st.done = true;
        st.end = st.now;
        st.results.close(st.end);
      }
      break;
    }
    if (st.queue.top().time > until) break;
    const Event ev = st.queue.pop();
    st.now = ev.time;
    ++st.events;
    ++r.events;
    st.dispatch(ev);
  }
  if (!st.done && until != kSimTimeNever && until > st.now &&
      (st.queue.empty() || st.queue.top().time > until)) {
    st.now = until;
  }
  r.steps = st.steps - steps_before;
  r.now = st.now;
  r.done = st.done;
  return r;
}

AdvanceResult Simulation::advance_one_step() {
  AdvanceResult total;
  if (!st_) throw std::logic_error("no scenario loaded");
  while (!st_->done && total.steps == 0 && total.events < kStepSearchLimit) {
    const AdvanceResult r = advance(kSimTimeNever, 1);
    total.events += r.events;
    total.steps += r.steps;
    if (r.events == 0) break;
  }
  total.now = st_->now;
  total.done = st_->done;
  return total;
}

AdvanceResult Simulation::run() {
  return advance(kSimTimeNever, UINT64_MAX);
}

// ---- event handlers ----

void Simulation::State::dispatch(const Event& ev) {
  switch (ev.cls) {
    case EventClass::kArrival:
      on_arrival();
      break;
    case EventClass::kEngineArrival:
      on_engine_arrival(ev.target, ev.payload);
      break;
    case EventClass::kEngineLoop: {
      Instance& inst = *instances[ev.target];
      inst.loop_pending = false;
      run_loop(inst);
      break;
    }
    case EventClass::kBatchDone:
      on_batch_done(ev.target);
      break;
    case EventClass::kEngineWake:
      on_engine_wake(ev.target, ev.time);
      break;
    case EventClass::kRequestFinished:
      on_request_finished(ev.payload);
      break;
    case EventClass::kClientTimeout:
      on_client_timeout(ev.payload);
      break;
    case EventClass::kHorizonEnd:
      on_horizon_end();
      break;
    case EventClass::kSample:
      on_sample();
      break;
    case EventClass::kTransferDone:
      on_transfer_done(ev.payload);
      break;
  }
  check_done();
}

void Simulation::State::arm_arrival() {
  const SimTime t = workload->next_arrival();
  if (t == kSimTimeNever || t >= arrival_armed) return;
  arrival_armed = t;
  queue.push(std::max(t, now), EventClass::kArrival);
}

void Simulation::State::on_arrival() {
  arrival_armed = kSimTimeNever;
  while (workload->next_arrival() <= now) {
    workload->pop(scratch);
    RequestRecord& rec = requests.allocate(scratch.seq);
    std::swap(rec.gen, scratch);
    rec.sent = now;
    const std::int32_t target = router.pick(rec.gen.prompt_token_ids, now, board);
    rec.instance = target;
    if (pd) {
      rec.pd_stage = 1;
      rec.prefill_instance = target;
    }
    results.on_arrived(target);
    Instance& inst = *instances[static_cast<std::size_t>(target)];
    const SimTime at =
        inst.engine_arrival(now, static_cast<std::int32_t>(rec.gen.prompt_token_ids.size()));
    queue.push(at, EventClass::kEngineArrival, static_cast<std::uint32_t>(target), rec.key);
    const auto client = static_cast<std::size_t>(rec.gen.client);
    if (client < client_timeout.size() && client_timeout[client] > 0) {
      queue.push(now + client_timeout[client], EventClass::kClientTimeout, 0, rec.key);
    }
  }
  arm_arrival();
}

void Simulation::State::on_engine_arrival(std::uint32_t instance, engine::RequestKey key) {
  RequestRecord* rec = requests.find(key);
  if (rec == nullptr) return;  // aborted before it reached the engine
  Instance& inst = *instances[instance];
  engine::RequestSpec spec;
  spec.key = key;
  spec.id = std::to_string(rec->gen.seq);
  spec.prompt_token_ids = rec->gen.prompt_token_ids;
  spec.max_tokens = rec->gen.max_tokens;
  spec.eos_at_output = rec->gen.ignore_eos ? 0 : rec->gen.output_tokens;
  spec.output_token_base = rec->gen.output_token_base;
  spec.priority = rec->gen.priority;
  spec.lora_id = rec->gen.lora;
  spec.arrival = now;
  if (rec->pd_stage == 1) {
    // The proxy's prefill request (vLLM's toy proxy, llm-d): max_tokens=1 and
    // do_remote_decode, so it ends LENGTH_CAPPED after one token and keeps its KV for D.
    spec.max_tokens = 1;
    spec.eos_at_output = 0;
    spec.kv_transfer = engine::KvTransferParams{true, false, -1, 0};
  } else if (rec->pd_stage == 2) {
    // The original request, with the kv_transfer_params P returned (do_remote_prefill, its
    // blocks and endpoint; nixl/pull_scheduler.py request_finished).
    spec.kv_transfer = rec->pd_params.value_or(engine::KvTransferParams{});
    spec.kv_transfer->do_remote_prefill = true;
    spec.kv_transfer->do_remote_decode = false;
    spec.kv_transfer->remote_instance = rec->prefill_instance;
  }
  // vllm entrypoints/openai/serving_engine.py OpenAIServing._validate_input: the API server
  // answers 400 when the prompt and max_tokens together exceed max_model_len ("'max_tokens'
  // ... is too large"; a prompt alone at max_model_len fails the same way); the engine never
  // sees the request. In P/D the prefill leg asks for one token and D for the original count.
  const std::int64_t context =
      static_cast<std::int64_t>(spec.prompt_token_ids.size()) + spec.max_tokens;
  if (context > scenario->pools[static_cast<std::size_t>(inst.pool())].engine.args.max_model_len) {
    finish_request(*rec, RequestOutcome::kRejected);
    return;
  }
  rec->engine_arrival = now;
  inst.engine().add_request(std::move(spec), now);
  if (rec->pd_stage == 2 && rec->prefill_instance >= 0) {
    // D tracks the request for lease-renewal heartbeats to P (base_scheduler.py
    // on_new_request): from now on P's lease on the blocks is renewed until D reads them.
    Instance& p = *instances[static_cast<std::size_t>(rec->prefill_instance)];
    p.engine().remote_heartbeat(key, now);
    publish(p);
  }
  publish(inst);
  kick(inst);
}

void Simulation::State::kick(Instance& inst) {
  if (inst.loop_pending) return;
  inst.loop_pending = true;
  queue.push(now, EventClass::kEngineLoop, static_cast<std::uint32_t>(inst.index()));
}

void Simulation::State::run_loop(Instance& inst) {
  const LoopDecision d = inst.run_loop(now);
  start_transfers(inst);
  if (d.launched != nullptr) {
    for (const auto& sr : d.launched->requests) {
      RequestRecord* rec = requests.find(sr.key);
      if (rec != nullptr && rec->first_scheduled == kUnset) rec->first_scheduled = now;
    }
    publish(inst);
  }
  switch (d.kind) {
    case LoopDecision::Kind::kLoopAgain:
      inst.loop_pending = true;
      queue.push(d.at, EventClass::kEngineLoop, static_cast<std::uint32_t>(inst.index()));
      return;
    case LoopDecision::Kind::kWaitBatch:
      inst.loop_pending = true;
      queue.push(d.at, EventClass::kBatchDone, static_cast<std::uint32_t>(inst.index()));
      return;
    case LoopDecision::Kind::kIdle:
      break;
  }
  // Idle: the engine may still need a call at an instant of its own (a delayed free, a
  // remote KV load).
  const SimTime wake = inst.engine().next_wake(now);
  if (wake != kSimTimeNever && wake < inst.wake_at) {
    inst.wake_at = std::max(wake, now);
    queue.push(inst.wake_at, EventClass::kEngineWake, static_cast<std::uint32_t>(inst.index()));
  }
}

void Simulation::State::on_batch_done(std::uint32_t instance) {
  Instance& inst = *instances[instance];
  inst.loop_pending = false;
  const engine::StepEvents& ev = inst.complete_oldest(now);
  ++steps;
  apply_step_events(inst, ev);
  publish(inst);
  // The engine-core thread goes straight on to its next loop iteration.
  run_loop(inst);
}

void Simulation::State::on_engine_wake(std::uint32_t instance, SimTime at) {
  Instance& inst = *instances[instance];
  if (at != inst.wake_at) return;  // superseded
  inst.wake_at = kSimTimeNever;
  inst.engine().poll(now);  // e.g. the NIXL lease of held blocks
  publish(inst);
  kick(inst);
}

void Simulation::State::start_transfers(Instance& inst) {
  transfer_scratch.clear();
  inst.engine().take_transfers(transfer_scratch);
  for (engine::TransferRequest& t : transfer_scratch) {
    // CPU offload moves KV within the instance (GPU <-> host memory).
    if (t.kind != engine::TransferKind::kRemotePull) t.to_instance = inst.index();
    const auto to = static_cast<std::size_t>(t.to_instance);
    const PoolResources& dst = pools[static_cast<std::size_t>(instances[to]->pool())].res;
    std::int64_t block_bytes = dst.kv_bytes_per_block;
    const catalog::Fabric* fabric = nullptr;
    if (t.kind == engine::TransferKind::kRemotePull) {
      // Each GPU reads its own share of every block over its own link; with different TP on
      // the two sides the side with fewer GPUs moves more bytes per GPU and sets the pace.
      if (t.from_instance >= 0) {
        const auto from = static_cast<std::size_t>(t.from_instance);
        block_bytes = std::max(
            block_bytes,
            pools[static_cast<std::size_t>(instances[from]->pool())].res.kv_bytes_per_block);
      }
      if (dst.kv_fabric) fabric = &*dst.kv_fabric;
    } else if (dst.host_fabric) {
      fabric = &*dst.host_fabric;
    }
    t.bytes = static_cast<std::int64_t>(t.num_blocks) * block_bytes;
    const SimTime duration = fabric != nullptr ? kernel::transfer_time(t.bytes, *fabric) : 0;
    std::uint32_t slot;
    if (!free_transfers.empty()) {
      slot = free_transfers.back();
      free_transfers.pop_back();
      transfers[slot] = t;
    } else {
      slot = static_cast<std::uint32_t>(transfers.size());
      transfers.push_back(t);
    }
    transfer_blocks_total += static_cast<std::uint64_t>(std::max<std::int64_t>(0, t.num_blocks));
    queue.push(now + duration, EventClass::kTransferDone, static_cast<std::uint32_t>(to), slot);
  }
}

void Simulation::State::on_transfer_done(std::uint64_t slot) {
  const engine::TransferRequest t = transfers[static_cast<std::size_t>(slot)];
  free_transfers.push_back(static_cast<std::uint32_t>(slot));
  Instance& to = *instances[static_cast<std::size_t>(t.to_instance)];
  to.engine().transfer_finished(t, now);
  publish(to);
  kick(to);
  // NIXL: the decoder's read-complete notice reaches the prefiller, which frees the blocks it
  // held for the request (finished_sending).
  if (t.kind == engine::TransferKind::kRemotePull && t.from_instance >= 0) {
    Instance& from = *instances[static_cast<std::size_t>(t.from_instance)];
    from.engine().remote_read_done(t.key, now);
    publish(from);
    kick(from);
  }
}

Router& Simulation::State::router_of(std::int32_t instance) {
  if (pd && instances[static_cast<std::size_t>(instance)]->pool() == decode_pool)
    return decode_router;
  return router;
}

void Simulation::State::hand_off_to_decode(RequestRecord& rec, SimTime at) {
  // The proxy has P's response (with its kv_transfer_params) at `at`: it sends the original
  // request to a decode instance picked by the router within the decode pool.
  results.on_prefill_done(rec, prefill_pool, at);
  router.on_finished(rec.instance);
  const std::int32_t target = decode_router.pick(rec.gen.prompt_token_ids, now, board);
  results.on_routed(target);
  rec.pd_stage = 2;
  rec.instance = target;
  rec.engine_arrival = kUnset;
  rec.first_scheduled = kUnset;
  rec.engine_done = false;
  Instance& inst = *instances[static_cast<std::size_t>(target)];
  const SimTime arrive =
      inst.engine_arrival(at, static_cast<std::int32_t>(rec.gen.prompt_token_ids.size()));
  queue.push(arrive, EventClass::kEngineArrival, static_cast<std::uint32_t>(target), rec.key);
}

void Simulation::State::apply_step_events(Instance& inst, const engine::StepEvents& ev) {
  std::int32_t with_tokens = 0;
  for (const auto& p : ev.progress) {
    if (p.new_tokens > 0 && requests.find(p.key) != nullptr) ++with_tokens;
  }
  // The API server streams this step's tokens once its output handler gets to them.
  const SimTime visible = with_tokens > 0 ? inst.stream_outputs(now, with_tokens) : now;
  const std::int32_t pool = inst.pool();
  for (const auto& p : ev.progress) {
    RequestRecord* rec = requests.find(p.key);
    if (rec == nullptr || rec->engine_done) continue;
    if (rec->pd_stage == 1) {
      // The prefill leg: its one token goes to the proxy, not to the client.
      if (p.finish == engine::FinishReason::kNone) continue;
      rec->engine_done = true;
      // LENGTH_CAPPED and STOPPED both hold the blocks and return kv_transfer_params.
      if (p.kv_transfer_params &&
          (p.finish == engine::FinishReason::kLength || p.finish == engine::FinishReason::kStop)) {
        rec->pd_params = p.kv_transfer_params;
        hand_off_to_decode(*rec, visible);
      } else {
        // No kv_transfer_params came back: the proxy fails the request.
        finish_request(*rec, RequestOutcome::kAborted);
      }
      continue;
    }
    rec->preemptions = p.num_preemptions;
    if (p.num_cached_tokens >= 0) rec->cached_tokens = p.num_cached_tokens;
    if (p.new_tokens > 0) {
      std::int32_t zero_gaps = p.new_tokens - 1;  // tokens delivered together
      if (rec->first_token == kUnset) {
        rec->first_token = visible;
        results.on_first_token(visible - rec->sent);
        window_prompt_tokens += rec->gen.prompt_token_ids.size();
      } else {
        results.on_token_gap(pool, visible - rec->last_token);
      }
      results.on_token_gap(pool, 0, zero_gaps);
      rec->last_token = visible;
      rec->output_tokens = p.num_output_tokens;
      results.on_tokens(p.new_tokens);
    }
    if (p.finish != engine::FinishReason::kNone) {
      rec->engine_done = true;
      const SimTime at = rec->last_token != kUnset ? std::max(rec->last_token, now) : now;
      queue.push(at, EventClass::kRequestFinished, 0, rec->key);
    }
  }
}

void Simulation::State::publish(Instance& inst) {
  const engine::EngineStats s = inst.engine().stats();
  board.publish(static_cast<std::size_t>(inst.index()), now,
                InstanceSignals{s.num_waiting, s.num_running, s.kv_usage});
  results.on_kv_usage(inst.index(), now, s.kv_usage);
}

bool Simulation::State::meets_slo(const RequestRecord& r) const {
  const scenario::Slo* slo = &scenario->slo;
  const auto& client_class = r.gen.slo_class;
  if (!client_class.empty()) {
    for (const auto& c : scenario->slo_classes) {
      if (c.name == client_class) slo = &c.slo;
    }
  }
  const double ttft_ms = to_millis(r.first_token - r.sent);
  const double e2e_ms = to_millis(r.finish - r.sent);
  if (slo->ttft_ms && ttft_ms > *slo->ttft_ms) return false;
  if (slo->e2e_ms && e2e_ms > *slo->e2e_ms) return false;
  if (slo->itl_ms && r.output_tokens > 1) {
    const double tpot = (e2e_ms - ttft_ms) / static_cast<double>(r.output_tokens - 1);
    if (tpot > *slo->itl_ms) return false;
  }
  return true;
}

void Simulation::State::finish_request(RequestRecord& r, RequestOutcome outcome) {
  r.finish = now;
  const std::int32_t pool = instances[static_cast<std::size_t>(r.instance)]->pool();
  if (outcome == RequestOutcome::kFinished) {
    results.on_finished(r, pool, meets_slo(r));
    window_e2e.add(r.finish - r.sent);
    if (r.first_scheduled != kUnset && r.engine_arrival != kUnset) {
      window_queue.add(r.first_scheduled - r.engine_arrival);
    }
  } else {
    results.on_unanswered(r, pool, outcome);
  }
  router_of(r.instance).on_finished(r.instance);
  workload->on_finished(r.gen, r.output_tokens, now);
  requests.release(RequestTable::slot_of(r.key));
  arm_arrival();
}

void Simulation::State::on_request_finished(engine::RequestKey key) {
  RequestRecord* rec = requests.find(key);
  if (rec == nullptr) return;
  finish_request(*rec, RequestOutcome::kFinished);
}

void Simulation::State::on_client_timeout(engine::RequestKey key) {
  RequestRecord* rec = requests.find(key);
  if (rec == nullptr || rec->engine_done) return;
  // The client disconnects; vLLM's API server aborts the request in the engine
  // (AsyncLLM.generate's cancellation path -> EngineCore abort_requests).
  Instance& inst = *instances[static_cast<std::size_t>(rec->instance)];
  if (rec->engine_arrival != kUnset) inst.engine().abort(key, now);
  finish_request(*rec, RequestOutcome::kAborted);
  start_transfers(inst);  // NIXL: an aborted decode request still notifies its prefiller
  publish(inst);
  kick(inst);
}

void Simulation::State::on_horizon_end() {
  // The load generator stops: every request still in flight is abandoned.
  for (std::uint32_t slot = 0; slot < requests.capacity(); ++slot) {
    RequestRecord& rec = requests.at_slot(slot);
    if (!rec.live) continue;
    Instance& inst = *instances[static_cast<std::size_t>(rec.instance)];
    if (rec.engine_arrival != kUnset && !rec.engine_done) inst.engine().abort(rec.key, now);
    finish_request(rec, RequestOutcome::kAborted);
  }
  take_sample(now);
  done = true;
  end = now;
  results.close(end);
  queue.clear();
}

void Simulation::State::on_sample() {
  take_sample(now);
  // Keep sampling while anything else is pending; a run with nothing left ends.
  if (!queue.empty()) queue.push(now + sample_interval, EventClass::kSample);
}

void Simulation::State::take_sample(SimTime t) {
  series.append(col_time, to_seconds(t));
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const engine::EngineStats s = instances[i]->engine().stats();
    const InstanceColumns& c = inst_cols[i];
    series.append(c.kv_usage, s.kv_usage);
    series.append(c.running, static_cast<double>(s.num_running));
    series.append(c.waiting, static_cast<double>(s.num_waiting));
    series.append(c.preempted_total, static_cast<double>(s.preemptions));
  }
  WindowSample& ttft = results.window_ttft();
  WindowSample& itl = results.window_itl();
  series.append(col_ttft_p50, ttft.percentile_ms(50));
  series.append(col_ttft_p99, ttft.percentile_ms(99));
  series.append(col_itl_p50, itl.percentile_ms(50));
  series.append(col_itl_p99, itl.percentile_ms(99));
  // Output tokens per second since the previous sample.
  const double window_s = to_seconds(t - last_sample);
  const auto tokens = static_cast<double>(results.take_window_tokens());
  series.append(col_throughput, window_s > 0 ? tokens / window_s : 0.0);
  take_added_columns(window_s);
  last_sample = t;
  ttft.clear();
  itl.clear();
}

// The columns after the original ones: prefix-cache counters per instance (vllm:prefix_cache_
// queries / hits), prompt tokens per second, arrivals and outcomes so far, E2E and queue-time
// percentiles of the requests finished in the window (NaN = none), KV transfers.
void Simulation::State::take_added_columns(double window_s) {
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const engine::EngineStats s = instances[i]->engine().stats();
    series.append(inst_cache_cols[i].prefix_queries, static_cast<double>(s.prefix_queries));
    series.append(inst_cache_cols[i].prefix_hits, static_cast<double>(s.prefix_hits));
  }
  series.append(col_prompt_tps,
                window_s > 0 ? static_cast<double>(window_prompt_tokens) / window_s : 0.0);
  window_prompt_tokens = 0;
  const LatencySet& c = results.cluster();
  series.append(col_arrived, static_cast<double>(results.arrived()));
  series.append(col_finished, static_cast<double>(c.finished));
  series.append(col_aborted, static_cast<double>(c.aborted));
  series.append(col_rejected, static_cast<double>(c.rejected));
  series.append(col_e2e_p50, window_e2e.percentile_ms(50));
  series.append(col_e2e_p99, window_e2e.percentile_ms(99));
  series.append(col_queue_p50, window_queue.percentile_ms(50));
  series.append(col_queue_p99, window_queue.percentile_ms(99));
  window_e2e.clear();
  window_queue.clear();
  series.append(col_transfers, static_cast<double>(transfers.size() - free_transfers.size()));
  series.append(col_transfer_blocks, static_cast<double>(transfer_blocks_total));
}

void Simulation::State::check_done() {
  if (done) return;
  if (!workload->exhausted() || requests.live() != 0) return;
  if (workload->next_arrival() != kSimTimeNever) return;
  done = true;
  end = now;
  results.close(end);
  // A last sample at the end, unless one was just taken at this instant.
  if (series.rows() == 0 || series.column(col_time).back() < to_seconds(now)) take_sample(now);
  queue.clear();
}

}  // namespace blis::cluster
