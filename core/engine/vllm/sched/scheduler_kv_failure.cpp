// Scheduler, KV load failures (vllm v1/core/sched/scheduler.py _handle_invalid_blocks,
// _update_requests_with_invalid_blocks and the failed_recving_kv_req_ids branch of
// _update_waiting_for_remote_kv). A connector reports the blocks it failed to load
// (KVConnectorOutput.invalid_block_ids); the affected requests either recompute from the
// first invalid block (kv_load_failure_policy "recompute") or finish with an error ("fail").

#include <algorithm>

#include "engine/vllm/sched/scheduler.h"
#include "util/contains.h"

namespace blis::vllm {

namespace {

std::int32_t scheduled_tokens_of(const SchedulerOutput* out, std::int32_t slot) {
  if (out == nullptr) return 0;
  std::int32_t n = 0;
  for (const ScheduledRequest& e : out->scheduled)
    if (e.ref.index == slot) n += e.num_tokens;
  return n;
}

}  // namespace

std::int32_t Scheduler::update_requests_with_invalid_blocks(const std::vector<std::int32_t>& reqs,
                                                            std::span<const std::int32_t> invalid,
                                                            const SchedulerOutput* out, bool evict,
                                                            std::vector<std::int32_t>& affected,
                                                            std::vector<std::int32_t>& to_evict) {
  // vllm scheduler.py _update_requests_with_invalid_blocks: truncate each request's computed
  // tokens at its first invalid block among those that may hold externally computed tokens.
  // An invalid block shared with an earlier request of the scan is recomputed by that one
  // only (marked_invalid_block_ids); a request whose invalid blocks were all marked before
  // falls back to the tokens computed before this step.
  std::int32_t total_affected_tokens = 0;
  std::vector<std::int32_t> marked;
  const std::int32_t bs = cfg_.block_size;
  for (const std::int32_t index : reqs) {
    Request& r = req(index);
    bool is_affected = false;
    bool marked_invalid_block = false;
    const auto blocks = kv_.get_blocks(r);
    const std::int32_t req_num_computed = r.num_computed_tokens - scheduled_tokens_of(out, index);
    const std::int32_t req_num_computed_blocks = (req_num_computed + bs - 1) / bs;
    const std::int32_t n =
        std::min(req_num_computed_blocks, static_cast<std::int32_t>(blocks.size()));
    for (std::int32_t idx = 0; idx < n; ++idx) {
      const std::int32_t block_id = blocks[static_cast<std::size_t>(idx)];
      if (!contains(invalid, block_id)) continue;
      is_affected = true;
      if (contains(marked, block_id)) continue;  // shared, recomputed by an earlier request
      marked.push_back(block_id);
      if (marked_invalid_block) continue;  // already truncated at an earlier block
      marked_invalid_block = true;
      r.num_computed_tokens = idx * bs;
      total_affected_tokens += req_num_computed - r.num_computed_tokens;
      // The invalid block and every block after it depend on it.
      if (evict) to_evict.insert(to_evict.end(), blocks.begin() + idx, blocks.end());
    }
    if (!is_affected) continue;
    if (!marked_invalid_block) {
      total_affected_tokens += r.num_computed_tokens - req_num_computed;
      r.num_computed_tokens = req_num_computed;
    }
    affected.push_back(index);
  }
  return total_affected_tokens;
}

void Scheduler::handle_invalid_blocks(std::span<const std::int32_t> invalid_ids,
                                      const SchedulerOutput* out,
                                      std::vector<std::int32_t>& failed) {
  // vllm scheduler.py _handle_invalid_blocks.
  failed.clear();
  // Async loads (WAITING_FOR_REMOTE_KVS in skipped_waiting): not cached yet, nothing to evict.
  // Walked in pop order (Python walks a priority heap in list order; async loads share no
  // blocks, so the order changes nothing).
  std::vector<std::int32_t> async_reqs;
  for (const std::int32_t i : skipped_waiting_->in_order())
    if (req(i).status == RequestStatus::kWaitingForRemoteKvs) async_reqs.push_back(i);
  std::vector<std::int32_t> async_failed, sync_failed, to_evict;
  update_requests_with_invalid_blocks(async_reqs, invalid_ids, out, false, async_failed, to_evict);
  // Sync loads (running): their blocks may be cached; collect them for eviction.
  update_requests_with_invalid_blocks(running_, invalid_ids, out, true, sync_failed, to_evict);
  const std::size_t total = async_failed.size() + sync_failed.size();
  if (total == 0) return;
  kv_load_failed_reqs_ += total;
  // Evicted from the prefix cache only under "fail": under "recompute" the blocks are
  // recomputed and reused by the requests sharing them.
  if (!to_evict.empty() && !cfg_.recompute_kv_load_failures) {
    std::sort(to_evict.begin(), to_evict.end());
    to_evict.erase(std::unique(to_evict.begin(), to_evict.end()), to_evict.end());
    kv_.block_pool().evict_blocks(to_evict);
  }
  if (!cfg_.recompute_kv_load_failures) {
    failed = async_failed;
    failed.insert(failed.end(), sync_failed.begin(), sync_failed.end());
    return;
  }
  // "recompute": an async request retries once its load completes
  // (failed_recving_kv_req_ids); the sync ones skip this update.
  for (const std::int32_t i : async_failed) add_unique(failed_recving_, i);
  failed = sync_failed;
}

void Scheduler::finish_with_error(const std::vector<std::int32_t>& slots) {
  // vllm scheduler.py update_from_output: finish_requests(error_req_ids, FINISHED_ERROR),
  // each with an EngineCoreOutput carrying no tokens and finish_reason error.
  for (const std::int32_t i : slots) {
    const Request& r = req(i);
    const ErroredRequest er{r.key, i, r.num_output_tokens(), r.num_cached_tokens,
                            r.num_preemptions};
    if (finish_request(r.ref(), RequestStatus::kFinishedError)) {
      errored_.push_back(er);
      ++kv_load_errored_reqs_;
    }
  }
}

void Scheduler::report_invalid_blocks(std::span<const std::int32_t> invalid_block_ids) {
  if (invalid_block_ids.empty()) return;
  handle_invalid_blocks(invalid_block_ids, nullptr, kv_failed_scratch_);
  if (!cfg_.recompute_kv_load_failures) finish_with_error(kv_failed_scratch_);
}

}  // namespace blis::vllm
