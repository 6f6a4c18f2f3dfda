#include "cluster/instance.h"

#include "cluster/dense_dp_engine.h"
#include "cluster/spec_acceptance.h"

#include <algorithm>
#include <stdexcept>
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
  dense_ = dynamic_cast<DenseDpEngine*>(engine_.get());
  lanes_.resize(dense_ != nullptr ? static_cast<std::size_t>(dense_->dp()) : 1);
  for (Lane& l : lanes_)
    l.ring.resize(static_cast<std::size_t>(std::max(1, engine_->max_concurrent_batches())));
}

std::int32_t Instance::in_flight() const {
  std::int32_t n = 0;
  for (const Lane& l : lanes_) n += l.count;
  return n;
}

SimTime Instance::oldest_gpu_end(std::int32_t lane) const {
  const Lane& l = lane_at(lane);
  return l.count == 0 ? kSimTimeNever : l.ring[static_cast<std::size_t>(l.head)].gpu_end;
}

bool Instance::lane_can_schedule(std::int32_t l, SimTime t) const {
  return dense_ != nullptr ? dense_->can_schedule_rank(l, t) : engine_->can_schedule(t);
}

const engine::Batch* Instance::lane_schedule(std::int32_t l, SimTime t) {
  return dense_ != nullptr ? dense_->schedule_rank(l, t) : engine_->schedule(t);
}

LoopDecision Instance::run_loop(SimTime t, std::int32_t lane) {
  LoopDecision d;
  Lane& ln = lane_at(lane);
  const auto depth = static_cast<std::int32_t>(ln.ring.size());
  // core.py step_with_batch_queue: a new batch is always scheduled first when the scheduler
  // has requests and the batch queue has room.
  if (ln.count < depth && lane_can_schedule(lane, t)) {
    const engine::Batch* batch = lane_schedule(lane, t);
    if (batch != nullptr) {
      StepTiming cost = pricer_->price(*batch);
      // The worker loads the batch's adapters before the forward pass (set_active_adapters).
      if (ln.lora) cost.gpu += round_us(ln.lora->apply(*batch));
      // Hand-offs and all-to-alls between nodes share the NICs with the transfers in flight;
      // a slowed hand-off holds its stage longer too.
      SharedCollective shared;
      if (link_share_ && cost.cross_node_us > 0) {
        shared = link_share_(*this, t, cost.cross_node_us);
        if (shared.extra > 0) {
          cost.gpu += shared.extra;
          if (cost.stage > 0) cost.stage = std::min(cost.gpu, cost.stage + shared.extra);
          ++counters_.collectives_slowed;
          counters_.collective_extra += shared.extra;
        }
      }
      // The engine-core thread schedules and prepares inputs; the GPU runs passes back to
      // back, so a pass starts when both the thread has launched it and the previous pass
      // has finished.
      const SimTime launch = t + cost.cpu;
      const SimTime start = std::max(launch, ln.gpu_free);
      const SimTime end = start + cost.gpu;
      auto slot = static_cast<std::size_t>((ln.head + ln.count) % depth);
      InFlight& f = ln.ring[slot];
      f.batch_id = batch->id;
      f.launch = launch;
      f.gpu_start = start;
      f.gpu = cost.gpu;
      f.stage = cost.stage;
      f.gpu_end = end;
      f.tokens = batch->total_tokens;
      f.flow = shared.flow;
      f.cross_node_us = cost.cross_node_us;
      f.collective_extra = shared.extra;
      ln.gpu_free = frees_gpu_at(f);
      draw_acceptance(*batch, f.outcome);
      ++ln.count;
      counters_.cpu_busy += cost.cpu;
      counters_.gpu_busy += cost.gpu;
      d.launched = batch;
      d.gpu_start = start;
      d.gpu_end = end;
      // "Filling the pipeline beats collecting outputs": return at once only when the batch
      // queue still has room and the oldest pass is still running.
      if (ln.count < depth && oldest_gpu_end(lane) > launch) {
        d.kind = LoopDecision::Kind::kLoopAgain;
        d.at = launch;
      } else {
        d.kind = LoopDecision::Kind::kWaitBatch;
        d.at = std::max(launch, oldest_gpu_end(lane));
      }
      return d;
    }
  }
  if (ln.count == 0) return d;  // kIdle
  // Nothing new to schedule (or the queue is full): block on the oldest pass.
  d.kind = LoopDecision::Kind::kWaitBatch;
  d.at = std::max(t, oldest_gpu_end(lane));
  return d;
}

