#include "cluster/lora_residency.h"

#include <algorithm>
#include <utility>

#include "util/contains.h"

namespace blis::cluster {
namespace {

// LRU touch: move `id` to the newest end.
void touch(std::vector<std::int32_t>& v, std::int32_t id) {
  v.erase(std::remove(v.begin(), v.end(), id), v.end());
  v.push_back(id);
}

}  // namespace

LoraResidency::LoraResidency(std::shared_ptr<const kernel::LoraCost> cost, catalog::Fabric host,
                             std::int32_t max_loras, std::int32_t max_cpu_loras,
                             std::int32_t max_lora_rank, std::map<std::int32_t, std::int32_t> ranks)
    : cost_(std::move(cost)),
      host_(std::move(host)),
      slots_(std::max(1, max_loras)),
      capacity_(std::max(max_loras, max_cpu_loras)),
      max_rank_(max_lora_rank),
      ranks_(std::move(ranks)) {}

// vllm/lora/worker_manager.py LRUCacheWorkerLoRAManager.add_adapter: a miss loads the adapter
// (WorkerLoRAManager._load_adapter reads the checkpoint into host memory), then evicts the
// cache's oldest when it would exceed capacity (remove_oldest_adapter); a hit only touches it.
// The read is priced as the adapter's bytes over the host link (an estimate: the catalog
// has no storage entry; a page-cached checkpoint moves at memory-copy rates at least as fast).
double LoraResidency::load(std::int32_t id) {
  if (contains(cached_, id)) {
    touch(cached_, id);
    return 0;
  }
  if (static_cast<std::int32_t>(cached_.size()) + 1 > capacity_) {
    const std::int32_t oldest = cached_.front();
    cached_.erase(cached_.begin());
    // model_manager.py remove_adapter deactivates the adapter first: it leaves its slot.
    active_.erase(std::remove(active_.begin(), active_.end(), oldest), active_.end());
  }
  cached_.push_back(id);
  ++counters_.cpu_loads;
  const auto it = ranks_.find(id);
  return cost_->load_us(cost_->adapter_bytes(it != ranks_.end() ? it->second : max_rank_), host_);
}

// vllm/lora/model_manager.py LRUCacheLoRAModelManager.activate_adapter: an adapter not in a
// slot evicts the oldest active one when the slots are full, then LoRAModelManager
// .activate_adapter copies its A/B weights into the slot (set_lora) over the host link.
double LoraResidency::activate(std::int32_t id) {
  if (contains(active_, id)) {
    touch(active_, id);
    return 0;
  }
  if (static_cast<std::int32_t>(active_.size()) >= slots_) active_.erase(active_.begin());
  active_.push_back(id);
  ++counters_.gpu_loads;
  const auto it = ranks_.find(id);
  return cost_->load_us(cost_->adapter_bytes(it != ranks_.end() ? it->second : max_rank_), host_);
}

double LoraResidency::apply(const engine::Batch& batch) {
  batch_ids_.clear();
  std::int64_t lora_tokens = 0;
  for (const auto& r : batch.requests) {
    if (r.lora_id <= 0) continue;
    lora_tokens += r.num_tokens;
    if (!contains(batch_ids_, r.lora_id)) batch_ids_.push_back(r.lora_id);
  }
  if (batch_ids_.empty()) return 0;
  double load_us = 0;
  // worker_manager.py _apply_adapters: add_adapter (load + activate) per adapter of the batch.
  for (const std::int32_t id : batch_ids_) {
    load_us += load(id);
    load_us += activate(id);
  }
  const double compute_us =
      cost_->step_us(static_cast<std::int32_t>(batch_ids_.size()), lora_tokens);
  counters_.load_us += load_us;
  counters_.compute_us += compute_us;
  return load_us + compute_us;
}

std::unique_ptr<LoraResidency> make_lora_residency(const scenario::Scenario& s, std::size_t pool,
                                                   const PoolResources& res) {
  const scenario::VllmArgs& a = s.pools[pool].engine.args;
  std::map<std::int32_t, std::int32_t> ranks;
  for (const auto& cl : s.workload.clients)
    for (const auto& ad : cl.adapters) ranks[ad.id] = ad.rank;
  return std::make_unique<LoraResidency>(res.lora_cost, res.host_fabric.value_or(catalog::Fabric{}),
                                         a.max_loras, a.max_cpu_loras, a.max_lora_rank,
                                         std::move(ranks));
}

// extractor.go populateLoRAMetrics reads running_lora_adapters / waiting_lora_adapters /
// max_lora off vllm:lora_requests_info. vllm v1/metrics/loggers.py records that gauge per
// engine core without an engine label (and warns it "may be incorrect/misleading with data
// parallel deployments"), so a DP server's /metrics carry one series per rank and the EPP keeps
// one (spec.go getLatestMetric); the simulator reads the union of the ranks' adapters (an
// adapter any rank holds counts as active) rather than guess which series a scrape keeps.
const std::vector<std::int32_t>* reported_adapters(const std::vector<const LoraResidency*>& lanes,
                                                   std::int32_t rank,
                                                   std::vector<std::int32_t>& scratch) {
  if (lanes.empty() || lanes.front() == nullptr) return nullptr;
  const auto n = static_cast<std::int32_t>(lanes.size());
  // A rank endpoint of an MoE instance (one lane: its lockstep ranks share one residency).
  if (rank >= 0 || n == 1)
    return &lanes[static_cast<std::size_t>(std::min(std::max(rank, 0), n - 1))]->active();
  scratch.clear();
  for (const LoraResidency* l : lanes) {
    for (const std::int32_t id : l->active())
      if (std::find(scratch.begin(), scratch.end(), id) == scratch.end()) scratch.push_back(id);
  }
  return &scratch;
}

}  // namespace blis::cluster
