// What the trace records of a scheduled batch (SchedulerOutput) and at the end of a step
// (FORMAT.md "Output, one entry per step").

#include <algorithm>

#include "conform/conform_driver.h"
#include "util/json_write.h"

namespace blis::vllm::conform {

void Driver::record_schedule(const InFlightBatch& b, ojson& rec) {
  const SchedulerOutput& out = b.output;
  ojson scheduled = ojson::object();
  ojson new_reqs = ojson::array();
  ojson resumed = ojson::array();
  ojson preempted = ojson::array();
  for (const ScheduledRequest& e : out.scheduled) {
    scheduled[id_of(e.key)] = e.num_tokens;
    if (e.kind == ScheduledKind::kNew) new_reqs.push_back(id_of(e.key));
  }
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind != ScheduledKind::kResumed) continue;
    // With the V2 model runner resumed requests are sent as new ones (scheduler.py).
    (c_.config.use_v2_model_runner ? new_reqs : resumed).push_back(id_of(e.key));
  }
  for (const engine::RequestKey k : out.preempted) preempted.push_back(id_of(k));
  rec["scheduled"] = scheduled;
  rec["new_reqs"] = new_reqs;
  rec["resumed"] = resumed;
  rec["preempted"] = preempted;

  // req_to_new_blocks: new requests first, then running, then resumed (SchedulerOutput
  // construction order); cached requests without new blocks are left out (allow_none).
  ojson blocks = ojson::object();
  auto add_blocks = [&](const ScheduledRequest& e) {
    ojson ids = ojson::array();
    for (std::int32_t k = e.blocks_begin; k < e.blocks_end; ++k)
      ids.push_back(out.block_ids[static_cast<std::size_t>(k)]);
    blocks[id_of(e.key)] = ojson::array({ids});
  };
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind == ScheduledKind::kNew) add_blocks(e);
  }
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind == ScheduledKind::kRunning && e.blocks_end > e.blocks_begin) add_blocks(e);
  }
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.kind == ScheduledKind::kResumed && e.blocks_end > e.blocks_begin) add_blocks(e);
  }
  rec["new_block_ids"] = blocks;
  trace_entries_ += static_cast<std::int64_t>(out.scheduled.size());
  if (spec()) record_spec_schedule(b, rec);

  if (async()) {
    ojson samples = ojson::object();
    ojson placeholders = ojson::object();
    std::size_t k = 0;
    for (const ScheduledRequest& e : out.scheduled) {
      if (b.sampled.count(k) > 0)
        samples[id_of(e.key)] = b.sampled.tokens[static_cast<std::size_t>(b.sampled.offsets[k])];
      const Request* r = sched().find(e.ref);
      placeholders[id_of(e.key)] = r != nullptr ? r->num_output_placeholders : 0;
      ++k;
    }
    rec["batch_samples"] = samples;
    rec["placeholders_after_schedule"] = placeholders;
  }
  rec["after_schedule"] = {
      {"num_running", sched().num_running()},
      {"num_waiting", sched().num_waiting()},
      {"num_free_blocks", sched().kv_cache_manager().num_free_blocks()},
      {"num_common_prefix_blocks", ojson::array({out.num_common_prefix_blocks})}};
  if (lora()) record_lora(out, rec);
}

void Driver::record_spec_schedule(const InFlightBatch& b, ojson& rec) const {
  const SchedulerOutput& out = b.output;
  ojson drafts = ojson::object();
  for (const ScheduledRequest& e : out.scheduled) {
    if (e.num_spec_tokens == 0) continue;
    const auto first = out.spec_token_ids.begin() + e.spec_begin;
    drafts[id_of(e.key)] = std::vector<std::int32_t>(first, first + e.num_spec_tokens);
  }
  rec["scheduled_spec_decode_tokens"] = drafts;
  if (!async()) return;
  ojson tokens = ojson::object();
  for (std::size_t k = 0; k < out.scheduled.size(); ++k) {
    if (b.sampled.count(k) == 0) continue;
    const auto first = b.sampled.tokens.begin() + b.sampled.offsets[k];
    tokens[id_of(out.scheduled[k].key)] =
        std::vector<std::int32_t>(first, first + b.sampled.count(k));
  }
  rec["batch_sample_tokens"] = tokens;
}

