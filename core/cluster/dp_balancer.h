#pragma once
// DpBalancer: vLLM's internal data-parallel load balancer, the rank a request goes to
// (vllm/v1/engine/core_client.py DPLBAsyncMPClient.get_core_engine_for_request).
//
// Every API server process is a client with its own copy of the ranks' [waiting, running,
// kv_cache_usage] (lb_engines), refreshed when the DP coordinator publishes the ranks' stats
// (vllm/v1/engine/coordinator.py: at most every min_stats_update_interval_ms = 100 ms), and
// its own exact count of its unfinished requests per rank (engine_inflight). A rank's score:
//   max(client_count x inflight, waiting + running)
//     + waiting x 6 x max(0, kv_cache_usage - 0.5)       (only when waiting > 0)
// the lowest wins, scanning from a start index that rotates after every choice
// (eng_start_index, first len(engines) x client_index // client_count); the chosen rank's
// waiting count is raised by client_count until the next snapshot.
//
// What is estimated: which API server a request reaches (vLLM's servers share one listening
// socket and the kernel spreads connections; here request n goes to server n mod count).

#include <cstdint>
#include <vector>

#include "util/sim_time.h"

namespace blis::cluster {

struct DpRankLoad {
  double waiting = 0, running = 0, kv_usage = 0;
};

class DpBalancer {
 public:
  // `ranks` engine ranks, `clients` API servers (vllm entrypoints/cli/serve.py: internal LB
  // defaults api_server_count to data_parallel_size).
  DpBalancer(std::int32_t ranks, std::int32_t clients);

  // The coordinator's stats interval (coordinator.py min_stats_update_interval_ms = 100).
  static constexpr SimTime kStatsIntervalUs = 100000;
  // True when a snapshot published at `now` would reach the clients (the interval passed).
  bool snapshot_due(SimTime now) const {
    return !published_ || now - last_publish_ >= kStatsIntervalUs;
  }
  // The coordinator publishes the ranks' loads to every client.
  void publish(SimTime now, const std::vector<DpRankLoad>& loads);
  // The next request's API server (round robin).
  std::int32_t next_client() { return next_client_++ % clients_; }
  // get_core_engine_for_request for a request reaching `client`; records it in flight.
  std::int32_t choose(std::int32_t client);
  // A request that names its rank (data_parallel_rank) reaching `client`: no scoring, no
  // waiting bump, no rotation; only its in-flight count (get_core_engine_for_request).
  void pinned(std::int32_t client, std::int32_t rank);
  // A request chosen by `client` for `rank` finished (process_engine_outputs).
  void finished(std::int32_t client, std::int32_t rank);

  std::int32_t ranks() const { return ranks_; }
  std::int64_t inflight(std::int32_t client, std::int32_t rank) const {
    return clients_state_[static_cast<std::size_t>(client)]
        .inflight[static_cast<std::size_t>(rank)];
  }

 private:
  struct Client {
    std::vector<DpRankLoad> counts;      // lb_engines
    std::vector<std::int64_t> inflight;  // engine_inflight
    std::int32_t start = 0;              // eng_start_index
  };
  std::int32_t ranks_, clients_;
  std::vector<Client> clients_state_;
  std::int64_t next_client_ = 0;
  SimTime last_publish_ = 0;
  bool published_ = false;
};

}  // namespace blis::cluster
