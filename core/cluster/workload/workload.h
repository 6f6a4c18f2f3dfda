#pragma once
// The workload: a lazy, deterministic stream of requests built from the scenario's
// `workload` section (clients with arrival processes and request shapes, inference-perf's
// shared_prefix data, or a trace). Requests are generated one at a time as simulated time
// reaches them, so memory follows in-flight requests, not the run length.
//
// Closed loops (load.concurrency) and multi-turn sessions need feedback: the cluster calls
// on_finished() when a request completes, which may schedule that user's next request.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "util/sim_time.h"

namespace blis::cluster {

struct GeneratedRequest {
  std::uint64_t seq = 0;  // 0, 1, 2, ... in arrival order (ties broken stably)
  SimTime arrival = 0;
  std::int32_t client = 0;    // index into scenario.workload.clients (0 for a trace)
  std::int64_t session = -1;  // user session (multi-turn / closed loop), -1 if none
  std::int32_t turn = 0;      // 0-based turn within the session
  std::vector<std::int32_t> prompt_token_ids;
  std::int32_t output_tokens = 0;  // the length this request generates (max_tokens when
                                   // ignore_eos; else where the EOS token falls)
  std::int32_t max_tokens = 0;
  bool ignore_eos = true;
  std::int32_t output_token_base = 0;  // output ids are base + index (engine.h RequestSpec)
  std::int32_t prefix_group = -1;      // shared system prompt / prefix group, -1 if none
  std::int32_t priority = 0;
  std::int32_t lora = 0;
  std::string slo_class;
};

class Workload {
 public:
  virtual ~Workload() = default;
  // Arrival time of the next request, or kSimTimeNever when none is pending now (a closed
  // loop may add more after on_finished()).
  virtual SimTime next_arrival() const = 0;
  // Generates the next request (its arrival is next_arrival()). `out` is reused by the
  // caller so token vectors keep their capacity.
  virtual void pop(GeneratedRequest& out) = 0;
  // Feedback for closed loops and multi-turn sessions: a request finished (or failed) at
  // `now` having produced `output_tokens` tokens.
  virtual void on_finished(const GeneratedRequest& req, std::int32_t output_tokens,
                           SimTime now) = 0;
  // True when no more requests will ever arrive (horizon reached and no session pending).
  virtual bool exhausted() const = 0;
  virtual std::uint64_t generated() const = 0;
};

// Builds the workload of a decoded scenario. Horizon limits (duration_s, max_requests)
// are applied here: no arrival after duration_s, at most max_requests requests.
std::unique_ptr<Workload> make_workload(const scenario::Scenario& s);

}  // namespace blis::cluster
