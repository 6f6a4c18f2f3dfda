// The EPP's flow-control layer in the event loop (router epp with the flowControl feature
// gate, core/cluster/epp/flow_control.h): an arriving request is enqueued in its priority
// band (or rejected for capacity, HTTP 429); a dispatch cycle runs right after each enqueue
// and on the controller's 1 ms ticker while requests wait; a dispatched request is scheduled
// by the EPP's profiles and sent on; a request still queued at its TTL is evicted (HTTP 503).
// Rejected and evicted requests count as rejected in the results.

#include "cluster/simulation_state.h"

namespace blis::cluster {
namespace {

enum FlowEvent : std::uint32_t { kTick = 0, kTtl = 1 };

// apix FlowControlRequest ByteSize is the HTTP body's size; a generated request has none, so
// it is taken as 4 bytes per prompt token (the inverse of upstream's bytes / 4 token estimate,
// inflightload/token_estimator.go).
std::uint64_t request_bytes(const RequestRecord& rec) {
  return 4 * static_cast<std::uint64_t>(rec.gen.prompt_token_ids.size());
}

}  // namespace

void Simulation::State::flow_enqueue(RequestRecord& rec) {
  epp::FlowController& fc = *router.flow();
  rec.flow_held = true;
  rec.instance = router.gateway_instance();  // where a refusal is accounted
  results.on_gateway_arrived();
  // A flow is the request's fairness ID (x-gateway-inference-fairness-id): its client. The
  // band is its priority on upstream's scale (higher = more important): -(vLLM priority).
  const auto client = static_cast<std::size_t>(rec.gen.client);
  const auto& clients = scenario->workload.clients;
  const std::string flow = client < clients.size() ? clients[client].name : std::string("trace");
  if (fc.enqueue(rec.key, -rec.gen.priority, flow, request_bytes(rec), now) ==
      epp::Enqueued::kRejectedCapacity) {
    // processor.go enqueue: QueueOutcomeRejectedCapacity (HTTP 429).
    rec.gateway_rejected = true;
    finish_request(rec, RequestOutcome::kRejected);
    return;
  }
  const engine::RequestKey key = rec.key;
  arm_client_timeout(rec);
  const SimTime deadline = fc.deadline(now);
  if (deadline != kSimTimeNever) queue.push(deadline, EventClass::kFlowControl, kTtl, key);
  flow_cycle();  // processor.go Run: a dispatch cycle right after each enqueue
  arm_flow_tick();
}

void Simulation::State::flow_cycle() {
  std::uint64_t key = 0;
  if (!router.flow_dispatch(now, board, key)) return;
  RequestRecord* rec = requests.find(key);
  if (rec == nullptr) return;
  rec->flow_held = false;
  send_routed(*rec, router.route(epp_request(*rec), now, board), true);
}

void Simulation::State::arm_flow_tick() {
  if (flow_tick_armed != kSimTimeNever || router.flow()->queued() == 0) return;
  if (router.epp()->flow_blocked()) return;  // no cycle could ever dispatch
  // The ticker fires on whole periods of kDispatchTick.
  flow_tick_armed = (now / epp::kDispatchTick + 1) * epp::kDispatchTick;
  queue.push(flow_tick_armed, EventClass::kFlowControl, kTick);
}

void Simulation::State::on_flow_event(std::uint32_t kind, std::uint64_t key) {
  if (kind == kTtl) {
    if (!router.flow()->expire(key, now)) return;  // dispatched or gone already
    RequestRecord* rec = requests.find(key);
    if (rec == nullptr) return;
    // controller.go: QueueOutcomeEvictedTTL (HTTP 503).
    rec->gateway_rejected = true;
    finish_request(*rec, RequestOutcome::kRejected);
    return;
  }
  flow_tick_armed = kSimTimeNever;
  flow_cycle();
  arm_flow_tick();
}

}  // namespace blis::cluster
