// The event loop: advance() pops events in time order and dispatches them to the handlers
// below (arrivals, engine loops and finished batches, wakes, finishes, timeouts, the
// horizon). Loading is in simulation_load.cpp, the P/D proxy in simulation_pd.cpp, KV
// transfers in simulation_transfers.cpp, SLOs in simulation_slo.cpp, the time series in
// simulation_sampling.cpp and the outputs in simulation_results.cpp.

#include "cluster/simulation.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

#include "cluster/dp_ranks.h"
#include "cluster/simulation_state.h"

namespace blis::cluster {
namespace {

constexpr std::uint64_t kStepSearchLimit = 50'000'000;

}  // namespace

Simulation::Simulation(BackendFactory backend, WorkloadFactory workload)
    : backend_factory_(std::move(backend)), workload_factory_(std::move(workload)) {}

Simulation::~Simulation() = default;

bool Simulation::loaded() const {
  return st_ != nullptr;
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
      // The payload is the lane (instance.h): the DP rank of a dense model's instance.
      Instance& inst = *instances[ev.target];
      const auto lane = static_cast<std::int32_t>(ev.payload);
      inst.set_loop_pending(lane, false);
      run_loop(inst, lane);
      break;
    }
    case EventClass::kBatchDone:
      on_batch_done(ev.target, static_cast<std::int32_t>(ev.payload));
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
    case EventClass::kFlowControl:
      on_flow_event(ev.target, ev.payload);
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
    if (router.flow() != nullptr) {
      flow_enqueue(rec);  // the EPP's flow control holds it until it dispatches it
      continue;
    }
    send_routed(rec, router.route(epp_request(rec), now, board), false);
  }
  arm_arrival();
}

void Simulation::State::send_routed(RequestRecord& rec, const epp::Decision& d, bool dispatched) {
  std::int32_t target = d.target;
  if (router.epp() != nullptr && pd) {
    // The EPP picked the decode endpoint; a prefill endpoint only when it disaggregates
    // (else the decode instance prefills the request itself).
    rec.epp_decode = d.target;
    if (d.prefill >= 0) target = d.prefill;
  }
  rec.instance = target;
  rec.dp_rank = d.rank;
  if (pd && (router.epp() == nullptr || d.prefill >= 0)) {
    rec.pd_stage = 1;
    rec.prefill_instance = target;
  }
  if (dispatched)
    results.on_routed(target);
  else
    results.on_arrived(target);
  if (d.rejected) {
    // pkg/epp/requestcontrol/admission.go: refused at the gateway (HTTP 429 / 503).
    rec.gateway_rejected = true;
    finish_request(rec, RequestOutcome::kRejected);
    return;
  }
  Instance& inst = *instances[static_cast<std::size_t>(target)];
  const SimTime at =
      inst.engine_arrival(now, static_cast<std::int32_t>(rec.gen.prompt_token_ids.size()));
  queue.push(at, EventClass::kEngineArrival, static_cast<std::uint32_t>(target), rec.key);
  if (!dispatched) arm_client_timeout(rec);  // a queued request's is armed at its arrival
}

void Simulation::State::arm_client_timeout(const RequestRecord& rec) {
  const auto client = static_cast<std::size_t>(rec.gen.client);
  if (client < client_timeout.size() && client_timeout[client] > 0) {
    queue.push(rec.sent + client_timeout[client], EventClass::kClientTimeout, 0, rec.key);
  }
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
  // The EPP's data-parallel-profile-handler named the rank (x-data-parallel-host-port); the
  // server hands it to that engine core (EngineCoreRequest.data_parallel_rank).
  spec.data_parallel_rank = rec->dp_rank;
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
  for (std::int32_t lane = 0; lane < inst.lanes(); ++lane) {
    if (inst.loop_pending(lane)) continue;
    inst.set_loop_pending(lane, true);
    queue.push(now, EventClass::kEngineLoop, static_cast<std::uint32_t>(inst.index()),
               static_cast<std::uint64_t>(lane));
  }
}