SimTime Instance::frees_gpu_at(const InFlight& f) {
  // With pipeline parallelism the next pass enters the first stage once this one has left
  // the busiest stage; it finishes after the whole pipeline.
  return f.stage > 0 ? std::min(f.gpu_end, f.gpu_start + f.stage) : f.gpu_end;
}

bool Instance::reprice_collective(std::uint64_t flow, double shared_us) {
  if (flow == 0) return false;
  for (Lane& ln : lanes_) {
    const auto depth = static_cast<std::int32_t>(ln.ring.size());
    for (std::int32_t k = 0; k < ln.count; ++k) {
      InFlight& f = ln.ring[static_cast<std::size_t>((ln.head + k) % depth)];
      if (f.flow != flow) continue;
      const SimTime extra = round_us(shared_us - f.cross_node_us);
      if (extra <= f.collective_extra) return true;
      // A slowed hand-off holds its stage longer too, as at launch.
      const SimTime more = extra - f.collective_extra;
      if (f.collective_extra == 0) ++counters_.collectives_slowed;
      ++counters_.collectives_repriced;
      f.collective_extra = extra;
      counters_.collective_extra += more;
      counters_.gpu_busy += more;
      f.gpu += more;
      if (f.stage > 0) f.stage = std::min(f.gpu, f.stage + more);
      f.gpu_end = f.gpu_start + f.gpu;
      // The passes behind it run back to back on the GPU, so they start later too.
      SimTime free_at = frees_gpu_at(f);
      for (std::int32_t j = k + 1; j < ln.count; ++j) {
        InFlight& g = ln.ring[static_cast<std::size_t>((ln.head + j) % depth)];
        g.gpu_start = std::max(g.launch, free_at);
        g.gpu_end = g.gpu_start + g.gpu;
        free_at = frees_gpu_at(g);
      }
      ln.gpu_free = free_at;
      return true;
    }
  }
  return false;
}

const engine::StepEvents& Instance::complete_oldest(SimTime t, std::int32_t lane) {
  Lane& ln = lane_at(lane);
  InFlight& f = ln.ring[static_cast<std::size_t>(ln.head)];
  if (ln.count == 0 || t < f.gpu_end)
    throw std::logic_error("complete_oldest: no pass in flight has ended by this instant");
  ln.head = (ln.head + 1) % static_cast<std::int32_t>(ln.ring.size());
  --ln.count;
  ++counters_.steps;
  counters_.tokens_computed += static_cast<std::uint64_t>(f.tokens);
  if (dense_ != nullptr) return dense_->complete_rank(lane, f.batch_id, f.outcome, t);
  return engine_->complete(f.batch_id, f.outcome, t);
}

// Each lane's outputs go to the API servers of its requests' clients; with one API server
// per rank (vLLM's default under the internal LB) a rank's share of the output work is one
// server's, modelled as the lane's own handler (an estimate: which server holds which request
// is not tracked).
SimTime Instance::stream_outputs(SimTime t, std::int32_t requests, std::int32_t lane) {
  Lane& ln = lane_at(lane);
  const SimTime start = std::max(t, ln.output_free);
  const double work =
      overheads_.output_step_us + overheads_.output_per_request_us * static_cast<double>(requests);
  ln.output_free = start + round_us(work);
  return ln.output_free;
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
