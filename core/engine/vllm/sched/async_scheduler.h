#pragma once
// AsyncScheduler (vllm v1/core/sched/async_scheduler.py): the scheduler used with async
// scheduling, where the next step is scheduled before the previous step's tokens are back.
// Output placeholders stand in for tokens in flight (spec §4).

#include <cstdint>

#include "engine/vllm/sched/scheduler.h"

namespace blis::vllm {

class AsyncScheduler final : public Scheduler {
 public:
  using Scheduler::Scheduler;

 protected:
  // After the base advance, every request that will sample this step gets 1 + (scheduled
  // drafts) output placeholders and placeholder drafts for the next step.
  void update_after_schedule(SchedulerOutput& out) override;
  // After the base append-and-stop: placeholders go down by the tokens kept (not for stale
  // output, whose placeholders the preemption already zeroed), and a running request
  // caches the blocks now full of real tokens.
  std::int32_t update_request_with_output(Request& r, const std::int32_t* tokens, std::int32_t n,
                                          bool is_stale, bool& stopped) override;
};

}  // namespace blis::vllm
