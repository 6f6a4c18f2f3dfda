// Scheduler, the waiting phase (vllm v1/core/sched/scheduler.py Scheduler.schedule, the loop
// over self.waiting): admission of new, resumed and remotely loaded requests after the
// running requests have been scheduled.

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/sched/scheduler.h"
#include "engine/vllm/sched/utils.h"

namespace blis::vllm {

RequestQueue& Scheduler::select_waiting_queue() {
  // vllm scheduler.py Scheduler._select_waiting_queue_for_scheduling: FCFS retries the
  // skipped requests first; PRIORITY takes the better of the two heads.
  if (cfg_.policy == SchedulingPolicy::kFcfs) {
    return skipped_waiting_->empty() ? *waiting_ : *skipped_waiting_;
  }
  if (!waiting_->empty() && !skipped_waiting_->empty()) {
    const Request& w = req(waiting_->peek_request());
    const Request& k = req(skipped_waiting_->peek_request());
    return request_less(w, k) ? *waiting_ : *skipped_waiting_;
  }
  return waiting_->empty() ? *skipped_waiting_ : *waiting_;
}

bool Scheduler::skips_waiting_head(std::int32_t index) {
  Request& r = req(index);
  // A request waiting for its async KV load stays parked until the load lands
  // (scheduler.py _try_promote_blocked_waiting_request); it never blocks the queue.
  if (r.status == RequestStatus::kWaitingForRemoteKvs && !try_promote_blocked(index)) return true;
  // Deliverable stale output still in flight: resuming now could resample a position that
  // output later delivers. Skip it; it drains within the pipeline depth.
  if (r.num_stale_output_tokens > 0 && !r.drop_stale_output) return true;
  // max_loras: a request whose adapter would be one too many is skipped, not blocking.
  return cfg_.max_loras > 0 && r.lora_id > 0 &&
         static_cast<std::int32_t>(scheduled_loras_.size()) == cfg_.max_loras &&
         std::find(scheduled_loras_.begin(), scheduled_loras_.end(), r.lora_id) ==
             scheduled_loras_.end();
}

bool Scheduler::lookup_waiting(Request& r, WaitingAdmission& a) {
  hits_.clear();
  a.did_lookup = r.num_computed_tokens == 0;
  if (!a.did_lookup) {
    // A KV connector finished an async load: the request arrives with computed tokens.
    a.num_computed = r.num_computed_tokens;
    return true;
  }
  a.num_local_computed = kv_.get_computed_blocks(r, hits_);
  if (connector_ != nullptr) {
    // Tokens beyond the local hit the connector can supply (get_num_new_matched_tokens);
    // undecided requests are skipped and asked again next step. vllm scheduler.py
    // presents a block-aligned local hit; local hits are whole blocks here already.
    const MatchedTokens m = connector_->get_num_new_matched_tokens(r, a.num_local_computed);
    if (!m.decided) return false;
    a.num_external = m.num_external;
    a.load_async = m.load_async && a.num_external > 0;
  }
  a.num_computed = a.num_local_computed + a.num_external;
  // vllm scheduler.py: PrefillStats.set at the lookup of a request never preempted.
  if (r.num_preemptions <= 0) r.prefill_cached_tokens = a.num_computed;
  return true;
}

bool Scheduler::size_waiting_chunk(const Request& r, std::int32_t token_budget,
                                   bool scheduled_running, bool prefill_scheduled,
                                   WaitingAdmission& a) const {
  a.n = 0;  // an async KV load computes nothing this step
  if (a.load_async) return true;
  const std::int32_t threshold = cfg_.long_prefill_token_threshold;
  const std::int32_t num_spec = cfg_.num_speculative_tokens;
  // num_tokens (not the prompt) so resumed requests recompute their outputs too.
  std::int32_t n = r.num_tokens() - a.num_computed;
  // scheduler.py: pad a new one-token decode to the uniform spec-decode size (keeps full
  // CUDA graphs) when running requests were scheduled and none is prefilling; rather not
  // schedule it than schedule it un-padded.
  if (num_spec > 0 && n == 1 && scheduled_running && !prefill_scheduled) {
    n = 1 + num_spec;
    if (n > token_budget || a.num_computed + n > cfg_.max_model_len) return false;
    a.pad_spec_decode = true;
  }
  if (threshold > 0 && threshold < n) n = threshold;
  // Without chunked prefill a prompt that does not fit stops the loop (head of line).
  if (!cfg_.enable_chunked_prefill && n > token_budget) return false;
  n = std::min(n, token_budget);
  a.n = n;
  return n > 0;
}

bool Scheduler::allocate_waiting(Request& r, const WaitingAdmission& a) {
  AllocateSlotsArgs args;
  args.num_new_computed_tokens = a.num_local_computed;
  args.new_computed_blocks = hits_;
  // The target commit reserves lookahead slots at admission too (only async KV loads skip
  // them); the older code the spec read used 0 here.
  args.num_lookahead_tokens = a.load_async ? 0 : cfg_.num_lookahead_tokens();
  args.num_external_computed_tokens = a.num_external;
  args.delay_cache_blocks = a.load_async;
  args.full_sequence_must_fit = cfg_.scheduler_reserve_full_isl;  // FORMAT.md difference 5
  // An async load holds its blocks with no progress and cannot be preempted here: admit it
  // only if it leaves the in-flight prefills their remaining blocks (no deadlock).
  args.reserved_blocks = a.load_async ? inflight_prefill_reserved_blocks() : 0;
  args.has_scheduled_reqs = !running_.empty();
  // A failed allocation never preempts from the waiting phase: the loop ends.
  if (!kv_.allocate_slots(r, a.n, args, nullptr)) return false;
  if (connector_ != nullptr) {
    connector_->update_state_after_alloc(r, kv_.get_blocks(r), a.num_external);
    // vllm scheduler.py schedule: the connector's query is what the local hit left
    // (num_tokens - local hit), its hits the external tokens; nothing is recorded when the
    // local hit covered everything.
    const std::int32_t queries = r.num_tokens() - a.num_local_computed;
    if (a.did_lookup && queries != 0) {
      connector_stats_.record(queries, a.num_external, r.num_preemptions > 0);
      connector_stats_cumulative_.record(queries, a.num_external, r.num_preemptions > 0);
    }
    if (a.did_lookup) r.num_external_computed_tokens = a.num_external;
  }
  // Counted at admission, so lookups that failed to allocate are not (FORMAT.md 9).
  if (a.did_lookup) kv_.record_prefix_cache_stats(r, a.num_local_computed);
  return true;
}

void Scheduler::admit_waiting(SchedulerOutput& out, std::int32_t index, const WaitingAdmission& a,
                              std::int32_t& token_budget) {
  Request& r = req(index);
  running_.push_back(index);
  ScheduledRequest e;
  if (r.status == RequestStatus::kWaiting) {
    e.kind = ScheduledKind::kNew;
  } else if (r.status == RequestStatus::kPreempted) {
    e.kind = ScheduledKind::kResumed;
  } else {
    throw std::logic_error("schedule: invalid status of a waiting request");
  }
  if (cfg_.max_loras > 0 && r.lora_id > 0 &&
      std::find(scheduled_loras_.begin(), scheduled_loras_.end(), r.lora_id) ==
          scheduled_loras_.end()) {
    scheduled_loras_.push_back(r.lora_id);
  }
  const std::int32_t n = a.n;
  e.ref = r.ref();
  e.key = r.key;
  e.lora_id = r.lora_id;
  e.num_tokens = n;
  e.num_computed_before = a.num_computed;
  e.blocks_begin = static_cast<std::int32_t>(out.block_ids.size());
  const auto blocks = kv_.get_blocks(r);  // new and resumed requests get all their blocks
  out.block_ids.insert(out.block_ids.end(), blocks.begin(), blocks.end());
  e.blocks_end = static_cast<std::int32_t>(out.block_ids.size());
  token_budget -= n;
  r.status = RequestStatus::kRunning;
  r.num_computed_tokens = a.num_computed;  // the prefix hit is committed here
  if (r.num_cached_tokens < 0) r.num_cached_tokens = a.num_computed;
  // Track requests that will still be prefilling after this chunk (reservations).
  if (connector_ != nullptr && a.num_computed + n < r.num_tokens())
    add_unique(inflight_prefills_, index);
  e.num_prefill_tokens = prefill_tokens_of(r, a.num_computed, n);
  if (a.pad_spec_decode) {  // scheduled_spec_decode_tokens = [-1] * num_spec_tokens
    const std::int32_t num_spec = cfg_.num_speculative_tokens;
    e.num_spec_tokens = num_spec;
    e.spec_begin = static_cast<std::int32_t>(out.spec_token_ids.size());
    out.spec_token_ids.insert(out.spec_token_ids.end(), static_cast<std::size_t>(num_spec), -1);
  }
  out.scheduled.push_back(e);
}

void Scheduler::schedule_waiting(SchedulerOutput& out, std::int32_t& token_budget,
                                 bool prefill_scheduled) {
  // scheduled_running_reqs: only the requests of the running phase.
  const bool scheduled_running = !out.scheduled.empty();
  scheduled_loras_.clear();
  if (cfg_.max_loras > 0) {
    for (const ScheduledRequest& e : out.scheduled) {
      const std::int32_t id = req(e.ref.index).lora_id;
      if (id > 0 && std::find(scheduled_loras_.begin(), scheduled_loras_.end(), id) ==
                        scheduled_loras_.end()) {
        scheduled_loras_.push_back(id);
      }
    }
  }

  step_skipped_->clear();
  while ((!waiting_->empty() || !skipped_waiting_->empty()) && token_budget > 0) {
    // max_num_seqs counts every running request, scheduled this step or not.
    if (num_running() >= cfg_.max_num_seqs) break;
    RequestQueue& queue = select_waiting_queue();
    const std::int32_t index = queue.peek_request();
    Request& r = req(index);
    WaitingAdmission a;
    if (skips_waiting_head(index) || !lookup_waiting(r, a)) {
      queue.pop_request();
      step_skipped_->prepend_request(index);
      continue;
    }
    if (!size_waiting_chunk(r, token_budget, scheduled_running, prefill_scheduled, a)) break;
    if (!allocate_waiting(r, a)) break;
    queue.pop_request();
    if (a.load_async) {
      // The blocks are allocated now; the request waits, parked, until the load lands.
      r.status = RequestStatus::kWaitingForRemoteKvs;
      step_skipped_->prepend_request(index);
      r.num_computed_tokens = a.num_computed;
      add_unique(inflight_prefills_, index);
      continue;
    }
    admit_waiting(out, index, a, token_budget);
  }
  // scheduler.py: requests skipped in this pass go back ahead of older skipped ones. Each
  // skip was a prepend and prepend_requests is extendleft, so under FCFS the two reversals
  // cancel: the skipped requests come back in the order they were skipped (golden case 33).
  if (!step_skipped_->empty()) skipped_waiting_->prepend_requests(*step_skipped_);
}

bool Scheduler::try_promote_blocked(std::int32_t index) {
  // vllm scheduler.py Scheduler._update_waiting_for_remote_kv: once the load landed, the
  // loaded blocks are cached; a fully loaded sequence recomputes its last token for logits.
  const auto it = std::find(finished_recving_.begin(), finished_recving_.end(), index);
  if (it == finished_recving_.end()) return false;
  finished_recving_.erase(it);
  Request& r = req(index);
  const auto failed = std::find(failed_recving_.begin(), failed_recving_.end(), index);
  if (failed != failed_recving_.end()) {
    // The load hit invalid blocks ("recompute"): num_computed_tokens was already cut back to
    // the first of them (_update_requests_with_invalid_blocks). Cache the valid prefix, or,
    // with none, release the blocks (a retry may hit the local cache). KV-cache zeroing is
    // not modelled.
    if (r.num_computed_tokens > 0) {
      kv_.cache_blocks(r, r.num_computed_tokens);
    } else {
      kv_.free(r);
    }
    failed_recving_.erase(failed);
  } else {
    // num_computed_tokens was set to local + external tokens at admission.
    kv_.cache_blocks(r, r.num_computed_tokens);
    if (r.num_computed_tokens == r.num_tokens()) r.num_computed_tokens = r.num_tokens() - 1;
  }
  r.status = r.num_preemptions > 0 ? RequestStatus::kPreempted : RequestStatus::kWaiting;
  return true;
}

std::int32_t Scheduler::inflight_prefill_reserved_blocks() const {
  // vllm scheduler.py Scheduler._inflight_prefill_reserved_blocks.
  std::int32_t total = 0;
  for (const std::int32_t i : inflight_prefills_)
    total += kv_.remaining_blocks(reqs_[static_cast<std::size_t>(i)]);
  return total;
}

}  // namespace blis::vllm
