#include "engine/vllm/sched/async_scheduler.h"

#include <stdexcept>

namespace blis::vllm {

void AsyncScheduler::update_after_schedule(SchedulerOutput& out) {
  // vllm async_scheduler.py AsyncScheduler._update_after_schedule.
  Scheduler::update_after_schedule(out);
  for (const ScheduledRequest& e : out.scheduled) {
    Request& r = req(e.ref.index);
    if (r.is_prefill_chunk) continue;
    r.num_output_placeholders += 1 + e.num_spec_tokens;
    // Placeholder drafts (-1 ids) keep the next step's token count right; the worker holds
    // the real draft ids.
    // Without spec decode the list is always empty: not touched (it is off the record's
    // step line).
    if (config().num_speculative_tokens > 0) r.set_spec_tokens(config().num_speculative_tokens, -1);
  }
}

std::int32_t AsyncScheduler::update_request_with_output(Request& r, const std::int32_t* tokens,
                                                        std::int32_t n, bool is_stale,
                                                        bool& stopped) {
  // vllm async_scheduler.py AsyncScheduler._update_request_with_output.
  const RequestStatus status_before = r.status;
  const std::int32_t kept = Scheduler::update_request_with_output(r, tokens, n, is_stale, stopped);
  if (!is_stale) {
    r.num_output_placeholders -= kept;
    if (r.num_output_placeholders < 0) throw std::logic_error("negative output placeholders");
  }
  // Cache the blocks now full of real tokens; preempted requests are skipped.
  if (status_before == RequestStatus::kRunning) {
    kv().cache_blocks(r, r.num_computed_tokens - r.num_output_placeholders);
  }
  return kept;
}

}  // namespace blis::vllm
