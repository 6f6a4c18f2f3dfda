#include "conform/conform_mock.h"

#include <algorithm>

namespace blis::vllm::conform {
namespace {

// The next entry of a cyclic list, or `fallback` when the list is empty.
std::int32_t next_cyclic(const std::vector<std::int32_t>& v, std::size_t& cursor,
                         std::int32_t fallback) {
  if (v.empty()) return fallback;
  const std::int32_t x = v[cursor % v.size()];
  ++cursor;
  return x;
}

}  // namespace

MockModel::MockModel(const Case& c)
    : c_(c),
      async_(c.config.async_scheduling),
      k_(c.config.num_speculative_tokens),
      state_(c.requests.size()) {}

std::int32_t MockModel::token_fn(engine::RequestKey key, std::int32_t pos) const {
  // FORMAT.md: 1000 + output index, or with per_request also + 100000 x input position.
  // In 64 bits: the decoder (conform_input.cpp check_bounds) keeps the result in int32.
  const std::int64_t base =
      c_.token_fn_per_request ? 1000 + 100000 * static_cast<std::int64_t>(key) : 1000;
  return static_cast<std::int32_t>(base + pos);
}

std::int32_t MockModel::mock_token(engine::RequestKey key, std::int32_t pos) const {
  const CaseRequest& r = c_.requests[key];
  if (r.eos_at_output > 0 && pos + 1 == r.eos_at_output) return r.eos_token_id;
  return token_fn(key, pos);
}

std::int32_t MockModel::next_drafts(engine::RequestKey key) {
  const std::int32_t d = next_cyclic(c_.requests[key].spec_drafts, state_[key].next_drafts, k_);
  return std::min(d, k_);
}

void MockModel::on_scheduled(const SchedulerOutput& out) {
  for (const engine::RequestKey key : out.preempted) state_[key].held_drafts = 0;
}

std::int32_t MockModel::valid_drafts(const InFlightBatch& b, const ScheduledRequest& e) const {
  const std::int32_t s = e.num_spec_tokens;
  if (async_) return std::min(state_[e.key].held_drafts, s);
  // Sync: the leading scheduled drafts that are not -1 (padding of new one-token decodes).
  std::int32_t v = 0;
  while (v < s && b.output.spec_token_ids[static_cast<std::size_t>(e.spec_begin + v)] != -1) ++v;
  return v;
}

void MockModel::run_batch(InFlightBatch& b, const Scheduler& sched,
                          std::vector<std::int32_t>& valid) {
  b.sampled.clear();
  b.drafts.clear();
  valid.assign(b.output.scheduled.size(), 0);
  const bool propose = !async_ && k_ > 0;
  for (std::size_t i = 0; i < b.output.scheduled.size(); ++i) {
    const ScheduledRequest& e = b.output.scheduled[i];
    State& st = state_[e.key];
    const Request* r = sched.find(e.ref);
    if (!e.samples || r == nullptr) {
      b.sampled.add(nullptr, 0);
      if (propose) b.drafts.add(nullptr, 0);
      st.held_drafts = 0;  // the runner holds no drafts after a prefill chunk
      continue;
    }
    // a = min(next spec_accept entry, v) when v > 0; an entry is consumed only then.
    const std::int32_t v = valid_drafts(b, e);
    valid[i] = v;
    const std::int32_t a =
        v > 0 ? std::min(next_cyclic(c_.requests[e.key].spec_accept, st.next_accept, v), v) : 0;
    // Output position p: outputs so far plus (async) the tokens of earlier batches in flight.
    const std::int32_t p = r->num_output_tokens() + (async_ ? st.inflight_samples : 0);
    scratch_.clear();
    for (std::int32_t j = 0; j <= a; ++j) scratch_.push_back(mock_token(e.key, p + j));
    b.sampled.add(scratch_.data(), 1 + a);
    if (async_) {
      st.inflight_samples += 1 + a;
      if (k_ > 0) st.held_drafts = next_drafts(e.key);
    } else if (propose) {
      // EngineCore.post_step -> update_draft_token_ids: d drafts with the token_fn values at
      // the request's next output positions.
      const std::int32_t d = next_drafts(e.key);
      scratch_.clear();
      for (std::int32_t j = 0; j < d; ++j) scratch_.push_back(token_fn(e.key, p + 1 + a + j));
      b.drafts.add(scratch_.data(), d);
    }
  }
}

void MockModel::on_applied(const InFlightBatch& b) {
  if (!async_) return;
  for (std::size_t i = 0; i < b.output.scheduled.size(); ++i)
    state_[b.output.scheduled[i].key].inflight_samples -= b.sampled.count(i);
}

}  // namespace blis::vllm::conform
