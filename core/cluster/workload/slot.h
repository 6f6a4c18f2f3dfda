#pragma once
// A Slot is one request the load has scheduled: when it is due, and what identifies it to
// the request shape that fills it in. Sources (open loop, closed loop, trace) produce slots
// in time order; a client turns each slot into a GeneratedRequest.

#include <cstdint>

#include "util/sim_time.h"

namespace blis::cluster {

// One data row of a trace CSV (trace_csv.h).
struct TraceRow {
  double arrival_s = 0;
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
  std::int32_t prefix_group = -1;   // -1: none
  std::int32_t prefix_tokens = -1;  // -1: the whole prompt comes from the group
  std::int64_t session = -1;        // -1: none
  std::int32_t line = 0;            // 1-based line number in the CSV text
};

struct Slot {
  SimTime time = 0;              // the instant the load schedules it
  std::uint64_t index = 0;       // the client's scheduling order 0, 1, 2, ... (tie-break, keys)
  std::int32_t stage = 0;        // load stage (open loop with stages), else 0
  std::int32_t user = -1;        // closed-loop user, else -1
  std::uint64_t data_index = 0;  // shared_prefix: inference-perf's data_index in the stage
  TraceRow row;                  // trace clients
};

}  // namespace blis::cluster
