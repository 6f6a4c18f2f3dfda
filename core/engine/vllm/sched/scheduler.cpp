// Scheduler: construction, the request slot table, admission (add_request), the queries and
// stats. The step itself is in scheduler_running.cpp, scheduler_waiting.cpp and
// scheduler_update.cpp; finishing and freeing in scheduler_finish.cpp.

#include "engine/vllm/sched/scheduler.h"

#include <algorithm>
#include <stdexcept>

#include "engine/vllm/sched/async_scheduler.h"
#include "util/slot_pool.h"

namespace blis::vllm {

namespace {

KVCacheManagerConfig kv_config(const VllmConfig& c) {
  KVCacheManagerConfig k;
  k.num_gpu_blocks = c.num_gpu_blocks;
  k.block_size = c.block_size;
  k.max_model_len = c.max_model_len;
  k.enable_caching = c.enable_prefix_caching;
  k.watermark = c.watermark;
  k.use_eagle = c.use_eagle();  // scheduler.py Scheduler.__init__: KVCacheManager(use_eagle)
  return k;
}

VllmConfig checked(const VllmConfig& c) {
  const auto errs = validate(c);
  if (!errs.empty()) throw std::invalid_argument(errs.front().field + ": " + errs.front().message);
  return c;
}

}  // namespace

Scheduler::Scheduler(const VllmConfig& cfg)
    : cfg_(checked(cfg)),
      kv_(kv_config(cfg_)),
      waiting_(create_request_queue(cfg_.policy, &reqs_)),
      skipped_waiting_(create_request_queue(cfg_.policy, &reqs_)),
      step_skipped_(create_request_queue(cfg_.policy, &reqs_)) {
  running_.reserve(static_cast<std::size_t>(cfg_.max_num_seqs));
}

Scheduler::~Scheduler() = default;

std::int32_t Scheduler::alloc_slot() {
  // The slot released last, else a new one (util/slot_pool.h); the per-slot side tables grow
  // with the request table.
  const std::int32_t s = take_slot(reqs_, free_slots_);
  if (static_cast<std::size_t>(s) == live_.size()) {
    live_.push_back(0);
    last_sched_seq_.push_back(0);
  }
  live_[static_cast<std::size_t>(s)] = 1;
  last_sched_seq_[static_cast<std::size_t>(s)] = 0;
  ++num_live_;
  return s;
}

void Scheduler::release_slot(std::int32_t index) {
  Request& r = req(index);
  ++r.gen;  // invalidates every ReqRef to this request
  r.all_token_ids.clear();
  r.num_all_tokens = 0;
  r.block_hashes.clear();
  r.clear_spec_tokens();
  live_[static_cast<std::size_t>(index)] = 0;
  --num_live_;
  free_slots_.push_back(index);
}

const

