#pragma once
// Test doubles for the cluster: a scripted engine with vLLM's shape (FCFS, a token budget per
// pass, chunked prefill, max_num_seqs, KV blocks, async placeholders so a decode can be in
// two consecutive passes), a fixed-cost pricer, a scripted workload and a backend building
// them. They are not vLLM: the cluster tests check the cluster's timing and bookkeeping
// against hand-computed numbers.

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "cluster/backend.h"
#include "cluster/step_cost.h"
#include "cluster/workload/workload.h"
#include "engine/engine.h"

namespace blis::cluster::testing {

struct FakeEngineConfig {
  std::int32_t max_num_seqs = 64;
  std::int32_t token_budget = 256;
  std::int32_t block_size = 16;
  std::int64_t blocks = 1000;
  std::int32_t depth = 2;  // max_concurrent_batches (2 = async scheduling)
};

class FakeEngine : public engine::Engine {
 public:
  explicit FakeEngine(FakeEngineConfig cfg) : cfg_(cfg), free_blocks_(cfg.blocks) {}

  void add_request(engine::RequestSpec spec, SimTime now) override;
  void abort(engine::RequestKey key, SimTime now) override;
  bool can_schedule(SimTime now) const override;
  const engine::Batch* schedule(SimTime now) override;
  const engine::StepEvents& complete(std::uint64_t batch_id, const engine::StepOutcome& outcome,
                                     SimTime now) override;
  bool idle() const override { return waiting_.empty() && running_.empty() && inflight_.empty(); }
  std::int32_t max_concurrent_batches() const override { return cfg_.depth; }
  std::int32_t in_flight() const override { return static_cast<std::int32_t>(inflight_.size()); }
  engine::EngineStats stats() const override;
  std::string metrics_text(SimTime now, const std::string& labels) const override;
  engine::Provenance provenance() const override {
    return {"fake", "0.0.0", "tests/cluster", "none"};
  }

  std::uint64_t scheduled_batches() const { return next_batch_id_; }

 private:
  struct Req {
    engine::RequestSpec spec;
    std::int32_t prompt = 0;
    std::int32_t computed = 0;       // tokens whose KV is computed or scheduled
    std::int32_t outputs_sched = 0;  // output tokens scheduled (incl. in flight)
    std::int32_t outputs_done = 0;   // output tokens delivered
    std::int64_t blocks = 0;
    bool aborted = false, finished = false, first_done = false;
  };
  FakeEngineConfig cfg_;
  std::int64_t free_blocks_;
  std::deque<Req*> waiting_;
  std::vector<Req*> running_;
  std::vector<std::unique_ptr<Req>> all_;
  std::deque<std::pair<std::uint64_t, std::vector<std::pair<Req*, bool>>>> inflight_;
  engine::Batch batch_;
  engine::StepEvents events_;
  std::uint64_t next_batch_id_ = 0;
  std::int32_t target_outputs(const Req& r) const;
  void release(Req& r);
};

// gpu = fixed + per_token * tokens; cpu = cpu_us.
class FixedCostPricer : public StepCostModel {
 public:
  FixedCostPricer(SimTime fixed, SimTime per_token, SimTime cpu)
      : fixed_(fixed), per_token_(per_token), cpu_(cpu) {}
  StepTiming price(const engine::Batch& b) const override {
    return {fixed_ + per_token_ * b.total_tokens, cpu_};
  }

 private:
  SimTime fixed_, per_token_, cpu_;
};

struct ScriptedRequest {
  SimTime arrival = 0;
  std::int32_t prompt_tokens = 0;
  std::int32_t output_tokens = 0;
  std::int32_t prefix_group = -1;  // prompts of one group share their first half
  std::int32_t client = 0;
};

// Serves a fixed list of requests (sorted by arrival) lazily.
class ScriptedWorkload : public Workload {
 public:
  explicit ScriptedWorkload(std::vector<ScriptedRequest> reqs) : reqs_(std::move(reqs)) {}
  SimTime next_arrival() const override {
    return next_ < reqs_.size() ? reqs_[next_].arrival : kSimTimeNever;
  }
  void pop(GeneratedRequest& out) override;
  void on_finished(const GeneratedRequest& req, std::int32_t output_tokens, SimTime now) override {
    ++finished_;
  }
  bool exhausted() const override { return next_ >= reqs_.size(); }
  std::uint64_t generated() const override { return next_; }
  std::uint64_t finished() const { return finished_; }

 private:
  std::vector<ScriptedRequest> reqs_;
  std::size_t next_ = 0;
  std::uint64_t finished_ = 0;
};

struct FakeBackendConfig {
  FakeEngineConfig engine;
  SimTime step_fixed_us = 1000, step_per_token_us = 10, step_cpu_us = 100;
  ServingOverheads overheads;
};

class FakeBackend : public Backend {
 public:
  explicit FakeBackend(FakeBackendConfig cfg) : cfg_(cfg) {}
  Diagnostics prepare_pool(const scenario::Scenario& s, std::size_t p, PoolResources& out) override;
  std::unique_ptr<engine::Engine> make_engine(const scenario::Scenario& s, std::size_t p,
                                              std::int32_t instance,
                                              const PoolResources& res) override;

 private:
  FakeBackendConfig cfg_;
};

// A fake engine of batch-queue depth `depth` holding one request (key 1, 32 prompt tokens,
// 4 output tokens) added at 0: enough for an Instance to launch passes.
std::unique_ptr<FakeEngine> engine_with_one_request(std::int32_t depth);

// A one-pool scenario with `instances` instances and the given router policy.
scenario::Scenario make_scenario(std::int32_t instances, const std::string& policy = "round-robin");

}  // namespace blis::cluster::testing
