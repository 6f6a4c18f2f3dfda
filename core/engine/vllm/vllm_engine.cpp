#include "engine/vllm/vllm_engine.h"

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/metrics/engine_feed.h"
#include "engine/vllm/provenance.h"

namespace blis::vllm {
namespace {

VllmConfig checked_engine_config(const VllmConfig& cfg) {
  const auto errs = validate(cfg);
  if (!errs.empty()) throw std::invalid_argument(errs.front().field + ": " + errs.front().message);
  // vllm v1/core/kv_cache_utils.py check_enough_kv_cache_memory: the engine refuses to start
  // when one request of max_model_len would not fit (block 0 is the null block).
  const std::int64_t capacity = static_cast<std::int64_t>(cfg.num_gpu_blocks - 1) * cfg.block_size;
  if (capacity < cfg.max_model_len) {
    throw std::invalid_argument("num_gpu_blocks: " + std::to_string(cfg.num_gpu_blocks - 1) +
                                " usable blocks of " + std::to_string(cfg.block_size) +
                                " tokens cannot hold one request of max_model_len (" +
                                std::to_string(cfg.max_model_len) + " tokens)");
  }
  return cfg;
}

}  // namespace

VllmEngine::VllmEngine(const VllmConfig& cfg)
    : cfg_(checked_engine_config(cfg)), core_(cfg_), metrics_(metrics::recorder_config(cfg_), 0) {
  batch_.requests.reserve(static_cast<std::size_t>(cfg_.max_num_seqs));
  events_.progress.reserve(static_cast<std::size_t>(cfg_.max_num_seqs) * 2);
}

void VllmEngine::add_request(engine::RequestSpec spec, SimTime now) {
  (void)now;
  if (spec.prompt_token_ids.empty())
    throw std::invalid_argument("add_request: the prompt cannot be empty");
  // vLLM's API server rejects a request whose prompt leaves no room for one output token
  // within max_model_len ("maximum context length"); the engine core would never finish it.
  if (static_cast<std::int64_t>(spec.prompt_token_ids.size()) >= cfg_.max_model_len) {
    throw std::invalid_argument("add_request: the prompt (" +
                                std::to_string(spec.prompt_token_ids.size()) +
                                " tokens) leaves no room for an output within max_model_len (" +
                                std::to_string(cfg_.max_model_len) + ")");
  }
  if (spec.max_tokens < 1) throw std::invalid_argument("add_request: max_tokens must be >= 1");
  if (refs_.get(spec.key).index >= 0 && core_.scheduler().find(refs_.get(spec.key)) != nullptr) {
    throw std::invalid_argument("add_request: request key " + std::to_string(spec.key) +
                                " is already live");
  }
  NewRequest nr;
  nr.request_id = spec.id.empty() ? std::to_string(spec.key) : std::move(spec.id);
  nr.key = spec.key;
  nr.prompt_token_ids = spec.prompt_token_ids;
  nr.max_tokens = spec.max_tokens;
  nr.eos_at_output = spec.eos_at_output;
  nr.output_token_base = spec.output_token_base;
  nr.priority = spec.priority;
  nr.arrival_time = to_seconds(spec.arrival);
  nr.lora_id = spec.lora_id;
  // kv_transfer_params travel with the request; the connector (if any) acts on them.
  if (spec.kv_transfer) nr.kv_transfer = &*spec.kv_transfer;
  if (connector_ != nullptr) connector_->set_now(now);
  const ReqRef ref = core_.scheduler().add_request(nr);
  refs_.put(spec.key, ref);
  metrics::feed_added(metrics_, ref.index, spec, now);
}

void VllmEngine::abort(engine::RequestKey key, SimTime now) {
  if (connector_ != nullptr) connector_->set_now(now);
  const ReqRef ref = refs_.get(key);
  if (ref.index < 0) return;
  metrics_.abort_request(ref.index);  // the frontend drops it now (OutputProcessor)
  if (core_.in_flight() == 0) {
    core_.abort_now(ref);
    refs_.erase(key);
    return;
  }
  // vllm engine/core.py: an abort is put on the input queue (processed before the next
  // schedule) and on the aborts queue (processed before the next update_from_output);
  // aborting is idempotent.
  core_.queue_abort(ref);
  pending_aborts_.push_back({key, ref});
}

void VllmEngine::apply_pending_aborts() {
  for (const auto& [key, queued] : pending_aborts_) {
    const ReqRef ref = refs_.get(key);
    // Only the request the abort was for: once the in-flight pass applied it, the key may
    // name a new request added since (the metrics would never hear of that one's end).
    if (ref.index < 0 || ref.index != queued.index || ref.gen != queued.gen) continue;
    core_.abort_now(ref);
    refs_.erase(key);
  }
  pending_aborts_.clear();
}

bool VllmEngine::can_schedule(SimTime now) const {
  (void)now;
  return core_.in_flight() < core_.batch_queue_size() &&
         core_.scheduler().has_unfinished_requests();
}

const engine::Batch* VllmEngine::schedule(SimTime now) {
  if (connector_ != nullptr) {
    connector_->set_now(now);
    expire_held(now);
  }
  apply_pending_aborts();
  if (!can_schedule(now)) return nullptr;
  InFlightBatch* b = &core_.schedule_batch();
  metrics::feed_scheduled(metrics_, b->output, refs_, now);
  while (b->output.scheduled.empty()) {
    // Nothing runs (vLLM would not execute it); keep what it preempted for the next events.
    pending_preempted_.insert(pending_preempted_.end(), b->output.preempted.begin(),
                              b->output.preempted.end());
    const bool preempted = !b->output.preempted.empty();
    core_.discard_newest_empty();
    // vllm engine/core.py EngineCore.run_busy_loop: the next step follows at once while the
    // scheduler has requests. A step that only preempted (the head request could not grow
    // and preempted itself) freed blocks, so schedule again now: returning nothing would
    // leave an idle instance with requests no event wakes (found by the engine fuzzer).
    // Each retry runs one request fewer, so this ends.
    if (!preempted || !can_schedule(now)) return nullptr;
    b = &core_.schedule_batch();
    metrics::feed_scheduled(metrics_, b->output, refs_, now);
  }
  fill_batch(*b);
  return &batch_;
}

void VllmEngine::mark_valid_drafts(InFlightBatch& b) {
  SchedulerOutput& out = b.output;
  const std::int32_t k = cfg_.num_speculative_tokens;
  if (k <= 0) return;
  if (!cfg_.async_scheduling) {
    for (ScheduledRequest& e : out.scheduled) {
      std::int32_t v = 0;
      while (v < e.num_spec_tokens &&
             out.spec_token_ids[static_cast<std::size_t>(e.spec_begin + v)] != -1) {
        ++v;
      }
      e.num_valid_drafts = v;
    }
    return;
  }
  // A new or resumed request has none: the runner dropped them at the preemption.
  for (ScheduledRequest& e : out.scheduled) {
    const auto slot = static_cast<std::size_t>(e.ref.index);
    if (slot >= runner_drafts_.size()) runner_drafts_.resize(slot + 1, 0);  // the table grew
    std::uint32_t& held = runner_drafts_[slot];
    const bool holds = held == e.ref.gen + 1 && e.kind == ScheduledKind::kRunning;
    e.num_valid_drafts = holds ? e.num_spec_tokens : 0;
    held = e.samples ? e.ref.gen + 1 : 0;
  }
}

void VllmEngine::fill_batch(InFlightBatch& b) {
  mark_valid_drafts(b);
  batch_.id = b.batch_id;
  batch_.requests.clear();
  batch_.total_tokens = 0;
  batch_.prefill_tokens = 0;
  batch_.decode_tokens = 0;
  batch_.num_sampling = 0;
  batch_.num_preempted = static_cast<std::int32_t>(b.output.preempted.size());
  for (const ScheduledRequest& e : b.output.scheduled) {
    // Built in place: a stack copy pushed afterwards stalls on store forwarding (perf).
    engine::ScheduledRequest& s = batch_.requests.emplace_back();
    s.key = e.key;
    s.num_tokens = e.num_tokens;
    s.num_prefill_tokens = e.num_prefill_tokens;
    s.context_before = e.num_computed_before;
    s.num_spec_tokens = e.num_spec_tokens;
    s.lora_id = e.lora_id;
    s.samples = e.samples;
    batch_.total_tokens += e.num_tokens;
    batch_.prefill_tokens += e.num_prefill_tokens;
    batch_.num_sampling += e.samples ? 1 : 0;
  }
  batch_.decode_tokens = batch_.total_tokens - batch_.prefill_tokens;
}

void VllmEngine::report_preempted(const std::vector<engine::RequestKey>& keys) {
  for (const engine::RequestKey key : keys) {
    const ReqRef ref = refs_.get(key);
    const Request* r = core_.scheduler().find(ref);
    if (r == nullptr) continue;
    // An abort queued while the pass was in flight takes effect before its output
    // (engine.h): the caller hears nothing more of that request.
    const bool aborted =
        std::any_of(pending_aborts_.begin(), pending_aborts_.end(), [&](const auto& a) {
          return a.first == key && a.second.index == ref.index && a.second.gen == ref.gen;
        });
    if (aborted) continue;
    engine::RequestProgress p;
    p.key = key;
    p.num_output_tokens = r->num_output_tokens();
    p.num_cached_tokens = r->num_cached_tokens;
    p.num_preemptions = r->num_preemptions;
    events_.progress.push_back(p);
  }
}

const engine::StepEvents& VllmEngine::complete(std::uint64_t batch_id,
                                               const engine::StepOutcome& outcome, SimTime now) {
  if (connector_ != nullptr) connector_->set_now(now);
  if (core_.in_flight() == 0 || core_.oldest().batch_id != batch_id) {
    throw std::logic_error("complete: batch " + std::to_string(batch_id) +
                           " is not the oldest in flight");
  }
  InFlightBatch& b = core_.oldest();
  const SchedulerOutput& out = b.output;
  if (!outcome.accepted_drafts.empty() && outcome.accepted_drafts.size() != out.scheduled.size()) {
    throw std::invalid_argument(
        "complete: accepted_drafts must have one entry per scheduled request");
  }
  // The sampled tokens: 1 + accepted drafts for each request that samples, with synthetic
  // ids output_token_base + output index.
  b.sampled.clear();
  for (std::size_t i = 0; i < out.scheduled.size(); ++i) {
    const ScheduledRequest& e = out.scheduled[i];
    const Request* r = core_.scheduler().find(e.ref);
    if (!e.samples || r == nullptr) {
      b.sampled.add(nullptr, 0);
      continue;
    }
    // Only real drafts can be accepted (padding and async placeholders without a draft
    // are rejected).
    std::int32_t accepted = e.num_valid_drafts;
    if (!outcome.accepted_drafts.empty())
      accepted = std::clamp(outcome.accepted_drafts[i], 0, e.num_valid_drafts);
    const std::int32_t n = 1 + accepted;
    tokens_.clear();
    for (std::int32_t j = 0; j < n; ++j)
      tokens_.push_back(r->output_token_base + r->num_output_tokens() + j);
    b.sampled.add(tokens_.data(), n);
  }
  scratch_keys_.assign(out.preempted.begin(), out.preempted.end());

  events_.progress.clear();
  events_.transfers.clear();
  report_preempted(pending_preempted_);
  pending_preempted_.clear();
  report_preempted(scratch_keys_);

  scratch_keys_.clear();
  core_.apply_oldest(res_, &scratch_keys_);
  for (const engine::RequestKey key : scratch_keys_) refs_.erase(key);
  for (const RequestUpdate& u : res_.updates) {
    if (u.num_delivered == 0 && !u.stopped) continue;
    // Built in place: a stack copy pushed afterwards stalls on store forwarding (perf).
    engine::RequestProgress& p = events_.progress.emplace_back();
    p.key = u.key;
    p.new_tokens = u.num_delivered;
    p.first_token = u.first_token;
    p.finish = u.stopped ? finish_reason_of(u.status) : engine::FinishReason::kNone;
    p.num_output_tokens = u.num_output_tokens;
    p.num_cached_tokens = u.num_cached_tokens;
    p.num_preemptions = u.num_preemptions;
    for (const auto& kp : res_.kv_transfer_params) {
      if (kp.first == u.key && u.stopped)
        p.kv_transfer_params = std::make_shared<const engine::KvTransferParams>(kp.second);
    }
    if (u.stopped) refs_.erase(u.key);
  }
  // KV load failures under kv_load_failure_policy "fail": an output with no tokens and
  // finish_reason error (scheduler.py update_from_output error_reqs).
  report_errored(res_.errored, events_.progress);
  if (connector_ != nullptr) {
    // Transfers the worker waited for within the step (offloading jobs_to_flush).
    effects_.clear();
    connector_->on_step_output(effects_);
    for (const TransferEffect& e : effects_) apply_effect(e);
  }
  // SchedulerStats.kv_connector_stats: the connector's scheduler-side stats of the step.
  connector_stats_.clear();
  if (connector_ != nullptr) connector_->take_stats(connector_stats_);
  metrics::feed_completed(metrics_, metrics_pending_, res_, core_.scheduler(),
                          core_.scheduler().make_stats(),
                          connector_stats_.empty() ? nullptr : &connector_stats_, now);
  return events_;
}

bool VllmEngine::idle() const {
  return core_.in_flight() == 0 && !core_.scheduler().has_unfinished_requests();
}

engine::EngineStats VllmEngine::stats() const {
  const Scheduler& s = core_.scheduler();
  const KVCacheManager& kv = s.kv_cache_manager();
  engine::EngineStats st;
  st.num_running = s.num_running();
  st.num_waiting = s.num_waiting();
  st.kv_usage = kv.usage();
  st.num_free_blocks = kv.num_free_blocks();
  st.num_total_blocks = cfg_.num_gpu_blocks - 1;
  // vLLM's prefix_cache_queries / hits count fresh admissions (resumed ones are kept apart).
  st.prefix_queries = static_cast<std::uint64_t>(kv.cumulative_prefix_cache_stats().queries);
  st.prefix_hits = static_cast<std::uint64_t>(kv.cumulative_prefix_cache_stats().hits);
  st.preemptions = s.total_preemptions();
  st.has_connector = s.has_connector();
  st.external_prefix_queries = static_cast<std::uint64_t>(s.connector_prefix_cache_stats().queries);
  st.external_prefix_hits = static_cast<std::uint64_t>(s.connector_prefix_cache_stats().hits);
  st.kv_load_failed_requests = s.total_kv_load_failed_requests();
  st.kv_load_errored_requests = s.total_kv_load_errored_requests();
  st.in_flight_batches = core_.in_flight();
  return st;
}

std::string VllmEngine::metrics_text(SimTime now, const std::string& labels) const {
  (void)now;  // every family holds the value of the last step
  return metrics_.exposition(labels);
}

engine::Provenance VllmEngine::provenance() const {
  return engine_provenance();
}

void VllmEngine::take_transfers(std::vector<engine::TransferRequest>& out) {
  if (connector_ != nullptr) connector_->take_transfers(out);
}

void VllmEngine::transfer_finished(const engine::TransferRequest& t, SimTime now) {
  // The worker's KVConnectorOutput (finished_recving / finished_sending), applied as
  // scheduler.py _update_from_kv_xfer_finished does.
  if (connector_ == nullptr) return;
  connector_->set_now(now);
  apply_effect(connector_->on_transfer_finished(t));
  // A failed load under "fail" finished its request now (take_finished_between_steps).
  const std::size_t from = errored_scratch_.size();
  core_.scheduler().take_errored(errored_scratch_);
  metrics::feed_errored_between_steps(
      metrics_, std::span<const ErroredRequest>(errored_scratch_).subspan(from), now);
}

void VllmEngine::report_errored(const std::vector<ErroredRequest>& errored,
                                std::vector<engine::RequestProgress>& out) {
  for (const ErroredRequest& er : errored) {
    engine::RequestProgress& p = out.emplace_back();
    p.key = er.key;
    p.finish = engine::FinishReason::kError;
    p.num_output_tokens = er.num_output_tokens;
    p.num_cached_tokens = er.num_cached_tokens;
    p.num_preemptions = er.num_preemptions;
    refs_.erase(er.key);
  }
}

void VllmEngine::take_finished_between_steps(std::vector<engine::RequestProgress>& out) {
  // scheduler.py update_from_output's error outputs for the loads that failed between steps
  // (vLLM reports them with the step that carries the worker's invalid_block_ids).
  report_errored(errored_scratch_, out);
  errored_scratch_.clear();
}

void VllmEngine::apply_effect(const TransferEffect& e) {
  if (!e.invalid_block_ids.empty()) core_.scheduler().report_invalid_blocks(e.invalid_block_ids);
  if (e.finished_recving.index >= 0) core_.scheduler().finished_recving(e.finished_recving);
  if (e.finished_sending.index >= 0) core_.scheduler().finished_sending(e.finished_sending);
}

void VllmEngine::remote_heartbeat(engine::RequestKey key, SimTime now) {
  if (connector_ == nullptr) return;
  connector_->set_now(now);
  connector_->remote_heartbeat(key);
}

void VllmEngine::remote_read_done(engine::RequestKey key, SimTime now) {
  if (connector_ == nullptr) return;
  connector_->set_now(now);
  const ReqRef ref = connector_->remote_read_done(key);
  if (ref.index >= 0) core_.scheduler().finished_sending(ref);
}

void VllmEngine::expire_held(SimTime now) {
  if (connector_->next_deadline() > now) return;
  expired_.clear();
  connector_->expire(now, expired_);
  for (const ReqRef ref : expired_) core_.scheduler().finished_sending(ref);
}

void VllmEngine::poll(SimTime now) {
  if (connector_ == nullptr) return;
  connector_->set_now(now);
  expire_held(now);
}

SimTime VllmEngine::next_wake(SimTime now) const {
  (void)now;
  return connector_ != nullptr ? connector_->next_deadline() : kSimTimeNever;
}

bool VllmEngine::reset_prefix_cache(bool reset_running_requests) {
  return core_.scheduler().reset_prefix_cache(reset_running_requests);
}

}  // namespace blis::vllm
