#pragma once
// SignalBoard: instance state as the router sees it, `staleness` behind the truth. llm-d's
// EPP reads vLLM's /metrics on a refresh interval, so its view of queue depth and KV usage
// lags; `router.signal_staleness_ms` sets that lag. Instances publish their signals when they
// change; the router reads, per instance, the latest value published at or before
// now - staleness. Publishing and reading are O(1) amortized (a per-instance FIFO of recent
// values, trimmed on read), so no event scans the instances.

#include <cstdint>
#include <vector>

#include "util/sim_time.h"

namespace blis::cluster {

struct InstanceSignals {
  std::int32_t waiting = 0;  // vllm:num_requests_waiting
  std::int32_t running = 0;  // vllm:num_requests_running
  double kv_usage = 0;       // vllm:kv_cache_usage_perc (0..1)
};

class SignalBoard {
 public:
  SignalBoard() = default;
  SignalBoard(std::size_t instances, SimTime staleness);
  void publish(std::size_t instance, SimTime t, const InstanceSignals& s);
  // The signals of `instance` as of now - staleness.
  const InstanceSignals& view(std::size_t instance, SimTime now);
  SimTime staleness() const { return staleness_; }

 private:
  struct Stamped {
    SimTime t = 0;
    InstanceSignals s;
  };
  struct Lane {
    InstanceSignals current;       // what the router sees
    std::vector<Stamped> pending;  // published, not yet visible (FIFO from `head`)
    std::size_t head = 0;
  };
  std::vector<Lane> lanes_;
  SimTime staleness_ = 0;
};

}  // namespace blis::cluster
