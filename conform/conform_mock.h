#pragma once
// The mocked model and drafter of the conformance driver (FORMAT.md "The driving loop" and
// "Mocked model and drafter"): which tokens a scheduled request samples, how many of its
// drafts are accepted, and (sync) which drafts the proposer hands back after the step.
// Internal to the conformance driver.

#include <cstdint>
#include <vector>

#include "conform/conform_input.h"
#include "engine/vllm/engine_core.h"

namespace blis::vllm::conform {

class MockModel {
 public:
  explicit MockModel(const Case& c);

  // The token_fn value at output position `pos` (0-based), without the EOS substitution.
  std::int32_t token_fn(engine::RequestKey key, std::int32_t pos) const;
  // After schedule(): the runner drops the drafts it held for preempted requests.
  void on_scheduled(const SchedulerOutput& out);
  // Fills b.sampled (and, in sync mode with spec decode, b.drafts), and returns per scheduled
  // entry the number of valid drafts it verified (num_valid_drafts).
  void run_batch(InFlightBatch& b, const Scheduler& sched, std::vector<std::int32_t>& valid);
  // The batch's output is applied: its tokens are no longer in flight.
  void on_applied(const InFlightBatch& b);

 private:
  struct State {
    std::size_t next_accept = 0;        // cursor into spec_accept (cyclic)
    std::size_t next_drafts = 0;        // cursor into spec_drafts (cyclic)
    std::int32_t held_drafts = 0;       // async: drafts the runner holds for the request
    std::int32_t inflight_samples = 0;  // async: tokens of dispatched, unapplied batches
  };
  std::int32_t mock_token(engine::RequestKey key, std::int32_t pos) const;
  std::int32_t next_drafts(engine::RequestKey key);
  std::int32_t valid_drafts(const InFlightBatch& b, const ScheduledRequest& e) const;

  const Case& c_;
  bool async_;
  std::int32_t k_;  // num_speculative_tokens
  std::vector<State> state_;
  std::vector<std::int32_t> scratch_;
};

}  // namespace blis::vllm::conform
