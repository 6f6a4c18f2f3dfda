#include "engine/vllm/sched/scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/sched/async_scheduler.h"
#include "engine/vllm/sched/utils.h"

namespace blis::vllm {
namespace {

KVCacheManagerConfig kv_config(const VllmConfig& c) {
  KVCacheManagerConfig k;
  k.num_gpu_blocks = c.num_gpu_blocks;
  k.block_size = c.block_size;
  k.max_model_len = c.max_model_len;
  k.enable_caching = c.enable_prefix_caching;
  k.watermark = c.watermark;
  k.use_eagle = c.use_eagle();  // scheduler.py Scheduler.__init__: KVCacheManager(use_eagle)
  return k;
}

VllmConfig checked(const VllmConfig& c) {
  const auto errs = validate(c);
  if (!errs.empty()) throw std::invalid_argument(errs.front().field + ": " + errs.front().message);
  return c;
}

// Tokens of a scheduled chunk that are prompt or recompute tokens (the rest are decode or
// draft tokens of a request that has caught up with everything it knows).
std::int32_t prefill_tokens_of(const Request& r, std::int32_t computed_before, std::int32_t n) {
  const std::int32_t known = r.num_tokens() + r.num_output_placeholders;
  const bool decoding =
      r.num_output_tokens() + r.num_output_placeholders > 0 && computed_before >= known - 1;
  if (decoding) return 0;
  return std::min(n, std::max(0, known - computed_before));
}

}  // namespace

Scheduler::Scheduler(const VllmConfig& cfg)
    : cfg_(checked(cfg)),
      kv_(kv_config(cfg_)),
      waiting_(create_request_queue(cfg_.policy, &reqs_)),
      skipped_waiting_(create_request_queue(cfg_.policy, &reqs_)),
      step_skipped_(create_request_queue(cfg_.policy, &reqs_)) {
  running_.reserve(static_cast<std::size_t>(cfg_.max_num_seqs));
}

Scheduler::~Scheduler() = default;

std::int32_t Scheduler::alloc_slot() {
  std::int32_t s;
  if (!free_slots_.empty()) {
    s = free_slots_.back();
    free_slots_.pop_back();
  } else {
    s = static_cast<std::int32_t>(reqs_.size());
    reqs_.emplace_back();
    live_.push_back(0);
    last_sched_seq_.push_back(0);
  }
  live_[static_cast<std::size_t>(s)] = 1;
  last_sched_seq_[static_cast<std::size_t>(s)] = 0;
  ++num_live_;
  return s;
}

void Scheduler::release_slot(std::int32_t index) {
  Request& r = req(index);
  ++r.gen;  // invalidates every ReqRef to this request
  r.all_token_ids.clear();
  r.block_hashes.clear();
  r.spec_token_ids.clear();
  live_[static_cast<std::size_t>(index)] = 0;
  --num_live_;
  free_slots_.push_back(index);
}

const Request* Scheduler::find(ReqRef ref) const {
  if (ref.index < 0 || static_cast<std::size_t>(ref.index) >= reqs_.size()) return nullptr;
  if (live_[static_cast<std::size_t>(ref.index)] == 0) return nullptr;
  const Request& r = reqs_[static_cast<std::size_t>(ref.index)];
  return r.gen == ref.gen ? &r : nullptr;
}

Request* Scheduler::find(ReqRef ref) {
  return const_cast<Request*>(static_cast<const Scheduler*>(this)->find(ref));
}

ReqRef Scheduler::add_request(const NewRequest& nr) {
  if (nr.prompt_token_ids.empty()) throw std::invalid_argument("add_request: empty prompt");
  if (nr.max_tokens < 1) throw std::invalid_argument("add_request: max_tokens must be >= 1");
  const std::int32_t s = alloc_slot();
  Request& r = req(s);
  const std::uint32_t gen = r.gen;
  std::vector<std::int32_t> tokens = std::move(r.all_token_ids);
  std::vector<BlockHash> hashes = std::move(r.block_hashes);
  std::vector<std::int32_t> spec = std::move(r.spec_token_ids);
  r = Request{};
  r.spec_token_ids = std::move(spec);
  r.spec_token_ids.clear();
  r.spec_token_ids.reserve(static_cast<std::size_t>(cfg_.num_speculative_tokens));
  r.gen = gen;
  r.slot = s;
  r.request_id = nr.request_id;
  r.key = nr.key;
  r.priority = nr.priority;
  r.arrival_time = nr.arrival_time;
  r.lora_id = nr.lora_id;
  r.has_cache_salt = nr.has_cache_salt;
  r.cache_salt = nr.cache_salt;
  r.skip_reading_prefix_cache = nr.skip_reading_prefix_cache;
  r.has_kv_transfer = nr.kv_transfer != nullptr;
  r.kv_transfer = nr.kv_transfer != nullptr ? *nr.kv_transfer : engine::KvTransferParams{};
  r.max_tokens = nr.max_tokens;
  r.min_tokens = nr.min_tokens;
  r.eos_at_output = nr.eos_at_output;
  r.eos_token_id = nr.eos_token_id;
  r.stop_token_ids.assign(nr.stop_token_ids.begin(), nr.stop_token_ids.end());
  r.output_token_base = nr.output_token_base;
  r.all_token_ids = std::move(tokens);
  r.all_token_ids.assign(nr.prompt_token_ids.begin(), nr.prompt_token_ids.end());
  r.num_prompt_tokens = static_cast<std::int32_t>(nr.prompt_token_ids.size());
  r.block_hashes = std::move(hashes);
  r.block_hashes.clear();
  // Size the token list, hashes and block table for the whole sequence (plus lookahead
  // slots) now, so steps never allocate.
  std::int64_t max_outputs = nr.max_tokens;
  if (nr.eos_at_output > 0)
    max_outputs = std::min<std::int64_t>(max_outputs, std::max(nr.eos_at_output, nr.min_tokens));
  const auto max_len = static_cast<std::int32_t>(std::min<std::int64_t>(
      static_cast<std::int64_t>(r.num_prompt_tokens) + max_outputs, cfg_.max_model_len));
  r.all_token_ids.reserve(static_cast<std::size_t>(max_len));
  r.block_hashes.reserve(static_cast<std::size_t>(max_len / cfg_.block_size + 1));
  kv_.reserve(r, max_len + cfg_.num_lookahead_tokens() + cfg_.num_speculative_tokens);
  // The request block hasher exists when prefix caching is on or a KV connector is
  // configured (engine/core.py EngineCore.__init__).
  if (hashes_blocks()) update_block_hashes(r, cfg_.block_size);
  r.status = RequestStatus::kWaiting;
  waiting_->add_request(s);
  // vllm scheduler.py add_request: connector.on_new_request.
  if (connector_ != nullptr) connector_->on_new_request(r);
  return r.ref();
}

bool Scheduler::has_unfinished_requests() const {
  return !running_.empty() || !waiting_->empty() || !skipped_waiting_->empty();
}

bool Scheduler::has_requests() const {
  // vllm sched/interface.py has_requests: unfinished requests, or finished ids still to be
  // sent with the next SchedulerOutput.
  // With a connector, finished requests whose blocks it still holds keep the engine alive
  // (scheduler.py has_finished_requests), and so do its jobs in flight
  // (has_pending_push_work).
  return has_unfinished_requests() || !finished_req_ids_.empty() || !delayed_free_.empty() ||
         (connector_ != nullptr && connector_->has_pending_push_work());
}

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
    if (!r.spec_token_ids.empty()) {
      const std::int32_t k = n + r.num_computed_tokens - r.num_tokens() - r.num_output_placeholders;
      if (k > 0) {
        e.num_spec_tokens = std::min(k, r.num_spec_tokens());
        e.spec_begin = static_cast<std::int32_t>(out.spec_token_ids.size());
        out.spec_token_ids.insert(out.spec_token_ids.end(), r.spec_token_ids.begin(),
                                  r.spec_token_ids.begin() + e.num_spec_tokens);
      }
      r.spec_token_ids.clear();
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
  r.spec_token_ids.clear();
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

void Scheduler::schedule_waiting(SchedulerOutput& out, std::int32_t& token_budget,
                                 bool prefill_scheduled) {
  const std::int32_t threshold = cfg_.long_prefill_token_threshold;
  const std::int32_t num_spec = cfg_.num_speculative_tokens;
  const bool lora_enabled = cfg_.max_loras > 0;
  // scheduled_running_reqs: only the requests of the running phase.
  const bool scheduled_running = !out.scheduled.empty();

  scheduled_loras_.clear();
  if (lora_enabled) {
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

    // A request waiting for its async KV load stays parked until the load lands
    // (scheduler.py _try_promote_blocked_waiting_request); it never blocks the queue.
    if (r.status == RequestStatus::kWaitingForRemoteKvs && !try_promote_blocked(index)) {
      queue.pop_request();
      step_skipped_->prepend_request(index);
      continue;
    }
    // Deliverable stale output still in flight: resuming now could resample a position that
    // output later delivers. Skip it; it drains within the pipeline depth.
    if (r.num_stale_output_tokens > 0 && !r.drop_stale_output) {
      queue.pop_request();
      step_skipped_->prepend_request(index);
      continue;
    }
    // max_loras: a request whose adapter would be one too many is skipped, not blocking.
    if (lora_enabled && r.lora_id > 0 &&
        static_cast<std::int32_t>(scheduled_loras_.size()) == cfg_.max_loras &&
        std::find(scheduled_loras_.begin(), scheduled_loras_.end(), r.lora_id) ==
            scheduled_loras_.end()) {
      queue.pop_request();
      step_skipped_->prepend_request(index);
      continue;
    }

    hits_.clear();
    std::int32_t num_local_computed = 0;
    std::int32_t num_external = 0;
    bool load_async = false;
    std::int32_t num_computed;
    const bool did_lookup = r.num_computed_tokens == 0;
    if (did_lookup) {
      num_local_computed = kv_.get_computed_blocks(r, hits_);
      if (connector_ != nullptr) {
        // Tokens beyond the local hit the connector can supply (get_num_new_matched_tokens);
        // undecided requests are skipped and asked again next step. vllm scheduler.py
        // presents a block-aligned local hit; local hits are whole blocks here already.
        const MatchedTokens m = connector_->get_num_new_matched_tokens(r, num_local_computed);
        if (!m.decided) {
          queue.pop_request();
          step_skipped_->prepend_request(index);
          continue;
        }
        num_external = m.num_external;
        load_async = m.load_async && num_external > 0;
      }
      num_computed = num_local_computed + num_external;
      // vllm scheduler.py: PrefillStats.set at the lookup of a request never preempted.
      if (r.num_preemptions <= 0) r.prefill_cached_tokens = num_computed;
    } else {
      // A KV connector finished an async load: the request arrives with computed tokens.
      num_computed = r.num_computed_tokens;
    }

    std::int32_t n = 0;  // an async KV load computes nothing this step
    bool pad_spec_decode = false;
    if (!load_async) {
      // num_tokens (not the prompt) so resumed requests recompute their outputs too.
      n = r.num_tokens() - num_computed;
      // scheduler.py: pad a new one-token decode to the uniform spec-decode size (keeps full
      // CUDA graphs) when running requests were scheduled and none is prefilling; rather not
      // schedule it than schedule it un-padded.
      if (num_spec > 0 && n == 1 && scheduled_running && !prefill_scheduled) {
        n = 1 + num_spec;
        if (n > token_budget || num_computed + n > cfg_.max_model_len) break;
        pad_spec_decode = true;
      }
      if (threshold > 0 && threshold < n) n = threshold;
      // Without chunked prefill a prompt that does not fit stops the loop (head of line).
      if (!cfg_.enable_chunked_prefill && n > token_budget) break;
      n = std::min(n, token_budget);
      if (n <= 0) break;
    }

    AllocateSlotsArgs args;
    args.num_new_computed_tokens = num_local_computed;
    args.new_computed_blocks = hits_;
    // The target commit reserves lookahead slots at admission too (only async KV loads skip
    // them); the older code the spec read used 0 here.
    args.num_lookahead_tokens = load_async ? 0 : cfg_.num_lookahead_tokens();
    args.num_external_computed_tokens = num_external;
    args.delay_cache_blocks = load_async;
    args.full_sequence_must_fit = cfg_.scheduler_reserve_full_isl;  // FORMAT.md difference 5
    // An async load holds its blocks with no progress and cannot be preempted here: admit it
    // only if it leaves the in-flight prefills their remaining blocks (no deadlock).
    args.reserved_blocks = load_async ? inflight_prefill_reserved_blocks() : 0;
    args.has_scheduled_reqs = !running_.empty();
    // A failed allocation never preempts from the waiting phase: the loop ends.
    if (!kv_.allocate_slots(r, n, args, nullptr)) break;
    if (connector_ != nullptr) {
      connector_->update_state_after_alloc(r, kv_.get_blocks(r), num_external);
      // vllm scheduler.py schedule: the connector's query is what the local hit left
      // (num_tokens - local hit), its hits the external tokens; nothing is recorded when the
      // local hit covered everything.
      const std::int32_t queries = r.num_tokens() - num_local_computed;
      if (did_lookup && queries != 0) {
        connector_stats_.record(queries, num_external, r.num_preemptions > 0);
        connector_stats_cumulative_.record(queries, num_external, r.num_preemptions > 0);
      }
      if (did_lookup) r.num_external_computed_tokens = num_external;
    }
    // Counted at admission, so lookups that failed to allocate are not (FORMAT.md 9).
    if (did_lookup) kv_.record_prefix_cache_stats(r, num_local_computed);

    queue.pop_request();
    if (load_async) {
      // The blocks are allocated now; the request waits, parked, until the load lands.
      r.status = RequestStatus::kWaitingForRemoteKvs;
      step_skipped_->prepend_request(index);
      r.num_computed_tokens = num_computed;
      add_unique(inflight_prefills_, index);
      continue;
    }
    running_.push_back(index);
    ScheduledRequest e;
    if (r.status == RequestStatus::kWaiting) {
      e.kind = ScheduledKind::kNew;
    } else if (r.status == RequestStatus::kPreempted) {
      e.kind = ScheduledKind::kResumed;
    } else {
      throw std::logic_error("schedule: invalid status of a waiting request");
    }
    if (lora_enabled && r.lora_id > 0 &&
        std::find(scheduled_loras_.begin(), scheduled_loras_.end(), r.lora_id) ==
            scheduled_loras_.end()) {
      scheduled_loras_.push_back(r.lora_id);
    }
    e.ref = r.ref();
    e.key = r.key;
    e.lora_id = r.lora_id;
    e.num_tokens = n;
    e.num_computed_before = num_computed;
    e.blocks_begin = static_cast<std::int32_t>(out.block_ids.size());
    const auto blocks = kv_.get_blocks(r);  // new and resumed requests get all their blocks
    out.block_ids.insert(out.block_ids.end(), blocks.begin(), blocks.end());
    e.blocks_end = static_cast<std::int32_t>(out.block_ids.size());
    token_budget -= n;
    r.status = RequestStatus::kRunning;
    r.num_computed_tokens = num_computed;  // the prefix hit is committed here
    if (r.num_cached_tokens < 0) r.num_cached_tokens = num_computed;
    // Track requests that will still be prefilling after this chunk (reservations).
    if (connector_ != nullptr && num_computed + n < r.num_tokens())
      add_unique(inflight_prefills_, index);
    e.num_prefill_tokens = prefill_tokens_of(r, num_computed, n);
    if (pad_spec_decode) {  // scheduled_spec_decode_tokens = [-1] * num_spec_tokens
      e.num_spec_tokens = num_spec;
      e.spec_begin = static_cast<std::int32_t>(out.spec_token_ids.size());
      out.spec_token_ids.insert(out.spec_token_ids.end(), static_cast<std::size_t>(num_spec), -1);
    }
    out.scheduled.push_back(e);
  }
  // scheduler.py: requests skipped in this pass go back ahead of older skipped ones. Each
  // skip was a prepend and prepend_requests is extendleft, so under FCFS the two reversals
  // cancel: the skipped requests come back in the order they were skipped (golden case 33).
  if (!step_skipped_->empty()) skipped_waiting_->prepend_requests(*step_skipped_);
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

std::int32_t Scheduler::update_request_with_output(Request& r, const std::int32_t* tokens,
                                                   std::int32_t n, bool /*is_stale*/,
                                                   bool& stopped) {
  stopped = false;
  for (std::int32_t k = 0; k < n; ++k) {
    r.all_token_ids.push_back(tokens[k]);
    if (hashes_blocks()) update_block_hashes(r, cfg_.block_size);
    if (check_stop(r, cfg_.max_model_len)) {
      stopped = true;  // tokens past the stop are dropped
      return k + 1;
    }
  }
  return n;
}

void Scheduler::update_from_output(const SchedulerOutput& out, const ModelRunnerOutput& mro,
                                   UpdateResult& res) {
  // vllm scheduler.py Scheduler.update_from_output.
  res.clear();
  // Every GPU write of this and earlier steps is done: deferred frees may return now.
  if (defer_block_free_ && out.total_num_scheduled_tokens > 0) {
    ++processed_step_seq_;
    drain_deferred_frees();
  }
  stopped_running_.clear();
  stopped_preempted_.clear();
  to_release_.clear();
  if (mro.offsets.size() != out.scheduled.size() + 1) {
    throw std::logic_error("update_from_output: one output per scheduled request expected");
  }
  for (std::size_t i = 0; i < out.scheduled.size(); ++i) {
    const ScheduledRequest& e = out.scheduled[i];
    RequestUpdate u;
    u.ref = e.ref;
    u.key = e.key;
    u.num_sampled = mro.count(i);
    Request* r = find(e.ref);
    bool stale = false;
    if (r != nullptr) {
      r->num_in_flight_tokens -= e.num_tokens;
      // Drain the stale share (see preempt_request) in lockstep.
      if (r->num_stale_output_tokens > 0) {
        stale = true;
        r->num_stale_output_tokens -= e.num_tokens;
        if (r->num_stale_output_tokens < 0) throw std::logic_error("negative stale output tokens");
      }
    }
    // Aborted (or finished) while the model ran: its output is ignored.
    if (r == nullptr || is_finished(r->status)) {
      u.disposition =
          u.num_sampled > 0 ? OutputDisposition::kIgnored : OutputDisposition::kNoOutput;
      u.status = r != nullptr ? r->status : RequestStatus::kFinishedAborted;
      res.updates.push_back(u);
      continue;
    }
    u.stale = stale;
    if (stale && r->drop_stale_output) {  // drop-mode stale output (same-step resume)
      u.disposition = OutputDisposition::kStaleDropped;
      u.status = r->status;
      u.num_output_tokens = r->num_output_tokens();
      res.updates.push_back(u);
      continue;
    }
    const std::int32_t* tokens = mro.tokens.data() + mro.offsets[i];
    // Spec decode: rejected drafts roll num_computed_tokens (and async placeholders) back;
    // a stale count predates the preemption's reset and must not apply.
    // The verification counts for SpecDecodingStats are taken for stale output too.
    if (e.num_spec_tokens > 0 && u.num_sampled > 0) {
      u.num_draft_tokens = e.num_spec_tokens;
      u.num_accepted_tokens = std::max(u.num_sampled - 1, 0);
      const std::int32_t rejected = u.num_draft_tokens - u.num_accepted_tokens;
      if (!stale) {
        if (r->num_computed_tokens > 0) r->num_computed_tokens -= rejected;
        if (r->num_output_placeholders > 0) r->num_output_placeholders -= rejected;
      }
    }
    const RequestStatus status_before = r->status;
    const std::int32_t outputs_before = r->num_output_tokens();
    bool stopped = false;
    if (u.num_sampled > 0) {
      u.num_delivered = update_request_with_output(*r, tokens, u.num_sampled, stale, stopped);
      u.disposition = stale ? OutputDisposition::kStaleDelivered : OutputDisposition::kDelivered;
    }
    u.first_token = outputs_before == 0 && u.num_delivered > 0;
    u.stopped = stopped;
    u.status = r->status;
    u.num_output_tokens = r->num_output_tokens();
    u.num_cached_tokens = r->num_cached_tokens;
    u.num_prefill_cached_tokens = r->prefill_cached_tokens;
    u.num_external_computed_tokens = r->num_external_computed_tokens;
    u.num_preemptions = r->num_preemptions;
    u.stop_reason = r->stop_reason;
    if (stopped) {
      free_request(e.ref.index, false, &res);
      (status_before == RequestStatus::kRunning ? stopped_running_ : stopped_preempted_)
          .push_back(e.ref.index);
      res.finished.push_back(e.key);
    }
    res.updates.push_back(u);
  }
  // Remove stopped requests, keeping the order of the rest (utils.py remove_all). A request
  // can stop while PREEMPTED (its in-flight output arrived after the preemption).
  if (!stopped_running_.empty()) {
    running_.erase(std::remove_if(running_.begin(), running_.end(),
                                  [&](std::int32_t s) {
                                    return std::find(stopped_running_.begin(),
                                                     stopped_running_.end(),
                                                     s) != stopped_running_.end();
                                  }),
                   running_.end());
  }
  if (!stopped_preempted_.empty()) {
    waiting_->remove_requests(stopped_preempted_);
    skipped_waiting_->remove_requests(stopped_preempted_);
  }
  for (const std::int32_t s : to_release_) release_slot(s);
  to_release_.clear();
}

void Scheduler::free_request(std::int32_t index, bool delay_free_blocks, UpdateResult* res) {
  // vllm scheduler.py Scheduler._free_request: report the id with the next output and free
  // the blocks (they keep their hashes) unless the connector keeps them for a transfer. The
  // slot itself is released once no queue refers to it (at the end of update_from_output, or
  // right away for aborts).
  Request& r = req(index);
  erase_value(inflight_prefills_, index);
  if (connector_ != nullptr) {
    // _connector_finished: the connector sees the blocks that cover the computed tokens
    // (get_block_ids_for_computed_tokens); its kv_transfer_params go with the output.
    const auto all = kv_.get_blocks(r);
    const std::size_t n = std::min(
        all.size(),
        static_cast<std::size_t>((r.num_computed_tokens + cfg_.block_size - 1) / cfg_.block_size));
    FinishedTransfer f = connector_->request_finished(r, all.first(n));
    if (f.delay_free) delay_free_blocks = true;
    if (f.params && res != nullptr)
      res->kv_transfer_params.emplace_back(r.key, std::move(*f.params));
  }
  finished_req_ids_.push_back(r.key);
  if (delay_free_blocks) {
    delayed_free_.push_back(index);
    return;
  }
  free_request_blocks(index);
  to_release_.push_back(index);
}

void Scheduler::erase_value(std::vector<std::int32_t>& v, std::int32_t x) {
  const auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}

void Scheduler::add_unique(std::vector<std::int32_t>& v, std::int32_t x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

bool Scheduler::try_promote_blocked(std::int32_t index) {
  // vllm scheduler.py Scheduler._update_waiting_for_remote_kv: once the load landed, the
  // loaded blocks are cached; a fully loaded sequence recomputes its last token for logits.
  const auto it = std::find(finished_recving_.begin(), finished_recving_.end(), index);
  if (it == finished_recving_.end()) return false;
  finished_recving_.erase(it);
  Request& r = req(index);
  // num_computed_tokens was set to local + external tokens at admission.
  kv_.cache_blocks(r, r.num_computed_tokens);
  if (r.num_computed_tokens == r.num_tokens()) r.num_computed_tokens = r.num_tokens() - 1;
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

void Scheduler::set_connector(KVConnector* connector) {
  // vllm scheduler.py Scheduler.__init__: connector.bind_gpu_block_pool(block_pool). With
  // overlapping batches a consumer's load could refill a freed block an in-flight step still
  // writes, so frees wait for the steps that scheduled the request (defer_block_free).
  connector_ = connector;
  if (connector_ != nullptr) connector_->bind_gpu_block_pool(&kv_.block_pool());
  defer_block_free_ =
      connector_ != nullptr && cfg_.async_scheduling && connector_->is_kv_consumer();
}

void Scheduler::free_request_blocks(std::int32_t index) {
  // vllm scheduler.py _free_request_blocks: free now unless a step that may still write the
  // blocks is in flight; then they wait, in allocation order, for that step's output.
  Request& r = req(index);
  if (!defer_block_free_ ||
      last_sched_seq_[static_cast<std::size_t>(index)] <= processed_step_seq_) {
    kv_.free(r);
    return;
  }
  DeferredFree d;
  d.fence = sched_step_seq_;
  kv_.pop_blocks_for_free(r, d.blocks);
  if (!d.blocks.empty()) deferred_frees_.push_back(std::move(d));
}

void Scheduler::drain_deferred_frees() {
  // vllm scheduler.py _drain_deferred_frees: fences are near-monotonic; stop at the first
  // pending one. Reverse order, so the tail blocks are evicted first.
  while (!deferred_frees_.empty() && deferred_frees_.front().fence <= processed_step_seq_) {
    kv_.block_pool().free_blocks_reversed(deferred_frees_.front().blocks);
    deferred_frees_.pop_front();
  }
}

void Scheduler::finished_recving(ReqRef ref) {
  Request* r = find(ref);
  if (r == nullptr) return;
  erase_value(inflight_prefills_, ref.index);
  if (is_finished(r->status)) {
    // Aborted during the load: its blocks were kept until the load ended.
    finished_sending(ref);
    return;
  }
  add_unique(finished_recving_, ref.index);
}

void Scheduler::finished_sending(ReqRef ref) {
  // vllm scheduler.py Scheduler._update_from_kv_xfer_finished: free the held blocks now.
  Request* r = find(ref);
  if (r == nullptr || !is_finished(r->status)) return;
  const auto it = std::find(delayed_free_.begin(), delayed_free_.end(), ref.index);
  if (it == delayed_free_.end()) return;
  delayed_free_.erase(it);
  free_request_blocks(ref.index);
  release_slot(ref.index);
}

void Scheduler::remove_from_running(std::int32_t index) {
  const auto it = std::find(running_.begin(), running_.end(), index);
  if (it != running_.end()) running_.erase(it);
}

bool Scheduler::finish_request(ReqRef ref, RequestStatus status) {
  // vllm scheduler.py Scheduler.finish_requests (the outside-abort path).
  if (!is_finished(status)) throw std::invalid_argument("finish_request: not a finished status");
  Request* r = find(ref);
  if (r == nullptr || is_finished(r->status)) return false;
  if (r->status == RequestStatus::kRunning) {
    remove_from_running(ref.index);
  } else {
    waiting_->remove_request(ref.index);
    skipped_waiting_->remove_request(ref.index);
  }
  // An abort during an async KV load keeps the blocks until the load ends.
  bool delay = false;
  if (r->status == RequestStatus::kWaitingForRemoteKvs) {
    const auto it = std::find(finished_recving_.begin(), finished_recving_.end(), ref.index);
    delay = it == finished_recving_.end();
    if (!delay) finished_recving_.erase(it);
  }
  r->status = status;
  to_release_.clear();
  free_request(ref.index, delay, nullptr);
  for (const std::int32_t s : to_release_) release_slot(s);
  to_release_.clear();
  return true;
}

void Scheduler::update_draft_token_ids(const SchedulerOutput& out,
                                       const ModelRunnerOutput* drafts) {
  // vllm scheduler.py Scheduler.update_draft_token_ids: finished requests are skipped; drafts
  // for prefill chunks are dropped.
  if (cfg_.num_speculative_tokens <= 0) return;
  const bool given = drafts != nullptr && drafts->offsets.size() == out.scheduled.size() + 1;
  for (std::size_t i = 0; i < out.scheduled.size(); ++i) {
    Request* r = find(out.scheduled[i].ref);
    if (r == nullptr || is_finished(r->status)) continue;
    r->spec_token_ids.clear();
    if (r->is_prefill_chunk) continue;
    if (given) {
      const std::int32_t* t = drafts->tokens.data() + drafts->offsets[i];
      r->spec_token_ids.assign(t, t + drafts->count(i));
    } else {
      // No proposer output supplied: k drafts (their values never influence scheduling).
      r->spec_token_ids.assign(static_cast<std::size_t>(cfg_.num_speculative_tokens), 0);
    }
  }
}

bool Scheduler::reset_prefix_cache(bool reset_running_requests) {
  // vllm scheduler.py Scheduler.reset_prefix_cache: preempt from the tail so the requests
  // re-queue in FIFO order; their in-flight output is dropped.
  if (reset_running_requests) {
    while (!running_.empty()) {
      const std::int32_t s = running_.back();
      running_.pop_back();
      preempt_request(s, /*drop_stale_output=*/true);
    }
  }
  const bool ok = kv_.reset_prefix_cache();
  if (!ok && reset_running_requests) {
    throw std::logic_error("reset_prefix_cache failed after resetting running requests");
  }
  return ok;
}

SchedulerStats Scheduler::make_stats() {
  // vllm scheduler.py Scheduler.make_stats.
  SchedulerStats s;
  s.num_running_reqs = num_running();
  s.num_waiting_reqs = num_waiting();
  s.kv_cache_usage = kv_.usage();
  s.prefix_cache_stats = kv_.take_prefix_cache_stats();
  s.has_connector_prefix_cache_stats = connector_ != nullptr;
  s.connector_prefix_cache_stats = connector_stats_;
  connector_stats_ = PrefixCacheStats{};
  return s;
}

std::unique_ptr<Scheduler> make_scheduler(const VllmConfig& cfg) {
  if (cfg.async_scheduling) return std::make_unique<AsyncScheduler>(cfg);
  return std::make_unique<Scheduler>(cfg);
}

}  // namespace blis::vllm