    Request*
    Scheduler::find(ReqRef ref) const {
  if (ref.index < 0 || static_cast<std::size_t>(ref.index) >= reqs_.size()) return nullptr;
  if (live_[static_cast<std::size_t>(ref.index)] == 0) return nullptr;
  const Request& r = reqs_[static_cast<std::size_t>(ref.index)];
  return r.gen == ref.gen ? &r : nullptr;
}

Request* Scheduler::find(ReqRef ref) {
  return const_cast<Request*>(static_cast<const Scheduler*>(this)->find(ref));
}

ReqRef Scheduler::add_request(const NewRequest& nr) {
  if (nr.prompt_token_ids.empty()) throw std::invalid_argument("add_request: empty prompt");
  if (nr.max_tokens < 1) throw std::invalid_argument("add_request: max_tokens must be >= 1");
  const std::int32_t s = alloc_slot();
  Request& r = req(s);
  const std::uint32_t gen = r.gen;
  std::vector<std::int32_t> tokens = std::move(r.all_token_ids);
  std::vector<BlockHash> hashes = std::move(r.block_hashes);
  std::vector<std::int32_t> spec = std::move(r.spec_token_ids);
  r = Request{};
  r.spec_token_ids = std::move(spec);
  r.spec_token_ids.clear();
  r.spec_token_ids.reserve(static_cast<std::size_t>(cfg_.num_speculative_tokens));
  r.gen = gen;
  r.slot = s;
  r.request_id = nr.request_id;
  r.key = nr.key;
  r.priority = nr.priority;
  r.arrival_time = nr.arrival_time;
  r.lora_id = nr.lora_id;
  r.has_cache_salt = nr.has_cache_salt;
  r.cache_salt = nr.cache_salt;
  r.skip_reading_prefix_cache = nr.skip_reading_prefix_cache;
  r.has_kv_transfer = nr.kv_transfer != nullptr;
  r.kv_transfer = nr.kv_transfer != nullptr ? *nr.kv_transfer : engine::KvTransferParams{};
  r.max_tokens = nr.max_tokens;
  r.min_tokens = nr.min_tokens;
  r.eos_at_output = nr.eos_at_output;
  r.eos_token_id = nr.eos_token_id;
  r.stop_token_ids.assign(nr.stop_token_ids.begin(), nr.stop_token_ids.end());
  r.has_value_stops = r.eos_token_id >= 0 || !r.stop_token_ids.empty();
  r.output_token_base = nr.output_token_base;
  r.all_token_ids = std::move(tokens);
  r.all_token_ids.assign(nr.prompt_token_ids.begin(), nr.prompt_token_ids.end());
  r.num_all_tokens = static_cast<std::int32_t>(r.all_token_ids.size());
  r.num_prompt_tokens = static_cast<std::int32_t>(nr.prompt_token_ids.size());
  r.block_hashes = std::move(hashes);
  r.block_hashes.clear();
  // Size the token list, hashes and block table for the whole sequence (plus lookahead
  // slots) now, so steps never allocate.
  std::int64_t max_outputs = nr.max_tokens;
  if (nr.eos_at_output > 0)
    max_outputs = std::min<std::int64_t>(max_outputs, std::max(nr.eos_at_output, nr.min_tokens));
  const auto max_len = static_cast<std::int32_t>(std::min<std::int64_t>(
      static_cast<std::int64_t>(r.num_prompt_tokens) + max_outputs, cfg_.max_model_len));
  r.all_token_ids.reserve(static_cast<std::size_t>(max_len));
  r.block_hashes.reserve(static_cast<std::size_t>(max_len / cfg_.block_size + 1));
  kv_.reserve(r, max_len + cfg_.num_lookahead_tokens() + cfg_.num_speculative_tokens);
  // The request block hasher exists when prefix caching is on or a KV connector is
  // configured (engine/core.py EngineCore.__init__).
  if (hashes_blocks()) update_block_hashes(r, cfg_.block_size);
  r.status = RequestStatus::kWaiting;
  waiting_->add_request(s);
  // vllm scheduler.py add_request: connector.on_new_request.
  if (connector_ != nullptr) connector_->on_new_request(r);
  return r.ref();
}

bool Scheduler::has_unfinished_requests() const {
  return !running_.empty() || !waiting_->empty() || !skipped_waiting_->empty();
}

bool Scheduler::has_requests() const {
  // vllm sched/interface.py has_requests: unfinished requests, or finished ids still to be
  // sent with the next SchedulerOutput.
  // With a connector, finished requests whose blocks it still holds keep the engine alive
  // (scheduler.py has_finished_requests), and so do its jobs in flight
  // (has_pending_push_work).
  return has_unfinished_requests() || !finished_req_ids_.empty() || !delayed_free_.empty() ||
         (connector_ != nullptr && connector_->has_pending_push_work());
}

void Scheduler::erase_value(std::vector<std::int32_t>& v, std::int32_t x) {
  const auto it = std::find(v.begin(), v.end(), x);
  if (it != v.end()) v.erase(it);
}

void Scheduler::add_unique(std::vector<std::int32_t>& v, std::int32_t x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

void Scheduler::set_connector(KVConnector* connector) {
  // vllm scheduler.py Scheduler.__init__: connector.bind_gpu_block_pool(block_pool). With
  // overlapping batches a consumer's load could refill a freed block an in-flight step still
  // writes, so frees wait for the steps that scheduled the request (defer_block_free).
  connector_ = connector;
  if (connector_ != nullptr) connector_->bind_gpu_block_pool(&kv_.block_pool());
  // The block hasher exists from the engine's start in vLLM (EngineCore.__init__): a request
  // already live when hashing turns on gets its hashes now, so every later append only has
  // to hash the block it fills (update_request_with_output).
  if (hashes_blocks()) {
    for (std::size_t s = 0; s < reqs_.size(); ++s)
      if (live_[s] != 0) update_block_hashes(reqs_[s], cfg_.block_size);
  }
  defer_block_free_ =
      connector_ != nullptr && cfg_.async_scheduling && connector_->is_kv_consumer();
}

bool Scheduler::reset_prefix_cache(bool reset_running_requests) {
  // vllm scheduler.py Scheduler.reset_prefix_cache: preempt from the tail so the requests
  // re-queue in FIFO order; their in-flight output is dropped.
  if (reset_running_requests) {
    while (!running_.empty()) {
      const std::int32_t s = running_.back();
      running_.pop_back();
      preempt_request(s, /*drop_stale_output=*/true);
    }
  }
  const bool ok = kv_.reset_prefix_cache();
  if (!ok && reset_running_requests) {
    throw std::logic_error("reset_prefix_cache failed after resetting running requests");
  }
  return ok;
}

SchedulerStats Scheduler::make_stats() {
  // vllm scheduler.py Scheduler.make_stats.
  SchedulerStats s;
  s.num_running_reqs = num_running();
  s.num_waiting_reqs = num_waiting();
  s.kv_cache_usage = kv_.usage();
  s.prefix_cache_stats = kv_.take_prefix_cache_stats();
  s.has_connector_prefix_cache_stats = connector_ != nullptr;
  s.connector_prefix_cache_stats = connector_stats_;
  connector_stats_ = PrefixCacheStats{};
  return s;
}

std::unique_ptr<Scheduler> make_scheduler(const VllmConfig& cfg) {
  if (cfg.async_scheduling) return std::make_unique<AsyncScheduler>(cfg);
  return std::make_unique<Scheduler>(cfg);
}

}  // namespace blis::vllm