void Simulation::State::run_loop(Instance& inst, std::int32_t lane) {
  const LoopDecision d = inst.run_loop(now, lane);
  start_transfers(inst);
  if (d.launched != nullptr) {
    for (const auto& sr : d.launched->requests) {
      // A request's first pass in an engine always computes prompt tokens (engine.h), so a
      // pure decode entry cannot be a first scheduling: skip its record (a cache miss).
      if (sr.num_prefill_tokens == 0) continue;
      RequestRecord* rec = requests.find(sr.key);
      if (rec != nullptr && rec->first_scheduled == kUnset) rec->first_scheduled = now;
    }
    publish(inst);
  }
  switch (d.kind) {
    case LoopDecision::Kind::kLoopAgain:
      inst.set_loop_pending(lane, true);
      queue.push(d.at, EventClass::kEngineLoop, static_cast<std::uint32_t>(inst.index()),
                 static_cast<std::uint64_t>(lane));
      return;
    case LoopDecision::Kind::kWaitBatch:
      inst.set_loop_pending(lane, true);
      queue.push(d.at, EventClass::kBatchDone, static_cast<std::uint32_t>(inst.index()),
                 static_cast<std::uint64_t>(lane));
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

void Simulation::State::on_batch_done(std::uint32_t instance, std::int32_t lane) {
  Instance& inst = *instances[instance];
  // A transfer that started while the pass ran slowed its hand-offs (reprice_collectives):
  // the engine-core thread keeps blocking on it until its new end.
  const SimTime end = inst.oldest_gpu_end(lane);
  if (end > now) {
    queue.push(end, EventClass::kBatchDone, instance, static_cast<std::uint64_t>(lane));
    return;
  }
  inst.set_loop_pending(lane, false);
  const engine::StepEvents& ev = inst.complete_oldest(now, lane);
  ++steps;
  apply_step_events(inst, ev, lane);
  publish(inst);
  // The engine-core thread goes straight on to its next loop iteration.
  run_loop(inst, lane);
}

void Simulation::State::on_engine_wake(std::uint32_t instance, SimTime at) {
  Instance& inst = *instances[instance];
  if (at != inst.wake_at) return;  // superseded
  inst.wake_at = kSimTimeNever;
  inst.engine().poll(now);  // e.g. the NIXL lease of held blocks
  publish(inst);
  kick(inst);
}

void Simulation::State::apply_step_events(Instance& inst, const engine::StepEvents& ev,
                                          std::int32_t lane) {
  std::int32_t with_tokens = 0;
  for (const auto& p : ev.progress) {
    if (p.new_tokens > 0 && requests.find(p.key) != nullptr) ++with_tokens;
  }
  // The API server streams this step's tokens once its output handler gets to them.
  const SimTime visible = with_tokens > 0 ? inst.stream_outputs(now, with_tokens, lane) : now;
  const std::int32_t pool = inst.pool();
  // The step's inter-token gaps, one results call per run of equal gaps: every continuing
  // decode of a step sees the same gap (visible - the previous step's visible time), and the
  // zero gaps of tokens delivered together are one run. Exact: the ITL samples only reach
  // the ITL percentiles, which hold a multiset of whole microseconds, so their sum (in a
  // double, < 2^53) and every percentile are the same however equal values are grouped.
  SimTime run_gap = 0;
  std::int32_t run_count = 0;
  const auto gap = [&](SimTime g, std::int32_t n) {
    if (n <= 0) return;
    if (run_count > 0 && g == run_gap) {
      run_count += n;
      return;
    }
    if (run_count > 0) results.on_token_gap(pool, run_gap, run_count);
    run_gap = g;
    run_count = n;
  };
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
        rec->pd_params = *p.kv_transfer_params;
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
        gap(visible - rec->last_token, 1);
      }
      gap(0, zero_gaps);
      rec->last_token = visible;
      rec->output_tokens = p.num_output_tokens;
      results.on_tokens(p.new_tokens);
    }
    if (p.finish != engine::FinishReason::kNone) {
      rec->engine_done = true;
      rec->kv_load_error = p.finish == engine::FinishReason::kError;
      const SimTime at = rec->last_token != kUnset ? std::max(rec->last_token, now) : now;
      queue.push(at, EventClass::kRequestFinished, 0, rec->key);
    }
  }
  if (run_count > 0) results.on_token_gap(pool, run_gap, run_count);
}

void Simulation::State::publish(Instance& inst) {
  const engine::EngineStats s = inst.engine().stats();
  board.publish(static_cast<std::size_t>(inst.index()), now,
                InstanceSignals{s.num_waiting, s.num_running, s.kv_usage});
  results.on_kv_usage(inst.index(), now, s.kv_usage);
  if (!router.ranks_are_endpoints(inst.index())) return;
  // data-parallel-profile-handler: each rank endpoint's own /metrics (its engine's stats).
  const auto& ranks = dynamic_cast<const DpRanks&>(inst.engine());
  for (std::int32_t r = 0; r < ranks.dp(); ++r) {
    const engine::EngineStats x = ranks.rank(r).stats();
    board.publish(static_cast<std::size_t>(router.endpoint_of(inst.index(), r)), now,
                  InstanceSignals{x.num_waiting, x.num_running, x.kv_usage});
  }
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
  const auto prompt = static_cast<std::int64_t>(r.gen.prompt_token_ids.size());
  if (r.flow_held) {
    // Never scheduled: it leaves the EPP's flow-control queue (if still there); the router
    // never counted it on an endpoint.
    if (epp::FlowController* fc = router.flow()) fc->cancel(r.key);
  } else {
    router_of(r.instance).on_finished(r.instance, prompt, r.dp_rank);
    // EPP in P/D: a request that ends before its hand-off also leaves the decode endpoint
    // picked for it at arrival (its in-flight count and adapter are held there).
    const bool before_handoff = r.epp_decode >= 0 && r.epp_decode != r.instance;
    if (before_handoff) router.on_finished(r.epp_decode, prompt);
    if (!r.gateway_rejected)
      router.on_done(r.epp_decode >= 0 ? r.epp_decode : r.instance, epp_request(r),
                     outcome == RequestOutcome::kFinished, r.dp_rank);
  }
  workload->on_finished(r.gen, r.output_tokens, now);
  requests.release(RequestTable::slot_of(r.key));
  arm_arrival();
}

void Simulation::State::on_request_finished(engine::RequestKey key) {
  RequestRecord* rec = requests.find(key);
  if (rec == nullptr) return;
  // A request the engine finished with an error (a failed KV load under "fail") reaches the
  // client as an error response: counted as aborted.
  if (rec->kv_load_error) {
    ++kv_load_errors;
    finish_request(*rec, RequestOutcome::kAborted);
    return;
  }
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
