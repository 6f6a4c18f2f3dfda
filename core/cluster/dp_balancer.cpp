#include "cluster/dp_balancer.h"

#include <algorithm>

namespace blis::cluster {

DpBalancer::DpBalancer(std::int32_t ranks, std::int32_t clients)
    : ranks_(std::max(1, ranks)), clients_(std::max(1, clients)) {
  clients_state_.resize(static_cast<std::size_t>(clients_));
  for (std::int32_t c = 0; c < clients_; ++c) {
    Client& cl = clients_state_[static_cast<std::size_t>(c)];
    cl.counts.assign(static_cast<std::size_t>(ranks_), DpRankLoad{});
    cl.inflight.assign(static_cast<std::size_t>(ranks_), 0);
    // core_client.py DPLBAsyncMPClient.__init__: eng_start_index = len(engines) *
    // client_index // client_count.
    cl.start = ranks_ * c / clients_;
  }
}

void DpBalancer::publish(SimTime now, const std::vector<DpRankLoad>& loads) {
  // core_client.py: the stats task rebinds lb_engines to the coordinator's snapshot.
  for (Client& cl : clients_state_) {
    for (std::int32_t r = 0; r < ranks_ && r < static_cast<std::int32_t>(loads.size()); ++r)
      cl.counts[static_cast<std::size_t>(r)] = loads[static_cast<std::size_t>(r)];
  }
  last_publish_ = now;
  published_ = true;
}

std::int32_t DpBalancer::choose(std::int32_t client) {
  Client& cl = clients_state_[static_cast<std::size_t>(client)];
  const double count = clients_;
  double min_score = 0;
  std::int32_t best = -1;
  for (std::int32_t i = 0; i < ranks_; ++i) {
    const std::int32_t idx = (cl.start + i) % ranks_;
    const DpRankLoad& l = cl.counts[static_cast<std::size_t>(idx)];
    // core_client.py get_core_engine_for_request: load = max(client_count x own in-flight,
    // the snapshot's waiting + running), waiting penalized with KV pressure above 50%.
    double score = std::max(count * static_cast<double>(cl.inflight[static_cast<std::size_t>(idx)]),
                            l.waiting + l.running);
    if (l.waiting > 0) score += l.waiting * 6.0 * std::max(0.0, l.kv_usage - 0.5);
    if (best < 0 || score < min_score) {
      min_score = score;
      best = idx;
    }
  }
  // "Increment local waiting count for better balancing between stats updates", then rotate
  // the scan start so that ties do not favour one rank.
  cl.counts[static_cast<std::size_t>(best)].waiting += count;
  cl.start = (cl.start + 1) % ranks_;
  cl.inflight[static_cast<std::size_t>(best)] += 1;
  return best;
}

void DpBalancer::pinned(std::int32_t client, std::int32_t rank) {
  // core_client.py get_core_engine_for_request: eng_index = request.data_parallel_rank skips
  // the scan; engine_inflight[chosen] += 1 still counts it.
  clients_state_[static_cast<std::size_t>(client)].inflight[static_cast<std::size_t>(rank)] += 1;
}

void DpBalancer::finished(std::int32_t client, std::int32_t rank) {
  Client& cl = clients_state_[static_cast<std::size_t>(client)];
  auto& n = cl.inflight[static_cast<std::size_t>(rank)];
  if (n > 0) --n;
}

}  // namespace blis::cluster
