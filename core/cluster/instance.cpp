#include "cluster/instance.h"

#include "cluster/spec_acceptance.h"

#include <algorithm>
#include <utility>

namespace blis::cluster {
namespace {

// Microseconds as a double -> SimTime, rounding halves up (inputs are >= 0).
SimTime round_us(double us) {
  return us <= 0 ? 0 : static_cast<SimTime>(us + 0.5);
}

}  // namespace

Instance::Instance(std::int32_t index, std::string name, std::int32_t pool,
                   std::unique_ptr<engine::Engine> engine, const StepCostModel& pricer,
                   ServingOverheads overheads, double spec_acceptance, Rng spec_rng)
    : index_(index),
      name_(std::move(name)),
      pool_(pool),
      engine_(std::move(engine)),
      pricer_(&pricer),
      overheads_(std::move(overheads)),
      spec_acceptance_(spec_acceptance),
      spec_rng_(spec_rng) {
  ring_.resize(static_cast<std::size_t>(std::max(1, engine_->max_concurrent_batches())));
}

SimTime Instance::oldest_gpu_end() const {
  return inflight_count_ == 0 ? kSimTimeNever : ring_[static_cast<std::size_t>(ring_head_)].gpu_end;
}

LoopDecision Instance::run_loop(SimTime t) {
  LoopDecision d;
  const auto depth = static_cast<std::int32_t>(ring_.size());
  // core.py step_with_batch_queue: a new batch is always scheduled first when the scheduler
  // has requests and the batch queue has room.
  if (inflight_count_ < depth && engine_->can_schedule(t)) {
    const engine::Batch* batch = engine_->schedule(t);
    if (batch != nullptr) {
      StepTiming cost = pricer_->price(*batch);
      // The worker loads the batch's adapters before the forward pass (set_active_adapters).
      if (lora_) cost.gpu += round_us(lora_->apply(*batch));
      // Hand-offs and all-to-alls between nodes share the NICs with the transfers in flight;
      // a slowed hand-off holds its stage longer too.
      if (link_share_ && cost.cross_node_us > 0) {
        const SimTime extra = link_share_(*this, t, cost.cross_node_us);
        if (extra > 0) {
          cost.gpu += extra;
          if (cost.stage > 0) cost.stage = std::min(cost.gpu, cost.stage + extra);
          ++counters_.collectives_slowed;
          counters_.collective_extra += extra;
        }
      }
      // The engine-core thread schedules and prepares inputs; the GPU runs passes back to
      // back, so a pass starts when both the thread has launched it and the previous pass
      // has finished.
      const SimTime launch = t + cost.cpu;
      const SimTime start = std::max(launch, gpu_free_);
      const SimTime end = start + cost.gpu;
      // With pipeline parallelism the next pass enters the first stage once this one has
      // left the busiest stage; it finishes after the whole pipeline.
      gpu_free_ = cost.stage > 0 ? std::min(end, start + cost.stage) : end;
      auto slot = static_cast<std::size_t>((ring_head_ + inflight_count_) % depth);
      InFlight& f = ring_[slot];
      f.batch_id = batch->id;
      f.gpu_end = end;
      f.tokens = batch->total_tokens;
      draw_acceptance(*batch, f.outcome);
      ++inflight_count_;
      counters_.cpu_busy += cost.cpu;
      counters_.gpu_busy += cost.gpu;
      d.launched = batch;
      d.gpu_start = start;
      d.gpu_end = end;
      // "Filling the pipeline beats collecting outputs": return at once only when the batch
      // queue still has room and the oldest pass is still running.
      if (inflight_count_ < depth && oldest_gpu_end() > launch) {
        d.kind = LoopDecision::Kind::kLoopAgain;
        d.at = launch;
      } else {
        d.kind = LoopDecision::Kind::kWaitBatch;
        d.at = std::max(launch, oldest_gpu_end());
      }
      return d;
    }
  }
  if (inflight_count_ == 0) return d;  // kIdle
  // Nothing new to schedule (or the queue is full): block on the oldest pass.
  d.kind = LoopDecision::Kind::kWaitBatch;
  d.at = std::max(t, oldest_gpu_end());
  return d;
}

const engine::StepEvents& Instance::complete_oldest(SimTime t) {
  InFlight& f = ring_[static_cast<std::size_t>(ring_head_)];
  ring_head_ = (ring_head_ + 1) % static_cast<std::int32_t>(ring_.size());
  --inflight_count_;
  ++counters_.steps;
  counters_.tokens_computed += static_cast<std::uint64_t>(f.tokens);
  return engine_->complete(f.batch_id, f.outcome, t);
}

SimTime Instance::stream_outputs(SimTime t, std::int32_t requests) {
  const SimTime start = std::max(t, output_free_);
  const double work =
      overheads_.output_step_us + overheads_.output_per_request_us * static_cast<double>(requests);
  output_free_ = start + round_us(work);
  return output_free_;
}

SimTime Instance::engine_arrival(SimTime t, std::int32_t prompt_tokens) const {
  return t + round_us(overheads_.request_us +
                      overheads_.tokenize_per_token_us * static_cast<double>(prompt_tokens));
}

void Instance::draw_acceptance(const engine::Batch& batch, engine::StepOutcome& out) {
  out.accepted_drafts.clear();
  bool any_spec = false;
  for (const auto& r : batch.requests) any_spec = any_spec || r.num_spec_tokens > 0;
  if (!any_spec) return;
  // Each draft token is accepted with probability spec_acceptance_ until the first
  // rejection (rejection sampling verifies drafts left to right).
  out.accepted_drafts.resize(batch.requests.size(), 0);
  for (std::size_t i = 0; i < batch.requests.size(); ++i) {
    const engine::ScheduledRequest& r = batch.requests[i];
    if (acceptance_of_ && r.num_spec_tokens > 0) {
      if (const scenario::SpecAcceptance* m = acceptance_of_(r.key)) {
        out.accepted_drafts[i] = draw_accepted(*m, r.num_spec_tokens, spec_rng_);
        continue;
      }
    }
    std::int32_t accepted = 0;
    while (accepted < batch.requests[i].num_spec_tokens &&
           spec_rng_.uniform01() < spec_acceptance_) {
      ++accepted;
    }
    out.accepted_drafts[i] = accepted;
  }
}

}  // namespace blis::cluster
