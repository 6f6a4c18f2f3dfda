#pragma once
// Scheduler: llm-d's EPP scheduling cycle over the simulator's endpoints (the instances, and
// with data-parallel-profile-handler DP ranks: indices the Router assigns, router.h),
// configured by an EppConfig (config.h). Per request: admission (without flow control, the
// saturation detector: sheddable requests are rejected when the pool is saturated,
// pkg/epp/requestcontrol/admission.go; with it, the flow controller (flow(), driven by the
// simulation) holds the request until it dispatches it to schedule()), then the
// profile handler runs scheduling profiles (filters in order, weighted scorers summed, the
// picker), then the PreRequest bookkeeping (the approximate prefix index, in-flight counts,
// the no-hit LRU). Randomness comes from the router's stream (seeded from the scenario seed).

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "cluster/epp/config.h"
#include "cluster/epp/flow_control.h"
#include "cluster/epp/labels.h"
#include "cluster/epp/precise_index.h"
#include "cluster/prefix_index.h"
#include "cluster/signal_board.h"
#include "util/rng.h"
#include "util/sim_time.h"

namespace blis::cluster::epp {

// tokenload/token_load.go: queueThresholdTokens' default (128 requests of 32K tokens).
inline constexpr double kTokenQueueThreshold = 4194304;

// An endpoint's llm-d.ai/role label, from its pool's role (unified pools are unlabelled).
enum class Role { kNone, kPrefill, kDecode };

struct Request {
  const std::vector<std::int32_t>* prompt = nullptr;
  std::int32_t lora = 0;      // 0: the base model
  std::int64_t session = -1;  // -1: no session token
  std::int32_t priority = 0;  // vLLM's scale: > 0 is less urgent (GIE: priority < 0, sheddable)
};

struct Decision {
  std::int32_t target = -1;   // the primary (decode / only) endpoint; -1 with rejected
  std::int32_t prefill = -1;  // P/D: the prefill endpoint when the handler disaggregates
  bool rejected = false;      // admission refused it, or no endpoint passed the filters
  // data-parallel-profile-handler: the DP rank of `target` the request goes to (set by the
  // Router from its endpoint table); -1: the instance's internal DP load balancer picks.
  std::int32_t rank = -1;
};

// The adapters in an instance's GPU LoRA slots, or nullptr when it serves no LoRA.
using LoraProbe = std::function<const std::vector<std::int32_t>*(std::int32_t instance)>;

// True when `cfg`'s flow controller could never dispatch with metrics `metrics_age` old: the
// utilization detector then sees every endpoint stale (saturation 1 >= the usage limit).
bool flow_never_dispatches(const EppConfig& cfg, SimTime metrics_age);

class Scheduler {
 public:
  Scheduler(EppConfig cfg, std::size_t instances, std::vector<std::int32_t> candidates,
            std::int32_t block_size, std::uint64_t model_salt, SimTime metrics_age);

  void set_endpoint(std::int32_t instance, Role role, std::int64_t gpu_blocks,
                    std::int32_t max_loras);
  // The endpoint's labels (its pool's pools[].labels); llm-d.ai/role comes from its role.
  void set_labels(std::int32_t instance, const Labels& labels);
  // The flow-control layer (the flowControl feature gate), or nullptr.
  FlowController* flow() { return flow_.get(); }
  const FlowController* flow() const { return flow_.get(); }
  // flow_never_dispatches for this scheduler: queued requests then wait for their client,
  // TTL or the horizon.
  bool flow_blocked() const;
  void set_lora_probe(LoraProbe p) { lora_probe_ = std::move(p); }
  // The KV-event listener of an instance (precise prefix-cache scorer), or nullptr.
  engine::KvEventListener* kv_listener(std::int32_t instance);

