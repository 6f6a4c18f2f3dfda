#include "fake_engine.h"

#include <algorithm>
#include <stdexcept>

namespace blis::cluster::testing {
namespace {

std::int64_t blocks_for(std::int32_t tokens, std::int32_t block_size) {
  return (tokens + block_size - 1) / block_size;
}

}  // namespace

void FakeEngine::add_request(engine::RequestSpec spec, SimTime now) {
  auto r = std::make_unique<Req>();
  r->prompt = static_cast<std::int32_t>(spec.prompt_token_ids.size());
  r->spec = std::move(spec);
  waiting_.push_back(r.get());
  all_.push_back(std::move(r));
}

void FakeEngine::release(Req& r) {
  free_blocks_ += r.blocks;
  r.blocks = 0;
}

void FakeEngine::abort(engine::RequestKey key, SimTime now) {
  for (auto& r : all_) {
    if (r->spec.key != key || r->finished || r->aborted) continue;
    r->aborted = true;
    release(*r);
    waiting_.erase(std::remove(waiting_.begin(), waiting_.end(), r.get()), waiting_.end());
    running_.erase(std::remove(running_.begin(), running_.end(), r.get()), running_.end());
  }
}

std::int32_t FakeEngine::target_outputs(const Req& r) const {
  if (r.spec.eos_at_output > 0) return std::min(r.spec.eos_at_output, r.spec.max_tokens);
  return r.spec.max_tokens;
}

bool FakeEngine::can_schedule(SimTime now) const {
  if (static_cast<std::int32_t>(inflight_.size()) >= cfg_.depth) return false;
  if (!waiting_.empty()) return true;
  for (const Req* r : running_) {
    if (r->computed < r->prompt || r->outputs_sched < target_outputs(*r)) return true;
  }
  return false;
}

const engine::Batch* FakeEngine::schedule(SimTime now) {
  if (static_cast<std::int32_t>(inflight_.size()) >= cfg_.depth) return nullptr;
  batch_.requests.clear();
  batch_.total_tokens = batch_.prefill_tokens = batch_.decode_tokens = batch_.num_sampling = 0;
  batch_.num_preempted = 0;
  std::vector<std::pair<Req*, bool>> members;
  std::int32_t budget = cfg_.token_budget;
  auto grow = [&](Req& r, std::int32_t new_tokens) {
    const std::int64_t need = blocks_for(r.computed + new_tokens, cfg_.block_size) - r.blocks;
    if (need > free_blocks_) return false;
    free_blocks_ -= std::max<std::int64_t>(0, need);
    r.blocks += std::max<std::int64_t>(0, need);
    return true;
  };
  auto add = [&](Req& r, std::int32_t tokens, std::int32_t prefill, bool samples) {
    engine::ScheduledRequest sr;
    sr.key = r.spec.key;
    sr.num_tokens = tokens;
    sr.num_prefill_tokens = prefill;
    sr.context_before = r.computed;
    sr.samples = samples;
    batch_.requests.push_back(sr);
    batch_.total_tokens += tokens;
    batch_.prefill_tokens += prefill;
    batch_.decode_tokens += tokens - prefill;
    batch_.num_sampling += samples ? 1 : 0;
    members.emplace_back(&r, samples);
  };
  for (Req* r : running_) {
    if (budget <= 0) break;
    if (r->computed < r->prompt) {
      const std::int32_t chunk = std::min(r->prompt - r->computed, budget);
      if (!grow(*r, chunk)) continue;
      const bool samples = r->computed + chunk == r->prompt;
      add(*r, chunk, chunk, samples);
      r->computed += chunk;
      if (samples) ++r->outputs_sched;
      budget -= chunk;
    } else if (r->outputs_sched < target_outputs(*r)) {
      if (!grow(*r, 1)) continue;
      add(*r, 1, 0, true);
      r->computed += 1;
      ++r->outputs_sched;
      budget -= 1;
    }
  }
  while (budget > 0 && !waiting_.empty() &&
         static_cast<std::int32_t>(running_.size()) < cfg_.max_num_seqs) {
    Req* r = waiting_.front();
    const std::int32_t chunk = std::min(r->prompt, budget);
    if (!grow(*r, chunk)) break;
    waiting_.pop_front();
    running_.push_back(r);
    const bool samples = chunk == r->prompt;
    add(*r, chunk, chunk, samples);
    r->computed += chunk;
    if (samples) ++r->outputs_sched;
    budget -= chunk;
  }
  if (members.empty()) return nullptr;
  batch_.id = next_batch_id_++;
  inflight_.emplace_back(batch_.id, std::move(members));
  return &batch_;
}

const engine::StepEvents& FakeEngine::complete(std::uint64_t batch_id,
                                               const engine::StepOutcome& outcome, SimTime now) {
  if (inflight_.empty() || inflight_.front().first != batch_id) {
    throw std::logic_error("FakeEngine: completing a batch out of order");
  }
  auto members = std::move(inflight_.front().second);
  inflight_.pop_front();
  events_.progress.clear();
  events_.transfers.clear();
  for (auto& [r, samples] : members) {
    if (r->aborted || r->finished || !samples) continue;
    engine::RequestProgress p;
    p.key = r->spec.key;
    p.new_tokens = 1;
    p.first_token = !r->first_done;
    r->first_done = true;
    ++r->outputs_done;
    p.num_output_tokens = r->outputs_done;
    p.num_cached_tokens = 0;
    if (r->outputs_done >= target_outputs(*r)) {
      p.finish = r->spec.eos_at_output > 0 && r->outputs_done == r->spec.eos_at_output
                     ? engine::FinishReason::kStop
                     : engine::FinishReason::kLength;
      r->finished = true;
      release(*r);
      running_.erase(std::remove(running_.begin(), running_.end(), r), running_.end());
    }
    events_.progress.push_back(p);
  }
  return events_;
}

engine::EngineStats FakeEngine::stats() const {
  engine::EngineStats s;
  s.num_running = static_cast<std::int32_t>(running_.size());
  s.num_waiting = static_cast<std::int32_t>(waiting_.size());
  s.num_total_blocks = cfg_.blocks;
  s.num_free_blocks = free_blocks_;
  s.kv_usage = cfg_.blocks > 0
                   ? 1.0 - static_cast<double>(free_blocks_) / static_cast<double>(cfg_.blocks)
                   : 0.0;
  s.in_flight_batches = static_cast<std::int32_t>(inflight_.size());
  return s;
}

std::string FakeEngine::metrics_text(SimTime now, const std::string& labels) const {
  const engine::EngineStats s = stats();
  return "fake:num_requests_running{" + labels + "} " + std::to_string(s.num_running) + "\n";
}

void ScriptedWorkload::pop(GeneratedRequest& out) {
  const ScriptedRequest& r = reqs_[next_];
  out.seq = next_;
  out.arrival = r.arrival;
  out.client = r.client;
  out.session = -1;
  out.turn = 0;
  out.prompt_token_ids.clear();
  // Group members share their first half; the rest is unique to the request.
  const std::int32_t shared = r.prefix_group >= 0 ? r.prompt_tokens / 2 : 0;
  for (std::int32_t i = 0; i < r.prompt_tokens; ++i) {
    out.prompt_token_ids.push_back(i < shared
                                       ? 1000 * (r.prefix_group + 1) + i
                                       : 1000000 + static_cast<std::int32_t>(next_) * 10000 + i);
  }
  out.output_tokens = r.output_tokens;
  out.max_tokens = r.output_tokens;
  out.ignore_eos = true;
  out.prefix_group = r.prefix_group;
  ++next_;
}

Diagnostics FakeBackend::prepare_pool(const scenario::Scenario& s, std::size_t p,
                                      PoolResources& out) {
  out.gpu_blocks = cfg_.engine.blocks;
  out.pricer = std::make_shared<FixedCostPricer>(cfg_.step_fixed_us, cfg_.step_per_token_us,
                                                 cfg_.step_cpu_us);
  out.overheads = cfg_.overheads;
  out.catalog_entries = {"gpu:fake"};
  out.coefficient_sources = {"tests/cluster/fake"};
  return {};
}

std::unique_ptr<engine::Engine> FakeBackend::make_engine(const scenario::Scenario& s, std::size_t p,
                                                         std::int32_t instance,
                                                         const PoolResources& res) {
  return std::make_unique<FakeEngine>(cfg_.engine);
}

std::unique_ptr<FakeEngine> engine_with_one_request(std::int32_t depth) {
  FakeEngineConfig cfg;
  cfg.depth = depth;
  auto eng = std::make_unique<FakeEngine>(cfg);
  engine::RequestSpec s;
  s.key = 1;
  s.id = "r1";
  s.prompt_token_ids.assign(32, 3);
  s.max_tokens = 4;
  eng->add_request(s, 0);
  return eng;
}

scenario::Scenario make_scenario(std::int32_t instances, const std::string& policy) {
  scenario::Scenario s;
  s.name = "test";
  s.seed = 7;
  s.horizon.max_requests = 1000;
  scenario::Pool pool;
  pool.name = "main";
  pool.instances = instances;
  pool.hardware = "fake";
  pool.model = "fake/model";
  pool.engine.args.block_size = 16;
  pool.engine.args.max_model_len = 1 << 20;  // what decoding resolves; no request exceeds it
  s.pools.push_back(pool);
  s.router.policy = policy;
  scenario::Client c;
  c.name = "client";
  s.workload.clients.push_back(c);
  s.outputs.timeseries_interval_ms = 100;
  return s;
}

}  // namespace blis::cluster::testing
