// Scheduler, the step (vllm v1/core/sched/scheduler.py Scheduler.schedule): the running
// phase first (with preemption when the KV cache runs out), then the waiting phase
// (scheduler_waiting.cpp), then _update_after_schedule.

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/sched/scheduler.h"
#include "engine/vllm/sched/utils.h"

namespace blis::vllm {

void Scheduler::schedule(SchedulerOutput& out) {
  out.clear();
  out.step_id = next_step_id_++;
  // vllm scheduler.py Scheduler.schedule: token_budget is max_num_scheduled_tokens (derived
  // from max_num_batched_tokens, see VllmConfig::token_budget).
  std::int32_t token_budget = cfg_.token_budget();
  bool prefill_scheduled = false;
  schedule_running(out, token_budget, prefill_scheduled);
  // Any preemption in this step stops all admissions (FORMAT.md difference 6).
  if (out.preempted.empty()) schedule_waiting(out, token_budget, prefill_scheduled);

  std::int32_t total = 0;
  for (const ScheduledRequest& e : out.scheduled) total += e.num_tokens;
  if (total > cfg_.token_budget() || token_budget < 0 || num_running() > cfg_.max_num_seqs) {
    throw std::logic_error("Scheduler::schedule: scheduling constraints violated");
  }
  out.total_num_scheduled_tokens = total;
  // vllm scheduler.py: common prefix of running[0] (for cascade attention).
  out.num_common_prefix_blocks = running_.empty() || !report_common_prefix_
                                     ? 0
                                     : kv_.get_num_common_prefix_blocks(req(running_.front()));
  // finished_req_ids moves into this output and restarts empty (_update_after_schedule).
  out.finished_req_ids.swap(finished_req_ids_);
  finished_req_ids_.clear();
  // vllm scheduler.py schedule: the connector builds its step metadata from the output.
  if (connector_ != nullptr) connector_->build_connector_meta(out, *this);
  // The deferred-free fence advances only for steps that write KV.
  if (defer_block_free_ && total > 0) ++sched_step_seq_;
  update_after_schedule(out);
}

void Scheduler::schedule_running(SchedulerOutput& out, std::int32_t& token_budget,
                                 bool& prefill_scheduled) {
  const std::int32_t threshold = cfg_.long_prefill_token_threshold;
  std::size_t i = 0;
  while (i < running_.size() && token_budget > 0) {
    const std::int32_t index = running_[i];
    Request& r = req(index);
    // Async guard: skip a request whose in-flight steps already reach max_tokens, even if
    // every in-flight draft were rejected (scheduler.py, "Avoid scheduling an extra step").
    if (r.num_output_placeholders > 0 && r.num_computed_tokens + 2 - r.num_output_placeholders >=
                                             r.num_prompt_tokens + r.max_tokens) {
      ++i;
      continue;
    }
    std::int32_t n = r.num_tokens_with_spec() + r.num_output_placeholders - r.num_computed_tokens;
    if (threshold > 0 && threshold < n) n = threshold;  // long-prefill cap
    n = std::min(n, token_budget);
    // Position cap: keep one position for the sampled token (FORMAT.md difference 10;
    // upstream writes it as max_model_len - computed - num_sampled_tokens_per_step).
    n = std::min(n, cfg_.max_model_len - r.num_computed_tokens - 1);
    if (n <= 0) {  // nothing to do now: skip, do not stop the loop
      ++i;
      continue;
    }

    const std::int32_t blocks_begin = static_cast<std::int32_t>(out.block_ids.size());
    AllocateSlotsArgs args;
    args.num_lookahead_tokens = cfg_.num_lookahead_tokens();
    bool ok = false;
    for (;;) {
      ok = kv_.allocate_slots(r, n, args, &out.block_ids);
      if (ok) break;
      // Preempt the lowest-priority request and retry.
      std::int32_t victim;
      if (cfg_.policy == SchedulingPolicy::kPriority) {
        const std::int32_t vi = pick_priority_victim();
        victim = running_[static_cast<std::size_t>(vi)];
        running_.erase(running_.begin() + vi);
        // Keep the cursor on `r` when the removed request preceded it.
        if (static_cast<std::size_t>(vi) < i) --i;
        undo_scheduled(out, victim, token_budget);
      } else {
        // FCFS: the tail of the running list.
        victim = running_.back();
        running_.pop_back();
      }
      // vllm scheduler.py: a producer connector's hand-off needs the KV the preemption
      // frees, so the in-flight output is dropped (requires_kv_delivery).
      preempt_request(victim, connector_ != nullptr && connector_->requires_kv_delivery());
      out.preempted.push_back(req(victim).key);
      if (victim == index) break;  // r preempted itself
    }
    // A failed allocation ends the running phase: later requests get nothing this step.
    if (!ok) break;

    // Built in place: a stack copy pushed afterwards stalls on store forwarding (perf).
    ScheduledRequest& e = out.scheduled.emplace_back();
    e.ref = r.ref();
    e.key = r.key;
    e.lora_id = r.lora_id;
    e.kind = ScheduledKind::kRunning;
    e.num_tokens = n;
    e.num_computed_before = r.num_computed_tokens;
    e.num_prefill_tokens = prefill_tokens_of(r, r.num_computed_tokens, n);
    e.blocks_begin = blocks_begin;
    e.blocks_end = static_cast<std::int32_t>(out.block_ids.size());
    prefill_scheduled = prefill_scheduled || r.is_prefill_chunk;
    token_budget -= n;
    ++i;
    // scheduler.py: only the drafts that survive the budget and position cuts are sent
    // (scheduled_spec_decode_tokens); fresh drafts arrive after the step
    // (update_draft_token_ids / async placeholders).
    if (r.has_spec_tokens) {
      const std::int32_t k = n + r.num_computed_tokens - r.num_tokens() - r.num_output_placeholders;
      if (k > 0) {
        e.num_spec_tokens = std::min(k, r.num_spec_tokens());
        e.spec_begin = static_cast<std::int32_t>(out.spec_token_ids.size());
        out.spec_token_ids.insert(out.spec_token_ids.end(), r.spec_token_ids.begin(),
                                  r.spec_token_ids.begin() + e.num_spec_tokens);
      }
      r.clear_spec_tokens();
    }
  }
}

std::int32_t Scheduler::pick_priority_victim() const {
  // vllm scheduler.py Scheduler.schedule: max(running, key=(priority, arrival_time)). Python's
  // max keeps the FIRST maximal element, so ties go to the earliest in running order; request
  // ids are not compared (FORMAT.md erratum to item 7).
  std::size_t best = 0;
  for (std::size_t k = 1; k < running_.size(); ++k) {
    const Request& b = reqs_[static_cast<std::size_t>(running_[best])];
    const Request& c = reqs_[static_cast<std::size_t>(running_[k])];
    if (c.priority > b.priority || (c.priority == b.priority && c.arrival_time > b.arrival_time))
      best = k;
  }
  return static_cast<std::int32_t>(best);
}

void Scheduler::undo_scheduled(SchedulerOutput& out, std::int32_t victim,
                               std::int32_t& token_budget) {
  // vllm scheduler.py: a victim already scheduled this step gives its tokens back.
  const Request& v = req(victim);
  for (std::size_t k = 0; k < out.scheduled.size(); ++k) {
    const ScheduledRequest& e = out.scheduled[k];
    if (e.ref.index != victim || e.ref.gen != v.gen) continue;
    token_budget += e.num_tokens;
    out.scheduled.erase(out.scheduled.begin() + static_cast<std::ptrdiff_t>(k));
    return;
  }
}

void Scheduler::preempt_request(std::int32_t index, bool drop_stale_output) {
  // vllm scheduler.py Scheduler._preempt_request.
  Request& r = req(index);
  if (r.status != RequestStatus::kRunning) {
    throw std::logic_error("preempt_request: only running requests can be preempted");
  }
  free_request_blocks(index);  // the blocks keep their hashes: cached until evicted
  erase_value(inflight_prefills_, index);
  r.status = RequestStatus::kPreempted;
  r.num_computed_tokens = 0;
  r.clear_spec_tokens();
  // Async scheduling: every in-flight output becomes stale. It is still delivered (unless
  // dropped) but must not touch the reset counters; num_in_flight_tokens already holds any
  // undrained stale share, so assign rather than add.
  r.drop_stale_output = drop_stale_output || (r.drop_stale_output && r.num_stale_output_tokens > 0);
  r.num_stale_output_tokens = r.num_in_flight_tokens;
  r.num_output_placeholders = 0;
  ++r.num_preemptions;
  ++total_preemptions_;
  // Back to the FRONT of the waiting queue (FORMAT.md difference 8; a heap push under
  // PRIORITY).
  waiting_->prepend_request(index);
}

void Scheduler::update_after_schedule(SchedulerOutput& out) {
  // vllm scheduler.py Scheduler._update_after_schedule: num_computed_tokens moves forward
  // at schedule time, so a chunked prefill can be scheduled again before its output.
  for (ScheduledRequest& e : out.scheduled) {
    Request& r = req(e.ref.index);
    r.num_computed_tokens += e.num_tokens;
    r.num_in_flight_tokens += e.num_tokens;
    if (defer_block_free_) last_sched_seq_[static_cast<std::size_t>(e.ref.index)] = sched_step_seq_;
    r.is_prefill_chunk = r.num_computed_tokens < r.num_tokens() + r.num_output_placeholders;
    e.samples = !r.is_prefill_chunk;
    if (!r.is_prefill_chunk && !inflight_prefills_.empty())
      erase_value(inflight_prefills_, e.ref.index);
  }
}

}  // namespace blis::vllm
