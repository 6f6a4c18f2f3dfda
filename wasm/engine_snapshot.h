#pragma once
// A read-only snapshot of one vLLM engine's state, as JSON for the playground's mechanism
// view: the KV block pool (null, free, cached-free, in use by which request), the running and
// waiting queues with each request's phase, and the token budget.

#include <string>

#include "engine/engine.h"

namespace blis::wasm {

// "" when the engine is not a vLLM engine (nothing to show).
std::string engine_snapshot_json(const engine::Engine& e);

}  // namespace blis::wasm