void Driver::record_lora(const SchedulerOutput& out, ojson& rec) const {
  // Scheduler.skipped_waiting in queue order, and the adapters scheduled this step.
  ojson skipped = ojson::array();
  for (const std::int32_t s : sched().skipped_waiting_queue().in_order())
    skipped.push_back(id_of(sched().slot(s).key));
  std::vector<std::int32_t> loras;
  for (const ScheduledRequest& e : out.scheduled) {
    const std::int32_t id = c_.requests[e.key].lora_id;
    if (id > 0) loras.push_back(id);
  }
  std::sort(loras.begin(), loras.end());
  loras.erase(std::unique(loras.begin(), loras.end()), loras.end());
  rec["after_schedule"]["skipped_waiting"] = skipped;
  rec["after_schedule"]["scheduled_loras"] = loras;
}

void Driver::record_spec_tail(ojson& rec, bool applied) const {
  if (applied && has_spec_stats_) {
    const metrics::SpecDecodingStats& s = spec_stats_;
    rec["spec_decoding_stats"] = {{"num_spec_tokens", s.num_spec_tokens},
                                  {"num_drafts", s.num_drafts},
                                  {"num_draft_tokens", s.num_draft_tokens},
                                  {"num_accepted_tokens", s.num_accepted_tokens},
                                  {"num_accepted_tokens_per_pos", s.num_accepted_tokens_per_pos},
                                  {"num_draft_tokens_per_pos", s.num_draft_tokens_per_pos}};
  } else {
    rec["spec_decoding_stats"] = nullptr;
  }
}

void Driver::record_tail(ojson& rec, bool applied) {
  if (!rec.contains("finished")) rec["finished"] = ojson::array();
  // Prefix-cache stats are taken with the output of an applied batch (make_stats); they
  // cover every admission since the previous one.
  const PrefixCacheStats p = applied ? stats_.prefix_cache_stats : PrefixCacheStats{};
  json_write::put(rec, {{"num_running", sched().num_running()},
                        {"num_waiting", sched().num_waiting()},
                        {"kv_usage", sched().kv_cache_manager().usage()},
                        {"num_free_blocks", sched().kv_cache_manager().num_free_blocks()},
                        {"prefix_requests", p.requests},
                        {"prefix_queries", p.queries},
                        {"prefix_hits", p.hits},
                        {"preempted_prefix_requests", p.preempted_requests},
                        {"preempted_prefix_queries", p.preempted_queries},
                        {"preempted_prefix_hits", p.preempted_hits}});
  ojson computed = ojson::object();
  ojson placeholders = ojson::object();
  ojson stale = ojson::object();
  ojson spec_ids = ojson::object();
  // Live requests only (those that left the scheduler are dropped from the list).
  live_.erase(
      std::remove_if(live_.begin(), live_.end(),
                     [&](std::size_t i) { return sched().find(tracked_[i].ref) == nullptr; }),
      live_.end());
  for (const std::size_t i : live_) {
    const Request* r = sched().find(tracked_[i].ref);
    const std::string& id = c_.requests[i].id;
    computed[id] = r->num_computed_tokens;
    placeholders[id] = r->num_output_placeholders;
    if (r->num_stale_output_tokens != 0) stale[id] = r->num_stale_output_tokens;
    if (!r->spec_token_ids.empty()) spec_ids[id] = r->spec_token_ids;
  }
  trace_entries_ += static_cast<std::int64_t>(live_.size()) + kTraceEntriesPerStep;
  if (spec()) record_spec_tail(rec, applied);
  rec["num_computed_tokens"] = computed;
  if (spec()) rec["spec_token_ids"] = spec_ids;
  if (async()) {
    ojson in_flight = ojson::array();
    for (std::int32_t k = 0; k < core_.in_flight(); ++k)
      in_flight.push_back(core_.in_flight_batch(k).batch_id);
    rec["in_flight"] = in_flight;
    rec["num_output_placeholders"] = placeholders;
    rec["num_stale_output_tokens"] = stale;
  }
}

}  // namespace blis::vllm::conform
