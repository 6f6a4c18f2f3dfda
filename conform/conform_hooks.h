#pragma once
// Observation points of the conformance driving loop (conform_driver.cpp), so that a driver
// for a superset format (the ext format: metrics, KV connectors) runs the very same loop and
// only adds what it records. Internal to the conformance drivers.

#include <cstdint>

#include <nlohmann/json.hpp>

#include "conform/conform_input.h"
#include "engine/vllm/engine_core.h"

namespace blis::vllm::conform {

// Every callback has a do-nothing default. `step` is the loop iteration (FORMAT.md step k).
class DriverHooks {
 public:
  virtual ~DriverHooks() = default;
  // Request `key` is about to be added: the hook may fill in what the base format does not
  // carry (kv_transfer_params); pointers in `nr` must stay valid until the step ends.
  virtual void prepare_request(engine::RequestKey key, NewRequest& nr) {}
  // Request `key` (its position in Case::requests) was added to the scheduler (input phase).
  virtual void on_added(std::int32_t step, engine::RequestKey key, ReqRef ref) {}
  // A client abort of a live request reached the frontend: input-phase aborts (the engine
  // applies them at once) and "during_step" aborts (the engine applies them later).
  virtual void on_client_abort(std::int32_t step, engine::RequestKey key, ReqRef ref) {}
  // schedule() produced batch `b` (its samples are already fixed).
  virtual void on_scheduled(std::int32_t step, const InFlightBatch& b) {}
  // Batch `b` is about to be applied (the during_step aborts, then update_from_output).
  virtual void before_update(std::int32_t step, const InFlightBatch& b) {}
  // The tail of update_from_output for batch `b`, before make_stats: the KV connector's
  // worker output travelling with the batch (_update_from_kv_xfer_finished).
  virtual void on_update(std::int32_t step, const InFlightBatch& b) {}
  // The oldest batch `b` was applied (update_from_output): `res` is its result and `stats`
  // the Scheduler.make_stats taken right after it (make_stats consumes the prefix counters,
  // so hooks must use this copy rather than call it again).
  virtual void on_applied(std::int32_t step, const InFlightBatch& b, const UpdateResult& res,
                          const SchedulerStats& stats) {}
  // The step's base-format record is complete (`rec`, FORMAT.md "Output, one entry per step";
  // idle steps have "idle": true). `applied` tells whether a batch was applied in this step.
  virtual void on_step_end(std::int32_t step, const nlohmann::ordered_json& rec, bool applied) {}
  // The scheduler and queue the driver runs, for hooks that read state at these points.
  virtual void attach(EngineCore& core) {}
};

// Runs the case through the base driving loop and returns the base trace document; `hooks`
// (may be null) observes it.
nlohmann::ordered_json run_case(const Case& c, DriverHooks* hooks);

// The traces' `provenance` object: this engine's kind, release and upstream commit.
nlohmann::ordered_json provenance_json();

}  // namespace blis::vllm::conform
