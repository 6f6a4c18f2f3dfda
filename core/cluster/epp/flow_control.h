#pragma once
// FlowController: the EPP's flow-control layer (pkg/epp/flowcontrol in
// llm-d/llm-d-inference-scheduler), enabled by the `flowControl` feature gate. A request is
// held in the priority band of its priority, in its flow's queue (flow = fairness ID); a
// dispatch cycle runs when a request arrives and on a 1 ms ticker, and dispatches at most one
// request: none while the pool's saturation is at or above the usage limit (head-of-line
// blocking), else the highest band with a queued request, whose fairness policy picks the
// flow and whose ordering policy the request. Enqueueing over a band's or the layer's
// capacity rejects (HTTP 429); a request still queued after its TTL is evicted (HTTP 503).

#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "util/sim_time.h"

namespace blis::cluster::epp {

inline constexpr const char* kFlowControlGate = "flowControl";
// registry/config.go: a band's default byte capacity; 0 elsewhere means "no limit".
inline constexpr std::uint64_t kDefaultBandMaxBytes = 1'000'000'000;
// controller/internal/processor.go Run: the dispatch ticker's period.
inline constexpr SimTime kDispatchTick = 1000;  // 1 ms

enum class Fairness { kGlobalStrict, kRoundRobin };

struct BandConfig {
  std::int32_t priority = 0;  // upstream's scale: higher = more important, < 0 sheddable
  std::uint64_t max_bytes = kDefaultBandMaxBytes;
  std::uint64_t max_requests = 0;  // 0: no limit
  Fairness fairness = Fairness::kGlobalStrict;
  // The ordering policy (fcfs-ordering-policy, edf-ordering-policy) needs no field: every
  // request gets the same TTL (defaultRequestTTL), so EDF's deadlines order as enqueue times.
};

struct FlowControlConfig {
  bool enabled = false;                           // featureGates lists "flowControl"
  std::uint64_t max_bytes = 0, max_requests = 0;  // across bands; 0: no limit
  SimTime default_ttl = 0;                        // 0: wait until the client gives up
  BandConfig default_band;                        // template for unlisted priorities
  std::vector<BandConfig> bands;
  double usage_limit = 1.0;  // static-usage-limit-policy threshold
};

enum class Enqueued { kQueued, kRejectedCapacity };

struct FlowStats {
  std::uint64_t enqueued = 0, dispatched = 0, rejected_capacity = 0, evicted_ttl = 0, cancelled = 0,
                max_queued = 0;
  double wait_ms_sum = 0, wait_ms_max = 0;  // of the dispatched requests
};

class FlowController {
 public:
  explicit FlowController(FlowControlConfig cfg);

  // Admits `key` to its band (creating it from the default template) or rejects it for
  // capacity. `bytes`: the request's size as the capacity limits count it.
  Enqueued enqueue(std::uint64_t key, std::int32_t priority, const std::string& flow,
                   std::uint64_t bytes, SimTime now);
  // One dispatch cycle at `saturation`: true and the key of the request to schedule, or false.
  bool dispatch_cycle(double saturation, SimTime now, std::uint64_t& key);
  // The queued request's TTL deadline (kSimTimeNever: none).
  SimTime deadline(SimTime enqueued) const {
    return cfg_.default_ttl > 0 ? enqueued + cfg_.default_ttl : kSimTimeNever;
  }
  // Evicts `key` if it is still queued and its deadline is `now`: true if it was.
  bool expire(std::uint64_t key, SimTime now);
  // The client went away while `key` was queued: it leaves its queue. False if not queued.
  bool cancel(std::uint64_t key);

  std::size_t queued() const { return total_len_; }
  std::size_t queued_in(std::int32_t priority) const;
  const FlowStats& stats() const { return stats_; }
  // Per band, highest priority first: (priority, its stats; max_queued is the band's).
  std::vector<std::pair<std::int32_t, FlowStats>> band_stats() const;
  const FlowControlConfig& config() const { return cfg_; }

 private:
  struct Item {
    std::uint64_t key = 0;
    std::uint64_t bytes = 0;
    SimTime enqueued = 0;
  };
  struct Band {
    BandConfig cfg;
    std::map<std::string, std::deque<Item>> flows;  // flow id -> FCFS queue
    std::size_t len = 0;
    std::uint64_t bytes = 0;
    std::string last_flow;  // round-robin cursor ("" none)
    bool has_last = false;
    FlowStats stats;
  };
  // Where a queued request is: a removal (TTL, cancel) only drops it from here and from its
  // band's counts, and the queues skip such items when they reach the front, so removing
  // one of N queued requests costs O(log N), not a scan of every queue.
  struct Queued {
    std::int32_t priority = 0;
    std::uint64_t bytes = 0;
    SimTime enqueued = 0;
  };
  // Drops removed items from the front of `q`; true when a queued request is left at its head.
  bool live_front(std::deque<Item>& q) const;

  FlowControlConfig cfg_;
  std::map<std::int32_t, Band> bands_;      // by priority (iterated highest first)
  std::map<std::uint64_t, Queued> queued_;  // by request key: every request still queued
  std::size_t total_len_ = 0;
  std::uint64_t total_bytes_ = 0;
  FlowStats stats_;

  Band& band(std::int32_t priority);
  bool has_capacity(const Band& b, std::uint64_t bytes) const;
  std::deque<Item>* pick_flow(Band& b, std::string& flow);
  bool remove(std::uint64_t key, Band** from);
};

}  // namespace blis::cluster::epp