  // Admission (the legacy check; none with flow control: the flow controller admitted it),
  // then the profiles.
  Decision schedule(const Request& r, SimTime now, SignalBoard& board, Rng& rng);
  // A request routed to `instance` left it (finished, failed or handed off); `prompt_tokens`:
  // its prompt's length (the in-flight-load producer's token count).
  void on_left(std::int32_t instance, std::int64_t prompt_tokens);
  // Counts a request on `instance` without routing it there (a gateway rejection's record).
  void count_in(std::int32_t instance, std::int64_t prompt_tokens);
  // inflightload/token_estimator.go SimpleTokenEstimator: input + round(1.5 x input).
  static std::int64_t token_estimate(std::int64_t prompt_tokens) {
    return prompt_tokens + (3 * prompt_tokens + 1) / 2;
  }
  // A request finished on `instance`: its adapter leaves, its session's token names it.
  void on_done(std::int32_t instance, const Request& r, bool answered);

  const EppConfig& config() const { return cfg_; }
  std::int64_t in_flight(std::int32_t instance) const {
    return inflight_[static_cast<std::size_t>(instance)];
  }
  std::int64_t in_flight_tokens(std::int32_t instance) const {
    return inflight_tokens_[static_cast<std::size_t>(instance)];
  }
  // The pool's saturation as the configured detector computes it (for tests).
  double saturation(SimTime now, SignalBoard& board);

 private:
  EppConfig cfg_;
  std::vector<std::int32_t> candidates_;
  std::vector<Role> roles_;
  std::vector<std::int32_t> max_loras_;
  std::vector<std::int64_t> inflight_, inflight_tokens_;
  std::vector<Labels> labels_;
  std::unique_ptr<FlowController> flow_;
  std::vector<std::map<std::int32_t, std::int32_t>> lora_inflight_;  // adapter -> requests
  std::map<std::int64_t, std::int32_t> session_last_;                // session -> instance
  std::vector<std::int32_t> no_hit_lru_;                             // most recent first
  LoraProbe lora_probe_;
  SimTime metrics_age_ = 0;
  std::int32_t block_size_ = 16;

  // One prefix index per prefix plugin (plugin index -> state).
  struct PrefixState {
    std::int32_t plugin = -1;
    bool precise = false;
    std::int32_t max_blocks = kMaxPrefixBlocksToMatch;
    PrefixIndex approx;
    std::unique_ptr<PreciseIndex> exact;  // precise (address-stable: engines hold listeners)
    std::vector<std::uint64_t> hashes, lo;
    std::vector<std::int32_t> matches;  // per instance, for the current request
  };
  std::vector<PrefixState> prefix_;
  std::int32_t approx_producer_ = -1;  // the approx-prefix-cache-producer plugin, if configured
  // Its parameters (an empty spec, read for its defaults, when there is none).
  const PluginSpec& approx_params() const;
  bool probabilistic_admit(const PluginSpec& a, const Request& r, SimTime now, SignalBoard& board,
                           Rng& rng);
  std::int32_t decider_prefix_ = -1;  // index into prefix_ the decider reads
  bool last_cold_ = false;

  // Scratch.
  std::vector<std::int32_t> pass_, next_;
  std::vector<double> totals_, scores_;

  PrefixState* prefix_of(std::int32_t plugin);
  void prepare_prefix(const Request& r);
  std::int32_t run_profile(const Profile& p, const Request& r, SimTime now, SignalBoard& board,
                           Rng& rng);
  void filter(const PluginSpec& f, const Request& r, SimTime now, SignalBoard& board, Rng& rng);
  void score(std::int32_t plugin, const Request& r, SimTime now, SignalBoard& board);
  void score_local(const PluginSpec& p, const Request& r);
  std::int32_t pick(const PluginSpec* picker, Rng& rng);
  bool disaggregate(const Request& r, std::int32_t decode) const;
  void lora_state(std::int32_t inst, std::int32_t lora, bool& active, bool& waiting,
                  bool& has_slot) const;
  void pre_request(const Request& r, const Decision& d);
};

}  // namespace blis::cluster::epp
