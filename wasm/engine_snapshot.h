#pragma once
// A read-only snapshot of one vLLM engine's state, as JSON for the playground's mechanism
// view: the KV block pool (null, free, cached-free, in use by which request), the running and
// waiting queues with each request's phase, the token budget, and the batches in flight
// (what the scheduler put into each: prefill chunks, decodes, draft tokens, preemptions).

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"

namespace blis::vllm {
class VllmEngine;
struct InFlightBatch;
}  // namespace blis::vllm

namespace blis::wasm {

// The shape of one scheduled batch (vllm v1/core/sched/output.py SchedulerOutput): its
// num_scheduled_tokens split into prompt (prefill chunk) and decode work.
struct BatchShape {
  std::uint64_t id = 0;
  std::int32_t requests = 0;
  std::int32_t tokens = 0;          // total_num_scheduled_tokens
  std::int32_t prefill_tokens = 0;  // prompt or recompute tokens
  std::int32_t prefills = 0;        // entries with prompt tokens (prefill chunks)
  std::int32_t decodes = 0;         // entries past their prompt
  std::int32_t spec_tokens = 0;     // scheduled draft tokens
  std::int32_t preempted = 0;       // requests preempted while building it
};

BatchShape batch_shape(const vllm::InFlightBatch& b);

// The batches in flight on a vLLM engine, oldest first (empty for another engine kind).
std::vector<BatchShape> in_flight_shapes(const engine::Engine& e);

// "" when the engine is not a vLLM engine (nothing to show).
std::string engine_snapshot_json(const engine::Engine& e);

}  // namespace blis::wasm
