#include "cluster/epp/flow_control.h"

#include <algorithm>
#include <utility>

namespace blis::cluster::epp {

FlowController::FlowController(FlowControlConfig cfg) : cfg_(std::move(cfg)) {
  for (const BandConfig& b : cfg_.bands) bands_[b.priority].cfg = b;
}

FlowController::Band& FlowController::band(std::int32_t priority) {
  auto it = bands_.find(priority);
  if (it != bands_.end()) return it->second;
  // registry: a priority no band lists gets one from the defaultPriorityBand template.
  Band& b = bands_[priority];
  b.cfg = cfg_.default_band;
  b.cfg.priority = priority;
  return b;
}

bool FlowController::has_capacity(const Band& b, std::uint64_t bytes) const {
  // controller/internal/processor.go hasCapacity: the layer's limits, then the band's.
  if (cfg_.max_bytes > 0 && total_bytes_ + bytes > cfg_.max_bytes) return false;
  if (cfg_.max_requests > 0 && total_len_ + 1 > cfg_.max_requests) return false;
  if (b.cfg.max_bytes > 0 && b.bytes + bytes > b.cfg.max_bytes) return false;
  if (b.cfg.max_requests > 0 && b.len + 1 > b.cfg.max_requests) return false;
  return true;
}

Enqueued FlowController::enqueue(std::uint64_t key, std::int32_t priority, const std::string& flow,
                                 std::uint64_t bytes, SimTime now) {
  Band& b = band(priority);
  if (!has_capacity(b, bytes)) {
    ++stats_.rejected_capacity;
    ++b.stats.rejected_capacity;
    return Enqueued::kRejectedCapacity;
  }
  b.flows[flow].push_back(Item{key, bytes, now});
  queued_[key] = Queued{priority, bytes, now};
  ++b.len;
  b.bytes += bytes;
  ++total_len_;
  total_bytes_ += bytes;
  ++stats_.enqueued;
  ++b.stats.enqueued;
  stats_.max_queued = std::max<std::uint64_t>(stats_.max_queued, total_len_);
  b.stats.max_queued = std::max<std::uint64_t>(b.stats.max_queued, b.len);
  return Enqueued::kQueued;
}

bool FlowController::live_front(std::deque<Item>& q) const {
  while (!q.empty() && queued_.count(q.front().key) == 0) q.pop_front();
  return !q.empty();
}

std::deque<FlowController::Item>* FlowController::pick_flow(Band& b, std::string& flow) {
  if (b.cfg.fairness == Fairness::kRoundRobin) {
    // fairness/roundrobin/roundrobin.go Pick: flows in key order (one band: by ID), starting
    // after the last one picked; the first with a queued request.
    auto start = b.flows.begin();
    if (b.has_last) {
      start = b.flows.upper_bound(b.last_flow);
      if (start == b.flows.end()) start = b.flows.begin();
    }
    auto it = start;
    for (std::size_t n = 0; n < b.flows.size(); ++n) {
      if (live_front(it->second)) {
        b.last_flow = it->first;
        b.has_last = true;
        flow = it->first;
        return &it->second;
      }
      if (++it == b.flows.end()) it = b.flows.begin();
    }
    b.has_last = false;
    return nullptr;
  }
  // fairness/globalstrict/global_strict.go Pick: the flow whose head the ordering policy
  // ranks first (FCFS: the earliest enqueued; ties, which upstream leaves to map order, go to
  // the flow enqueued first here as heads keep arrival order).
  std::deque<Item>* best = nullptr;
  for (auto& [id, q] : b.flows) {
    if (!live_front(q)) continue;
    if (best == nullptr || q.front().enqueued < best->front().enqueued ||
        (q.front().enqueued == best->front().enqueued && q.front().key < best->front().key)) {
      best = &q;
      flow = id;
    }
  }
  return best;
}

bool FlowController::dispatch_cycle(double saturation, SimTime now, std::uint64_t& key) {
  // processor.go dispatchCycle: bands from the highest priority down; the static usage
  // limit policy gives every band the same ceiling, so saturation at or above it stops the
  // cycle before any band (head-of-line blocking).
  for (auto it = bands_.rbegin(); it != bands_.rend(); ++it) {
    if (saturation >= cfg_.usage_limit) return false;
    Band& b = it->second;
    if (b.len == 0) continue;
    std::string flow;
    std::deque<Item>* q = pick_flow(b, flow);
    if (q == nullptr) continue;
    const Item item = q->front();
    q->pop_front();
    queued_.erase(item.key);
    --b.len;
    b.bytes -= item.bytes;
    --total_len_;
    total_bytes_ -= item.bytes;
    const double wait = to_millis(now - item.enqueued);
    for (FlowStats* s : {&stats_, &b.stats}) {
      ++s->dispatched;
      s->wait_ms_sum += wait;
      s->wait_ms_max = std::max(s->wait_ms_max, wait);
    }
    key = item.key;
    return true;
  }
  return false;
}

bool FlowController::remove(std::uint64_t key, Band** from) {
  const auto it = queued_.find(key);
  if (it == queued_.end()) return false;
  Band& b = bands_.at(it->second.priority);
  *from = &b;
  --b.len;
  b.bytes -= it->second.bytes;
  --total_len_;
  total_bytes_ -= it->second.bytes;
  queued_.erase(it);  // its item stays in the flow's queue until it reaches the front
  return true;
}

bool FlowController::expire(std::uint64_t key, SimTime now) {
  // controller.go EnqueueAndWait: the request's context carries the TTL deadline; when it
  // passes, the item is finalized EvictedTTL (HTTP 503). Upstream the finalized item keeps
  // its queue space until the next cleanup sweep (ExpiryCleanupInterval, 1 s); here it
  // leaves at once.
  const auto it = queued_.find(key);
  if (it == queued_.end() || deadline(it->second.enqueued) > now) return false;
  Band* from = nullptr;
  remove(key, &from);
  ++stats_.evicted_ttl;
  ++from->stats.evicted_ttl;
  return true;
}

bool FlowController::cancel(std::uint64_t key) {
  // EvictedContextCancelled: the client disconnected while queued.
  Band* from = nullptr;
  if (!remove(key, &from)) return false;
  ++stats_.cancelled;
  ++from->stats.cancelled;
  return true;
}

std::vector<std::pair<std::int32_t, FlowStats>> FlowController::band_stats() const {
  std::vector<std::pair<std::int32_t, FlowStats>> out;
  for (auto it = bands_.rbegin(); it != bands_.rend(); ++it)
    out.emplace_back(it->first, it->second.stats);
  return out;
}

std::size_t FlowController::queued_in(std::int32_t priority) const {
  const auto it = bands_.find(priority);
  return it == bands_.end() ? 0 : it->second.len;
}

}  // namespace blis::cluster::epp
