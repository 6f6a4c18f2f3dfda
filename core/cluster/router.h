#pragma once
// Router: picks the instance each request goes to.
//  - round-robin: candidates in turn.
//  - random: uniformly, from the router's own random stream.
//  - least-loaded: fewest outstanding requests (routed and not yet finished), as the router
//    itself counts them (Envoy's LEAST_REQUEST); ties go to the lowest index.
//  - weighted: llm-d EPP's scheduling profile: every scorer gives each candidate a score in
//    [0, 1], the candidate with the highest weighted sum wins, ties broken at random
//    (max-score picker: shuffle, then stable sort). Scorers:
//      queue-depth     (EPP queue-scorer)  (max_q - q) / (max_q - min_q), 1 when all equal;
//                      q = vllm:num_requests_waiting
//      kv-utilization  (EPP kv-cache-utilization-scorer)  1 - vllm:kv_cache_usage_perc
//      prefix-cache    (EPP prefix-cache-scorer)  leading blocks believed cached / blocks
//    Queue depth and KV usage are read through the SignalBoard, i.e. with the configured
//    staleness; the prefix index is the router's own memory of what it routed.
//  - epp: an llm-d EndpointPickerConfig (router.epp_config) run by epp::Scheduler: its
//    filters, scorers, picker and profile handler (P/D: the decode endpoint and, when the
//    handler disaggregates, a prefill endpoint), with saturation-based admission.
//    The scheduler's endpoints are the instances (endpoint i = instance i), and with
//    data-parallel-profile-handler also one endpoint per DP rank of every dp > 1 instance
//    (indices after the instances); such an instance's rank endpoints replace it among the
//    candidates, and route() returns the instance and the rank the profile picked.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster/epp/scheduler.h"
#include "cluster/prefix_index.h"
#include "cluster/signal_board.h"
#include "scenario/scenario.h"
#include "util/diagnostic.h"
#include "util/rng.h"

namespace blis::cluster {

// An EPP endpoint: an instance, or one DP rank of it (rank >= 0).
struct Endpoint {
  std::int32_t instance = -1, rank = -1;
};

class Router {
 public:
  enum class Policy { kRoundRobin, kRandom, kLeastLoaded, kWeighted, kEpp };

  // Checks the router section; errors name /router/... pointers. `pools` (the scenario's)
  // are read for the warnings that depend on the deployment.
  static Diagnostics validate(const scenario::Router& cfg,
                              const std::vector<scenario::Pool>& pools);

  Router() = default;
  // `instances`: how many instances there are (global indices); `candidates`: the ones this
  // router picks from, in order.
  // `dp`: each instance's DP ranks (empty: one each); used by data-parallel-profile-handler.
  Router(const scenario::Router& cfg, std::size_t instances, std::vector<std::int32_t> candidates,
         std::int32_t block_size, std::uint64_t model_salt, Rng rng,
         const std::vector<std::int32_t>& dp = {});

  // The EPP's endpoints: the instances, then the DP rank endpoints (if any).
  std::size_t endpoints() const { return endpoints_.size(); }
  const Endpoint& endpoint(std::int32_t e) const { return endpoints_[static_cast<std::size_t>(e)]; }
  // The endpoint of `instance`'s rank `rank` when its ranks are endpoints, else the instance's.
  std::int32_t endpoint_of(std::int32_t instance, std::int32_t rank) const;
  // True when `instance`'s DP ranks are endpoints of their own.
  bool ranks_are_endpoints(std::int32_t instance) const {
    return instance < static_cast<std::int32_t>(first_rank_.size()) &&
           first_rank_[static_cast<std::size_t>(instance)] >= 0;
  }

  // Sets the prefix index's LRU capacity for an instance (its GPU KV blocks).
  void set_instance_blocks(std::int32_t instance, std::int64_t blocks);
  // Picks the instance for a request with this prompt, at `now`, and records the choice.
  std::int32_t pick(const std::vector<std::int32_t>& prompt, SimTime now, SignalBoard& board);
  // `prompt_tokens`: the request's prompt length (the EPP's in-flight token counts); `rank`:
  // the DP rank route() named (-1: none).
  void on_finished(std::int32_t instance, std::int64_t prompt_tokens = 0, std::int32_t rank = -1);

  // policy epp: the EPP scheduler (nullptr otherwise).
  epp::Scheduler* epp() { return epp_.get(); }
  // policy epp with the flowControl feature gate: its flow controller (nullptr otherwise).
  epp::FlowController* flow() { return epp_ ? epp_->flow() : nullptr; }
  const epp::FlowController* flow() const { return epp_ ? epp_->flow() : nullptr; }
  // The instance a request refused at the gateway is accounted on (the first candidate).
  std::int32_t gateway_instance() const { return candidates_.front(); }
  // One flow-control dispatch cycle at the pool's current saturation: true and the key of the
  // request to schedule now (with route()), or false.
  bool flow_dispatch(SimTime now, SignalBoard& board, std::uint64_t& key);
  // The whole routing decision for a request: EPP's (with admission and P/D), or pick()'s.
  epp::Decision route(const epp::Request& r, SimTime now, SignalBoard& board);
  // A request left `instance` for good (finished or failed): EPP's LoRA / session state.
  void on_done(std::int32_t instance, const epp::Request& r, bool answered, std::int32_t rank = -1);
  std::int64_t outstanding(std::int32_t instance) const {
    return outstanding_[static_cast<std::size_t>(instance)];
  }
  Policy policy() const { return policy_; }

 private:
  enum class ScorerKind { kQueueDepth, kKvUtilization, kPrefixCache };
  struct WeightedScorer {
    ScorerKind kind;
    double weight;
  };
  Policy policy_ = Policy::kRoundRobin;
  std::vector<WeightedScorer> scorers_;
  std::vector<std::int32_t> candidates_;
  std::vector<std::int64_t> outstanding_;
  std::size_t rr_next_ = 0;
  Rng rng_;
  bool uses_prefix_ = false;
  PrefixIndex prefix_;
  // Scratch, reused between picks.
  std::vector<std::uint64_t> hashes_;
  std::vector<std::int32_t> matches_;
  std::vector<double> totals_;
  std::vector<std::int32_t> ties_;
  std::unique_ptr<epp::Scheduler> epp_;
  std::vector<Endpoint> endpoints_;
  std::vector<std::int32_t> first_rank_;      // per instance: its rank 0's endpoint, or -1
  std::vector<std::int32_t> epp_candidates_;  // the scheduler's candidate endpoints

  void build_endpoints(bool data_parallel, std::size_t instances,
                       const std::vector<std::int32_t>& dp);

  std::int32_t pick_weighted(const std::vector<std::int32_t>& prompt, SimTime now,
                             SignalBoard& board);
};

}  // namespace blis::cluster
