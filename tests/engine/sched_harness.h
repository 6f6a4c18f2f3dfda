#pragma once
// A test harness around EngineCore: add requests by id, run sync steps or async
// schedule/apply, sample token 1000 + output index (like the golden traces), and look
// requests up by id.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "engine/invariants.h"
#include "engine/kv_test_util.h"
#include "engine/vllm/engine_core.h"

namespace blis::vllm::testing {

inline VllmConfig small_config(bool async = false) {
  VllmConfig c;
  c.block_size = 4;
  c.num_gpu_blocks = 64;
  c.max_num_seqs = 8;
  c.max_num_batched_tokens = 64;
  c.max_model_len = 256;
  c.async_scheduling = async;
  return c;
}

struct HarnessOptions {
  std::int32_t priority = 0;
  double arrival = 0;
  std::int32_t lora = 0;
  std::int32_t eos_at_output = 0;
  std::int32_t min_tokens = 0;
  std::int32_t eos_token_id = -1;  // matched by value (tokens are 1000 + output index)
  std::vector<std::int32_t> stop_token_ids;
};

class Harness {
 public:
  using Options = HarnessOptions;
  explicit Harness(const VllmConfig& cfg) : core_(cfg) {}

  ReqRef add(const std::string& id, std::vector<std::int32_t> prompt, std::int32_t max_tokens,
             Options o = Options()) {
    NewRequest nr;
    nr.request_id = id;
    nr.key = ids_.size();
    nr.prompt_token_ids = prompt;
    nr.max_tokens = max_tokens;
    nr.priority = o.priority;
    nr.arrival_time = o.arrival;
    nr.lora_id = o.lora;
    nr.eos_at_output = o.eos_at_output;
    nr.min_tokens = o.min_tokens;
    nr.eos_token_id = o.eos_token_id;
    nr.stop_token_ids = o.stop_token_ids;
    ids_.push_back(id);
    const ReqRef ref = core_.scheduler().add_request(nr);
    refs_[id] = ref;
    return ref;
  }
  ReqRef add_len(const std::string& id, std::int32_t len, std::int32_t max_tokens,
                 Options o = Options()) {
    return add(id, iota_tokens(len, 10000 * static_cast<std::int32_t>(ids_.size() + 1)), max_tokens,
               o);
  }

  // Blocks the next apply() reports as failed to load (KVConnectorOutput.invalid_block_ids).
  std::vector<std::int32_t> invalid_block_ids;
  // Accepted drafts per request id (default: all accepted).
  std::function<std::int32_t(const std::string&, std::int32_t drafts)> accept;

  // Sync step: schedule, sample, apply. Returns the step's output.
  const SchedulerOutput& step() {
    InFlightBatch& b = schedule();
    last_ = b.output;
    apply();
    return last_;
  }
  // Async (or sync) scheduling of one batch with samples fixed now.
  InFlightBatch& schedule() {
    InFlightBatch& b = core_.schedule_batch();
    last_ = b.output;
    check();
    return b;
  }
  const UpdateResult& apply(std::vector<engine::RequestKey>* aborted = nullptr) {
    InFlightBatch& b = core_.oldest();
    b.sampled.clear();
    for (const ScheduledRequest& e : b.output.scheduled) {
      const Request* r = core_.scheduler().find(e.ref);
      if (!e.samples) {
        b.sampled.add(nullptr, 0);
        continue;
      }
      std::int32_t accepted = e.num_spec_tokens;
      if (accept && e.num_spec_tokens > 0) accepted = accept(ids_[e.key], e.num_spec_tokens);
      std::vector<std::int32_t> toks;
      const std::int32_t outputs = r != nullptr ? r->num_output_tokens() : 0;  // gone: ignored
      for (std::int32_t j = 0; j <= accepted; ++j) toks.push_back(1000 + outputs + j);
      b.sampled.add(toks.data(), static_cast<std::int32_t>(toks.size()));
    }
    // KVConnectorOutput.invalid_block_ids of this step (consumed).
    b.sampled.invalid_block_ids = std::move(invalid_block_ids);
    invalid_block_ids.clear();
    core_.apply_oldest(res_, aborted);
    check();
    return res_;
  }
  void check() {
    const std::string v = check_scheduler_invariants(core_.scheduler());
    if (!v.empty()) throw std::logic_error("invariant violated: " + v);
  }

  Scheduler& s() { return core_.scheduler(); }
  EngineCore& core() { return core_; }
  const Request* get(const std::string& id) { return core_.scheduler().find(refs_.at(id)); }
  ReqRef ref(const std::string& id) { return refs_.at(id); }
  const SchedulerOutput& last() const { return last_; }
  const UpdateResult& result() const { return res_; }
  const std::string& id(engine::RequestKey k) const { return ids_[k]; }

  // Scheduled tokens by id, in scheduling order.
  std::vector<std::pair<std::string, std::int32_t>> scheduled(const SchedulerOutput& o) const {
    std::vector<std::pair<std::string, std::int32_t>> v;
    for (const ScheduledRequest& e : o.scheduled) v.emplace_back(ids_[e.key], e.num_tokens);
    return v;
  }
  std::vector<std::string> names(const std::vector<engine::RequestKey>& keys) const {
    std::vector<std::string> v;
    for (const auto k : keys) v.push_back(ids_[k]);
    return v;
  }
  std::vector<std::string> waiting_order() {
    std::vector<std::string> v;
    for (const std::int32_t i : s().skipped_waiting_queue().in_order())
      v.push_back(s().slot(i).request_id);
    for (const std::int32_t i : s().waiting_queue().in_order()) v.push_back(s().slot(i).request_id);
    return v;
  }
  std::vector<std::string> running_order() {
    std::vector<std::string> v;
    for (const std::int32_t i : s().running()) v.push_back(s().slot(i).request_id);
    return v;
  }

 private:
  EngineCore core_;
  std::vector<std::string> ids_;
  std::map<std::string, ReqRef> refs_;
  SchedulerOutput last_;
  UpdateResult res_;
};

using Sched = std::vector<std::pair<std::string, std::int32_t>>;
using Names = std::vector<std::string>;

}  // namespace blis::vllm::testing
