#include "cluster/dp_ranks.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace blis::cluster {

DpRanks::DpRanks(std::vector<std::unique_ptr<engine::Engine>> ranks, std::int32_t api_servers)
    : ranks_(std::move(ranks)),
      balancer_(static_cast<std::int32_t>(ranks_.size()), api_servers),
      requests_per_rank_(ranks_.size(), 0) {
  if (ranks_.size() < 2) throw std::invalid_argument("data parallelism needs at least 2 ranks");
}

std::int32_t DpRanks::rank_of(engine::RequestKey key) const {
  const auto it = placed_.find(key);
  return it == placed_.end() ? -1 : it->second.rank;
}

// The coordinator collects each rank's SchedulerStats (waiting, running, kv_cache_usage) and
// publishes them to the clients at most every 100 ms (coordinator.py process_input_socket).
void DpRanks::publish_if_due(SimTime now) {
  if (!balancer_.snapshot_due(now)) return;
  std::vector<DpRankLoad> loads;
  loads.reserve(ranks_.size());
  for (const auto& r : ranks_) {
    const engine::EngineStats s = r->stats();
    loads.push_back(
        {static_cast<double>(s.num_waiting), static_cast<double>(s.num_running), s.kv_usage});
  }
  balancer_.publish(now, loads);
}

std::int32_t DpRanks::place(const engine::RequestSpec& spec, SimTime now) {
  publish_if_due(now);
  const std::int32_t client = balancer_.next_client();
  // core_client.py get_core_engine_for_request: a request naming its rank goes there (the
  // router checked the rank: it picked it among this instance's endpoints).
  const std::int32_t named = spec.data_parallel_rank;
  const bool pinned = named >= 0 && named < dp();
  if (pinned) balancer_.pinned(client, named);
  const std::int32_t r = pinned ? named : balancer_.choose(client);
  placed_[spec.key] = {r, client};
  ++requests_per_rank_[static_cast<std::size_t>(r)];
  return r;
}

void DpRanks::note_progress(const engine::RequestProgress& p) {
  if (p.finish == engine::FinishReason::kNone) return;
  const auto it = placed_.find(p.key);
  if (it == placed_.end()) return;
  balancer_.finished(it->second.client, it->second.rank);
  placed_.erase(it);
}

void DpRanks::abort(engine::RequestKey key, SimTime now) {
  // core_client.py DPLBAsyncMPClient: reqs_in_flight routes an abort to the request's engine.
  const auto it = placed_.find(key);
  if (it == placed_.end()) return;
  ranks_[static_cast<std::size_t>(it->second.rank)]->abort(key, now);
}

engine::TransferRequest DpRanks::tagged(engine::TransferRequest t, std::int32_t rank) const {
  t.id = t.id * ranks_.size() + static_cast<std::uint64_t>(rank);
  return t;
}

void DpRanks::take_transfers(std::vector<engine::TransferRequest>& out) {
  std::vector<engine::TransferRequest> mine;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    mine.clear();
    ranks_[r]->take_transfers(mine);
    for (const engine::TransferRequest& t : mine)
      out.push_back(tagged(t, static_cast<std::int32_t>(r)));
  }
}

void DpRanks::transfer_finished(const engine::TransferRequest& t, SimTime now) {
  engine::TransferRequest own = t;
  const std::size_t r = t.id % ranks_.size();
  own.id = t.id / ranks_.size();
  ranks_[r]->transfer_finished(own, now);
}

void DpRanks::take_finished_between_steps(std::vector<engine::RequestProgress>& out) {
  const std::size_t from = out.size();
  for (auto& r : ranks_) r->take_finished_between_steps(out);
  for (std::size_t i = from; i < out.size(); ++i) note_progress(out[i]);
}

// NIXL's notifications name the prefiller's engine_id (_dp<rank>); the rank that holds the
// request's blocks is the one that knows the key, the others ignore it.
void DpRanks::remote_read_done(engine::RequestKey key, SimTime now) {
  for (auto& r : ranks_) r->remote_read_done(key, now);
}

