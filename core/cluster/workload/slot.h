#pragma once
// A Slot is one request the load has scheduled: when it is due, and what identifies it to
// the request shape that fills it in. Sources (open loop, closed loop, trace) produce slots
// in time order; a client turns each slot into a GeneratedRequest.

#include <cstdint>

#include "scenario/trace_csv.h"
#include "util/sim_time.h"

namespace blis::cluster {

using scenario::TraceRow;  // one data row of a trace CSV (scenario/trace_csv.h)

struct Slot {
  SimTime time = 0;              // the instant the load schedules it
  std::uint64_t index = 0;       // the client's scheduling order 0, 1, 2, ... (tie-break, keys)
  std::int32_t stage = 0;        // load stage (open loop with stages), else 0
  std::int32_t user = -1;        // closed-loop user, else -1
  std::uint64_t data_index = 0;  // shared_prefix: inference-perf's data_index in the stage
  TraceRow row;                  // trace clients
};

}  // namespace blis::cluster
