// The P/D proxy (vLLM's disaggregated-serving proxy, llm-d): a request goes to the prefill
// pool first, then, with the kv_transfer_params P returned, to a decode instance.

#include "cluster/simulation_state.h"

namespace blis::cluster {

Router& Simulation::State::router_of(std::int32_t instance) {
  if (router.epp() != nullptr) return router;  // one EPP over both pools
  if (pd && instances[static_cast<std::size_t>(instance)]->pool() == decode_pool)
    return decode_router;
  return router;
}

void Simulation::State::hand_off_to_decode(RequestRecord& rec, SimTime at) {
  // The proxy has P's response (with its kv_transfer_params) at `at`: it sends the original
  // request to a decode instance picked by the router within the decode pool.
  results.on_prefill_done(rec, prefill_pool, at);
  router.on_finished(rec.instance, static_cast<std::int64_t>(rec.gen.prompt_token_ids.size()));
  const std::int32_t target = rec.epp_decode >= 0
                                  ? rec.epp_decode
                                  : decode_router.pick(rec.gen.prompt_token_ids, now, board);
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

epp::Request Simulation::State::epp_request(const RequestRecord& rec) const {
  epp::Request r;
  r.prompt = &rec.gen.prompt_token_ids;
  r.lora = rec.gen.lora;
  r.session = rec.gen.session;
  r.priority = rec.gen.priority;
  return r;
}

}  // namespace blis::cluster
