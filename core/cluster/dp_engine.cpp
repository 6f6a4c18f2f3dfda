#include "cluster/dp_engine.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace blis::cluster {

DpEngine::DpEngine(std::vector<std::unique_ptr<engine::Engine>> ranks, std::int32_t api_servers)
    : ranks_(std::move(ranks)),
      balancer_(static_cast<std::int32_t>(ranks_.size()), api_servers),
      requests_per_rank_(ranks_.size(), 0) {
  if (ranks_.size() < 2) throw std::invalid_argument("DpEngine: needs at least 2 ranks");
}

std::int32_t DpEngine::rank_of(engine::RequestKey key) const {
  const auto it = placed_.find(key);
  return it == placed_.end() ? -1 : it->second.rank;
}

// The coordinator collects each rank's SchedulerStats (waiting, running, kv_cache_usage) and
// publishes them to the clients at most every 100 ms (coordinator.py process_input_socket).
void DpEngine::publish_if_due(SimTime now) {
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

void DpEngine::add_request(engine::RequestSpec spec, SimTime now) {
  publish_if_due(now);
  const std::int32_t client = balancer_.next_client();
  const std::int32_t r = balancer_.choose(client);
  placed_[spec.key] = {r, client};
  ++requests_per_rank_[static_cast<std::size_t>(r)];
  // core.py DPEngineCoreProc.add_request / coordinator START_DP_WAVE: a request reaching
  // paused ranks starts the next wave on all of them.
  if (!waves_.engines_running) ++waves_.waves_started;
  waves_.engines_running = true;
  ranks_[static_cast<std::size_t>(r)]->add_request(std::move(spec), now);
}

void DpEngine::abort(engine::RequestKey key, SimTime now) {
  const auto it = placed_.find(key);
  if (it == placed_.end()) return;
  ranks_[static_cast<std::size_t>(it->second.rank)]->abort(key, now);
}

bool DpEngine::can_schedule(SimTime now) const {
  if (in_flight() >= max_concurrent_batches()) return false;
  for (const auto& r : ranks_) {
    if (r->can_schedule(now)) return true;
  }
  // A running wave with nothing to run anywhere still steps: every rank a dummy pass.
  return waves_.engines_running && inflight_.empty();
}

const engine::Batch* DpEngine::schedule(SimTime now) {
  if (in_flight() >= max_concurrent_batches()) return nullptr;
  batch_.requests.clear();
  batch_.total_tokens = batch_.prefill_tokens = batch_.decode_tokens = 0;
  batch_.num_sampling = batch_.num_preempted = 0;
  Step step;
  step.slices.resize(ranks_.size());
  bool any = false;
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    Slice& sl = step.slices[r];
    sl.offset = batch_.requests.size();
    if (!ranks_[r]->can_schedule(now)) continue;
    const engine::Batch* b = ranks_[r]->schedule(now);
    if (b == nullptr) continue;
    any = true;
    sl.ran = true;
    sl.batch_id = b->id;
    sl.count = b->requests.size();
    for (engine::ScheduledRequest q : b->requests) {
      q.dp_rank = static_cast<std::int32_t>(r);
      batch_.requests.push_back(q);
    }
    batch_.total_tokens += b->total_tokens;
    batch_.prefill_tokens += b->prefill_tokens;
    batch_.decode_tokens += b->decode_tokens;
    batch_.num_sampling += b->num_sampling;
    batch_.num_preempted += b->num_preempted;
  }
  if (!any && !(waves_.engines_running && inflight_.empty())) return nullptr;
  // Every rank without a batch of its own this step runs a dummy pass (run_busy_loop).
  for (const Slice& sl : step.slices) {
    if (!sl.ran) ++waves_.dummy_passes;
  }
  ++waves_.steps;
  step.id = next_id_++;
  batch_.id = step.id;
  inflight_.push_back(std::move(step));
  end_of_step_sync();
  return &batch_;
}

// DPEngineCoreProc._has_global_unfinished_reqs: step_counter += 1, and every 32nd step the
// all-reduce of "has unfinished requests"; none anywhere ends the wave (run_busy_loop:
// current_wave += 1, step_counter = 0, rank 0 tells the coordinator wave_complete).
void DpEngine::end_of_step_sync() {
  ++waves_.step_counter;
  if (waves_.step_counter % kSyncEverySteps != 0) return;
  bool unfinished = false;
  for (const auto& r : ranks_) unfinished = unfinished || !r->idle();
  if (unfinished) return;
  waves_.engines_running = false;
  ++waves_.current_wave;
  ++waves_.waves_completed;
  waves_.step_counter = 0;
}

const engine::StepEvents& DpEngine::complete(std::uint64_t batch_id,
                                             const engine::StepOutcome& outcome, SimTime now) {
  if (inflight_.empty() || inflight_.front().id != batch_id)
    throw std::logic_error("DpEngine: completing a step that is not the oldest in flight");
  const Step step = std::move(inflight_.front());
  inflight_.pop_front();
  events_.progress.clear();
  events_.transfers.clear();
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    const Slice& sl = step.slices[r];
    if (!sl.ran) continue;
    scratch_outcome_.accepted_drafts.clear();
    if (!outcome.accepted_drafts.empty()) {
      const auto first = outcome.accepted_drafts.begin() + static_cast<std::ptrdiff_t>(sl.offset);
      scratch_outcome_.accepted_drafts.assign(first, first + static_cast<std::ptrdiff_t>(sl.count));
    }
    const engine::StepEvents& ev = ranks_[r]->complete(sl.batch_id, scratch_outcome_, now);
    for (const engine::RequestProgress& p : ev.progress) {
      events_.progress.push_back(p);
      if (p.finish == engine::FinishReason::kNone) continue;
      const auto it = placed_.find(p.key);
      if (it == placed_.end()) continue;
      balancer_.finished(it->second.client, it->second.rank);
      placed_.erase(it);
    }
    for (const engine::TransferRequest& t : ev.transfers) events_.transfers.push_back(t);
  }
  return events_;
}

void DpEngine::poll(SimTime now) {
  for (auto& r : ranks_) r->poll(now);
}

SimTime DpEngine::next_wake(SimTime now) const {
  SimTime t = kSimTimeNever;
  for (const auto& r : ranks_) t = std::min(t, r->next_wake(now));
  return t;
}

bool DpEngine::idle() const {
  if (waves_.engines_running || !inflight_.empty()) return false;
  for (const auto& r : ranks_) {
    if (!r->idle()) return false;
  }
  return true;
}

std::int32_t DpEngine::max_concurrent_batches() const {
  return ranks_.front()->max_concurrent_batches();
}

// The instance's load as one server reports it: the ranks' counts summed, KV usage over all
// the ranks' blocks.
engine::EngineStats DpEngine::stats() const {
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
std::string DpEngine::metrics_text(SimTime now, const std::string& labels) const {
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
