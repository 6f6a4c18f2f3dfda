#include "cluster/dense_dp_engine.h"

#include <stdexcept>
#include <utility>

namespace blis::cluster {

void DenseDpEngine::add_request(engine::RequestSpec spec, SimTime now) {
  const std::int32_t r = place(spec, now);
  ranks_[static_cast<std::size_t>(r)]->add_request(std::move(spec), now);
}

bool DenseDpEngine::can_schedule(SimTime now) const {
  for (const auto& r : ranks_) {
    if (r->can_schedule(now)) return true;
  }
  return false;
}

const engine::Batch* DenseDpEngine::schedule(SimTime) {
  throw std::logic_error("DenseDpEngine: its ranks are scheduled one by one (schedule_rank)");
}

const engine::StepEvents& DenseDpEngine::complete(std::uint64_t, const engine::StepOutcome&,
                                                  SimTime) {
  throw std::logic_error("DenseDpEngine: its ranks complete one by one (complete_rank)");
}

bool DenseDpEngine::idle() const {
  for (const auto& r : ranks_) {
    if (!r->idle()) return false;
  }
  return true;
}

std::int32_t DenseDpEngine::in_flight() const {
  std::int32_t n = 0;
  for (const auto& r : ranks_) n += r->in_flight();
  return n;
}

const engine::Batch* DenseDpEngine::schedule_rank(std::int32_t r, SimTime now) {
  const engine::Batch* b = ranks_[static_cast<std::size_t>(r)]->schedule(now);
  if (b == nullptr) return nullptr;
  // The rank's own pass; its entries name the rank (traces, pricing splits).
  batch_ = *b;
  for (engine::ScheduledRequest& q : batch_.requests) q.dp_rank = r;
  return &batch_;
}

const engine::StepEvents& DenseDpEngine::complete_rank(std::int32_t r, std::uint64_t batch_id,
                                                       const engine::StepOutcome& outcome,
                                                       SimTime now) {
  const engine::StepEvents& ev =
      ranks_[static_cast<std::size_t>(r)]->complete(batch_id, outcome, now);
  ++steps_per_rank_[static_cast<std::size_t>(r)];
  for (const engine::RequestProgress& p : ev.progress) note_progress(p);
  return ev;
}

}  // namespace blis::cluster