void DpRanks::remote_heartbeat(engine::RequestKey key, SimTime now) {
  for (auto& r : ranks_) r->remote_heartbeat(key, now);
}

void DpRanks::poll(SimTime now) {
  for (auto& r : ranks_) r->poll(now);
}

void DpRanks::set_kv_event_listener(engine::KvEventListener* l) {
  // Every rank publishes its own KV events (each has its own prefix cache).
  for (auto& r : ranks_) r->set_kv_event_listener(l);
}

void DpRanks::set_rank_kv_event_listener(std::int32_t r, engine::KvEventListener* l) {
  ranks_[static_cast<std::size_t>(r)]->set_kv_event_listener(l);
}

SimTime DpRanks::next_wake(SimTime now) const {
  SimTime t = kSimTimeNever;
  for (const auto& r : ranks_) t = std::min(t, r->next_wake(now));
  return t;
}

std::int32_t DpRanks::max_concurrent_batches() const {
  return ranks_.front()->max_concurrent_batches();
}

// The instance's load as one server reports it: the ranks' counts summed, KV usage over all
// the ranks' blocks.
engine::EngineStats DpRanks::stats() const {
  engine::EngineStats s;
  for (const auto& r : ranks_) {
    const engine::EngineStats x = r->stats();
    s.num_running += x.num_running;
    s.num_waiting += x.num_waiting;
    s.num_free_blocks += x.num_free_blocks;
    s.num_total_blocks += x.num_total_blocks;
    s.prefix_queries += x.prefix_queries;
    s.prefix_hits += x.prefix_hits;
    s.preemptions += x.preemptions;
    s.has_connector = s.has_connector || x.has_connector;
    s.external_prefix_queries += x.external_prefix_queries;
    s.external_prefix_hits += x.external_prefix_hits;
    s.kv_load_failed_requests += x.kv_load_failed_requests;
    s.kv_load_errored_requests += x.kv_load_errored_requests;
  }
  s.in_flight_batches = in_flight();
  s.kv_usage = s.num_total_blocks > 0 ? 1.0 - static_cast<double>(s.num_free_blocks) /
                                                  static_cast<double>(s.num_total_blocks)
                                      : 0.0;
  return s;
}

namespace {

// One rank's exposition split into families (a family starts at its "# HELP" line).
std::vector<std::pair<std::string, std::string>> families(const std::string& text) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# HELP ", 0) == 0 || out.empty()) {
      const std::size_t b = line.rfind("# HELP ", 0) == 0 ? 7 : 0;
      out.emplace_back(line.substr(b, line.find(' ', b) - b), std::string());
    }
    out.back().second += line + "\n";
  }
  return out;
}

}  // namespace

// vLLM labels every engine's series with engine="<dp rank>" (v1/metrics/loggers.py
// PrometheusStatLogger, engine_indexes); each family appears once, its samples rank by rank.
std::string DpRanks::metrics_text(SimTime now, const std::string& labels) const {
  std::vector<std::vector<std::pair<std::string, std::string>>> per_rank;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    std::string l = labels;
    const std::string zero = "engine=\"0\"";
    const std::string mine = "engine=\"" + std::to_string(r) + "\"";
    const std::size_t at = l.find(zero);
    if (at != std::string::npos) {
      l.replace(at, zero.size(), mine);
    } else {
      l += (l.empty() ? "" : ",") + mine;
    }
    per_rank.push_back(families(ranks_[r]->metrics_text(now, l)));
  }
  std::string out;
  for (std::size_t f = 0; f < per_rank.front().size(); ++f) {
    out += per_rank.front()[f].second;
    for (std::size_t r = 1; r < per_rank.size(); ++r) {
      if (f >= per_rank[r].size()) continue;
      // The rank's samples without the family's HELP/TYPE header.
      std::istringstream in(per_rank[r][f].second);
      std::string line;
      while (std::getline(in, line)) {
        if (line.rfind("# ", 0) != 0) out += line + "\n";
      }
    }
  }
  return out;
}

}  // namespace blis::cluster
