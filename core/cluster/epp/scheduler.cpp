#include "cluster/epp/scheduler.h"

#include <algorithm>
#include <limits>
#include <utility>

#include "util/det_math.h"

namespace blis::cluster::epp {
namespace {

bool is_prefix_type(const std::string& t) {
  return t == "prefix-cache-scorer" || t == "precise-prefix-cache-scorer";
}

}  // namespace

Scheduler::Scheduler(EppConfig cfg, std::size_t instances, std::vector<std::int32_t> candidates,
                     std::int32_t block_size, std::uint64_t model_salt, SimTime metrics_age)
    : cfg_(std::move(cfg)),
      candidates_(std::move(candidates)),
      roles_(instances, Role::kNone),
      max_loras_(instances, 0),
      inflight_(instances, 0),
      inflight_tokens_(instances, 0),
      labels_(instances),
      lora_inflight_(instances),
      metrics_age_(metrics_age),
      block_size_(block_size) {
  // The approximate index's parameters are the approx-prefix-cache-producer's: the scorer's
  // factory ignores its own (scorer/prefix/plugin.go), and without a producer in the config
  // upstream creates one with its defaults (data_graph.go CreateMissingDataProducers).
  for (std::size_t i = 0; i < cfg_.plugins.size(); ++i) {
    if (cfg_.plugins[i].type == "approx-prefix-cache-producer" && approx_producer_ < 0)
      approx_producer_ = static_cast<std::int32_t>(i);
  }
  for (std::size_t i = 0; i < cfg_.plugins.size(); ++i) {
    const PluginSpec& p = cfg_.plugins[i];
    if (!is_prefix_type(p.type)) continue;
    PrefixState s;
    s.plugin = static_cast<std::int32_t>(i);
    s.precise = p.type == "precise-prefix-cache-scorer";
    // approximateprefix: maxPrefixBlocksToMatch (256); the index holds at most 256.
    const double mb =
        s.precise ? kMaxPrefixBlocksToMatch
                  : approx_params().number("maxPrefixBlocksToMatch", kMaxPrefixBlocksToMatch);
    s.max_blocks = std::clamp(static_cast<std::int32_t>(mb), 1, kMaxPrefixBlocksToMatch);
    if (s.precise)
      s.exact = std::make_unique<PreciseIndex>(instances, block_size);
    else
      s.approx = PrefixIndex(instances, block_size, model_salt);
    s.matches.assign(instances, 0);
    prefix_.push_back(std::move(s));
  }
  if (cfg_.flow.enabled) flow_ = std::make_unique<FlowController>(cfg_.flow);
  // The decider reads the endpoint's PrefixCacheMatchInfo: the first prefix plugin's.
  if (!prefix_.empty()) decider_prefix_ = 0;
  totals_.resize(instances);
  scores_.resize(instances);
}

void Scheduler::set_endpoint(std::int32_t instance, Role role, std::int64_t gpu_blocks,
                             std::int32_t max_loras) {
  const auto i = static_cast<std::size_t>(instance);
  roles_[i] = role;
  max_loras_[i] = max_loras;
  if (role != Role::kNone) labels_[i][kRoleLabel] = role == Role::kPrefill ? "prefill" : "decode";
  for (PrefixState& s : prefix_) {
    if (s.precise) continue;
    // approximateprefix AutoTune: the LRU holds the server's KV blocks; else
    // lruCapacityPerServer.
    const PluginSpec& p = approx_params();
    const bool auto_tune = p.number("autoTune", 1) != 0;
    const auto cap = auto_tune && gpu_blocks > 0
                         ? gpu_blocks
                         : static_cast<std::int64_t>(
                               p.number("lruCapacityPerServer", kDefaultLruCapacityPerServer));
    s.approx.set_capacity(i, cap);
  }
}

void Scheduler::set_labels(std::int32_t instance, const Labels& labels) {
  Labels& l = labels_[static_cast<std::size_t>(instance)];
  for (const auto& [k, v] : labels) l[k] = v;
}

engine::KvEventListener* Scheduler::kv_listener(std::int32_t instance) {
  for (PrefixState& s : prefix_)
    if (s.precise) return s.exact->listener(static_cast<std::size_t>(instance));
  return nullptr;
}

Scheduler::PrefixState* Scheduler::prefix_of(std::int32_t plugin) {
  for (PrefixState& s : prefix_)
    if (s.plugin == plugin) return &s;
  return nullptr;
}

void Scheduler::prepare_prefix(const Request& r) {
  for (PrefixState& s : prefix_) {
    if (s.precise) {
      s.exact->hash_prompt(*r.prompt, r.lora, s.max_blocks, s.hashes, s.lo);
      s.exact->match(s.hashes, s.lo, s.matches);
    } else {
      s.approx.hash_prompt(*r.prompt, s.hashes);
      if (static_cast<std::int32_t>(s.hashes.size()) > s.max_blocks)
        s.hashes.resize(static_cast<std::size_t>(s.max_blocks));
      s.approx.match(s.hashes, s.matches);
    }
  }
}

double Scheduler::saturation(SimTime now, SignalBoard& board) {
  const PluginSpec* d = cfg_.saturation_detector >= 0
                            ? &cfg_.plugins[static_cast<std::size_t>(cfg_.saturation_detector)]
                            : nullptr;
  if (candidates_.empty()) return 1.0;
  if (d != nullptr && d->type == "concurrency-detector") {
    // concurrency/detector.go Saturation: total in-flight / total capacity, in requests or
    // (concurrencyMode tokens) in the in-flight-load producer's tokens.
    const bool tokens = d->text("concurrencyMode", "requests") == "tokens";
    const double max_c =
        tokens ? d->number("maxTokenConcurrency", 1000000) : d->number("maxConcurrency", 100);
    double inflight = 0;
    for (const std::int32_t c : candidates_)
      inflight += static_cast<double>(tokens ? inflight_tokens_[c] : inflight_[c]);
    return inflight / (max_c * static_cast<double>(candidates_.size()));
  }
  // utilization/detector.go Saturation: mean of max(q / qThr, kv / kvThr); an endpoint whose
  // metrics are older than metricsStalenessThreshold counts as saturated.
  const double q_thr = d != nullptr ? d->number("queueDepthThreshold", 5) : 5;
  const double kv_thr = d != nullptr ? d->number("kvCacheUtilThreshold", 0.8) : 0.8;
  const double stale_ms = d != nullptr ? d->number("metricsStalenessThreshold", 200) : 200;
  const bool stale = to_millis(metrics_age_) > stale_ms;
  double total = 0;
  for (const std::int32_t c : candidates_) {
    if (stale) {
      total += 1.0;
      continue;
    }
    const InstanceSignals& s = board.view(static_cast<std::size_t>(c), now);
    total += std::max(static_cast<double>(s.waiting) / q_thr, s.kv_usage / kv_thr);
  }
  return total / static_cast<double>(candidates_.size());
}

bool flow_never_dispatches(const EppConfig& cfg, SimTime metrics_age) {
  if (!cfg.flow.enabled) return false;
  const PluginSpec* d = cfg.saturation_detector >= 0
                            ? &cfg.plugins[static_cast<std::size_t>(cfg.saturation_detector)]
                            : nullptr;
  if (d != nullptr && d->type != "utilization-detector") return false;
  const double stale_ms = d != nullptr ? d->number("metricsStalenessThreshold", 200) : 200;
  return to_millis(metrics_age) > stale_ms && cfg.flow.usage_limit <= 1.0;
}

bool Scheduler::flow_blocked() const {
  return flow_ != nullptr && flow_never_dispatches(cfg_, metrics_age_);
}

Decision Scheduler::schedule(const Request& r, SimTime now, SignalBoard& board, Rng& rng) {
  Decision d;
  // admission.go rejectIfSheddableAndSaturated (LegacyAdmissionController): only sheddable
  // requests are checked. FlowControlAdmissionController has no such check: the flow
  // controller dispatched this request.
  if (flow_ == nullptr && r.priority > 0 && saturation(now, board) >= 1.0) {
    d.rejected = true;
    return d;
  }
  // director.go runAdmissionPlugins: after the admission controller, before scheduling.
  for (const PluginSpec& a : cfg_.plugins) {
    if (a.type == "probabilistic-admitter" && !probabilistic_admit(a, r, now, board, rng)) {
      d.rejected = true;
      return d;
    }
  }
  prepare_prefix(r);
  // dp_profile_handler.go Pick: the one profile, as single-profile-handler (its endpoints
  // are DP ranks: the router's endpoint table maps them back to instances).
  if (runs_one_profile(cfg_)) {
    d.target = run_profile(cfg_.profiles.front(), r, now, board, rng);
  } else {
    // disagg_profile_handler.go Pick: decode first; then the prefill profile if the decider
    // says so for the chosen decode endpoint (an empty prefill result: no disaggregation).
    d.target = run_profile(cfg_.profiles[static_cast<std::size_t>(cfg_.decode_profile)], r, now,
                           board, rng);
    if (d.target >= 0 && cfg_.prefill_profile >= 0 && cfg_.prefill_decider >= 0 &&
        disaggregate(r, d.target)) {
      d.prefill = run_profile(cfg_.profiles[static_cast<std::size_t>(cfg_.prefill_profile)], r, now,
                              board, rng);
    }
  }
  if (d.target < 0) {
    d.rejected = true;  // no endpoint passed the filters (upstream: 503)
    return d;
  }
  pre_request(r, d);
  return d;
}

// probabilisticadmitter/plugin.go AdmitRequest: critical and standard requests (priority >= 0
// upstream; here client priority <= 0) pass; a sheddable one is rejected with probability
// min(sat^power x k, 1), sat the mean over the endpoints of max(waiting / queueDepthThreshold,
// KV usage / kvCacheUtilThreshold). The draw happens only for a sheddable request with
// endpoints, as upstream calls randFn.
bool Scheduler::probabilistic_admit(const PluginSpec& a, const Request& r, SimTime now,
                                    SignalBoard& board, Rng& rng) {
  if (r.priority <= 0 || candidates_.empty()) return true;
  const double q_thr = a.number("queueDepthThreshold", 5);
  const double kv_thr = a.number("kvCacheUtilThreshold", 0.8);
  double total = 0;
  for (const std::int32_t c : candidates_) {
    const InstanceSignals& s = board.view(static_cast<std::size_t>(c), now);
    total += std::max(static_cast<double>(s.waiting) / q_thr, s.kv_usage / kv_thr);
  }
  const double sat = total / static_cast<double>(candidates_.size());
  const double prob = std::min(dmath::pow(sat, a.number("power", 5)) * a.number("k", 300), 1.0);
  return !(rng.uniform01() < prob);
}

const PluginSpec& Scheduler::approx_params() const {
  static const PluginSpec kDefaults;
  return approx_producer_ >= 0 ? cfg_.plugins[static_cast<std::size_t>(approx_producer_)]
                               : kDefaults;
}

bool Scheduler::disaggregate(const Request& r, std::int32_t decode) const {
  const PluginSpec& dec = cfg_.plugins[static_cast<std::size_t>(cfg_.prefill_decider)];
  if (dec.type == "always-disagg-pd-decider") return true;
  // prefix_based_pd_decider.go disaggregate.
  const auto threshold = static_cast<std::int64_t>(dec.number("nonCachedTokens", 0));
  if (threshold == 0) return false;
  const auto input = static_cast<std::int64_t>(r.prompt->size());
  if (input < threshold) return false;
  if (decider_prefix_ < 0) return false;  // no PrefixCacheMatchInfo on the endpoint
  const PrefixState& s = prefix_[static_cast<std::size_t>(decider_prefix_)];
  const std::int64_t hit =
      static_cast<std::int64_t>(s.matches[static_cast<std::size_t>(decode)]) * block_size_;
  return input - hit >= threshold;
}

std::int32_t Scheduler::run_profile(const Profile& p, const Request& r, SimTime now,
                                    SignalBoard& board, Rng& rng) {
  pass_ = candidates_;
  for (const std::int32_t f : p.filters) {
    filter(cfg_.plugins[static_cast<std::size_t>(f)], r, now, board, rng);
    if (pass_.empty()) return -1;
  }
  for (const std::int32_t c : pass_) totals_[static_cast<std::size_t>(c)] = 0;
  for (const WeightedRef& s : p.scorers) {
    score(s.plugin, r, now, board);
    for (const std::int32_t c : pass_)
      totals_[static_cast<std::size_t>(c)] += s.weight * scores_[static_cast<std::size_t>(c)];
  }
  return pick(p.picker >= 0 ? &cfg_.plugins[static_cast<std::size_t>(p.picker)] : nullptr, rng);
}

void Scheduler::lora_state(std::int32_t inst, std::int32_t lora, bool& active, bool& waiting,
                           bool& has_slot) const {
  const auto i = static_cast<std::size_t>(inst);
  const std::vector<std::int32_t>* act = lora_probe_ ? lora_probe_(inst) : nullptr;
  active = act != nullptr && std::find(act->begin(), act->end(), lora) != act->end();
  std::size_t n_active = act != nullptr ? act->size() : 0;
  std::size_t n_waiting = 0;
  waiting = false;
  for (const auto& [id, n] : lora_inflight_[i]) {
    if (n <= 0) continue;
    if (act != nullptr && std::find(act->begin(), act->end(), id) != act->end()) continue;
    ++n_waiting;
    if (id == lora) waiting = true;
  }
  has_slot = static_cast<std::int64_t>(n_active + n_waiting) < max_loras_[i];
}

void Scheduler::filter(const PluginSpec& f, const Request& r, SimTime now, SignalBoard& board,
                       Rng& rng) {
  next_.clear();
  const std::string& t = f.type;
  if (t == "decode-filter" || t == "prefill-filter") {
    // bylabel/roles.go: decode keeps decode and unlabelled endpoints; prefill keeps prefill.
    for (const std::int32_t c : pass_) {
      const Role role = roles_[static_cast<std::size_t>(c)];
      const bool keep = t == "decode-filter" ? role != Role::kPrefill : role == Role::kPrefill;
      if (keep) next_.push_back(c);
    }
  } else if (t == "lora-affinity-filter") {
    if (r.lora == 0) return;  // the base model: no adapter to be affine to
    std::vector<std::int32_t> affinity, available;
    for (const std::int32_t c : pass_) {
      bool active = false, waiting = false, slot = false;
      lora_state(c, r.lora, active, waiting, slot);
      if (active || waiting)
        affinity.push_back(c);
      else if (slot)
        available.push_back(c);
    }
    if (!affinity.empty() && !available.empty()) {
      next_ = rng.uniform01() < f.number("threshold", 0.999) ? affinity : available;
    } else {
      next_ = affinity.empty() ? available : affinity;
    }
  } else if (t == "by-label" || t == "encode-filter") {
    // bylabel/filter.go Filter; roles.go NewEncodeRole is by-label on llm-d.ai/role.
    static const std::vector<std::string> kEncodeRoles = {"encode", "encode-prefill",
                                                          "encode-prefill-decode"};
    static const std::vector<std::string> kNone;
    const bool encode = t == "encode-filter";
    const auto lv = f.lists.find("validValues");
    const std::vector<std::string>& valid =
        encode ? kEncodeRoles : (lv != f.lists.end() ? lv->second : kNone);
    const std::string label = encode ? std::string(kRoleLabel) : f.text("label", "");
    const bool allows_no_label = !encode && f.number("allowsNoLabel", 0) != 0;
    for (const std::int32_t c : pass_)
      if (by_label_keeps(labels_[static_cast<std::size_t>(c)], label, valid, allows_no_label))
        next_.push_back(c);
  } else if (t == "label-selector-filter" || t == "by-label-selector") {
    // bylabel/selector.go Filter.
    for (const std::int32_t c : pass_)
      if (selector_matches(f, labels_[static_cast<std::size_t>(c)])) next_.push_back(c);
  } else if (t == "context-length-aware") {
    // context_length_aware.go Filter: only with enableFiltering; unlabelled endpoints pass,
    // unparsable ranges do not.
    if (f.number("enableFiltering", 0) == 0) return;
    const std::string label = f.text("label", kContextRangeLabel);
    const auto n = static_cast<std::int64_t>(r.prompt->size());
    for (const std::int32_t c : pass_) {
      const ContextRange cr = context_range(labels_[static_cast<std::size_t>(c)], label);
      if (!cr.labelled || (cr.valid && n >= cr.lo && n <= cr.hi)) next_.push_back(c);
    }
  } else if (t == "utilization-detector" || t == "concurrency-detector") {
    // A detector as a Filter (detector.go Filter): endpoints under the limits with headroom;
    // none: all of them.
    const double head = 1.0 + f.number("headroom", 0);
    for (const std::int32_t c : pass_) {
      bool keep = false;
      if (t == "concurrency-detector") {
        const auto i = static_cast<std::size_t>(c);
        keep = f.text("concurrencyMode", "requests") == "tokens"
                   ? static_cast<double>(inflight_tokens_[i]) <
                         f.number("maxTokenConcurrency", 1000000) * head
                   : static_cast<double>(inflight_[i]) < f.number("maxConcurrency", 100) * head;
      } else if (to_millis(metrics_age_) <= f.number("metricsStalenessThreshold", 200)) {
        const InstanceSignals& s = board.view(static_cast<std::size_t>(c), now);
        keep = s.waiting < f.number("queueDepthThreshold", 5) * head &&
               s.kv_usage < f.number("kvCacheUtilThreshold", 0.8) * head;
      }
      if (keep) next_.push_back(c);
    }
    if (next_.empty()) return;
  }
  pass_.swap(next_);
}

// The scorers that read the router's own bookkeeping and the endpoints' labels.
void Scheduler::score_local(const PluginSpec& p, const Request& r) {
  if (p.type == "token-load-scorer") {
    // tokenload/token_load.go Score (queueThresholdTokens <= 0: the default).
    double thr = p.number("queueThresholdTokens", kTokenQueueThreshold);
    if (thr <= 0) thr = kTokenQueueThreshold;
    for (const std::int32_t c : pass_) {
      const auto load = static_cast<double>(inflight_tokens_[static_cast<std::size_t>(c)]);
      scores_[static_cast<std::size_t>(c)] = load <= 0 ? 1.0 : 1.0 - std::min(load, thr) / thr;
    }
    return;
  }
  // context_length_aware.go Score: unlabelled 0.5, unparsable 0.
  const std::string label = p.text("label", kContextRangeLabel);
  const auto n = static_cast<std::int64_t>(r.prompt->size());
  for (const std::int32_t c : pass_) {
    const ContextRange cr = context_range(labels_[static_cast<std::size_t>(c)], label);
    scores_[static_cast<std::size_t>(c)] = !cr.labelled ? 0.5
                                           : cr.valid   ? context_range_score(n, cr.lo, cr.hi)
                                                        : 0.0;
  }
}

void Scheduler::score(std::int32_t plugin, const Request& r, SimTime now, SignalBoard& board) {
  const PluginSpec& p = cfg_.plugins[static_cast<std::size_t>(plugin)];
  const std::string& t = p.type;
  auto view = [&](std::int32_t c) -> const InstanceSignals& {
    return board.view(static_cast<std::size_t>(c), now);
  };
  auto& sc = scores_;
  auto min_max = [&](auto value) {
    double lo = std::numeric_limits<double>::max(), hi = std::numeric_limits<double>::lowest();
    for (const std::int32_t c : pass_) {
      lo = std::min(lo, value(c));
      hi = std::max(hi, value(c));
    }
    for (const std::int32_t c : pass_)
      sc[static_cast<std::size_t>(c)] = hi == lo ? 1.0 : (hi - value(c)) / (hi - lo);
  };
  if (t == "token-load-scorer" || t == "context-length-aware") return score_local(p, r);
  if (t == "queue-scorer") {
    min_max([&](std::int32_t c) { return static_cast<double>(view(c).waiting); });
  } else if (t == "running-requests-size-scorer") {
    min_max([&](std::int32_t c) { return static_cast<double>(view(c).running); });
  } else if (t == "kv-cache-utilization-scorer") {
    for (const std::int32_t c : pass_) sc[static_cast<std::size_t>(c)] = 1.0 - view(c).kv_usage;
  } else if (t == "load-aware-scorer") {
    // load_aware.go: threshold <= 0 falls back to the default 128.
    double thr = p.number("threshold", 128);
    if (thr <= 0) thr = 128;
    for (const std::int32_t c : pass_) {
      const double q = std::min(static_cast<double>(view(c).waiting), thr);
      sc[static_cast<std::size_t>(c)] = q == 0 ? 0.5 : 0.5 * (1.0 - q / thr);
    }
  } else if (t == "active-request-scorer") {
    // active_request.go Score (negative idleThreshold / out-of-range maxBusyScore: defaults).
    const double idle = std::max(0.0, p.number("idleThreshold", 0));
    double busy = p.number("maxBusyScore", 1);
    if (busy < 0 || busy > 1) busy = 1;
    std::int64_t max_n = 0;
    for (const std::int32_t c : pass_)
      max_n = std::max(max_n, inflight_[static_cast<std::size_t>(c)]);
    for (const std::int32_t c : pass_) {
      const auto n = inflight_[static_cast<std::size_t>(c)];
      sc[static_cast<std::size_t>(c)] =
          static_cast<double>(n) <= idle
              ? 1.0
              : static_cast<double>(max_n - n) / static_cast<double>(max_n) * busy;
    }
  } else if (t == "lora-affinity-scorer") {
    for (const std::int32_t c : pass_) {
      double s = 1.0;  // the base model: neutral (no adapter to be affine to)
      if (r.lora != 0) {
        bool active = false, waiting = false, slot = false;
        lora_state(c, r.lora, active, waiting, slot);
        s = active ? 1.0 : slot ? 0.8 : waiting ? 0.6 : 0.0;
      }
      sc[static_cast<std::size_t>(c)] = s;
    }
  } else if (t == "session-affinity-scorer") {
    const auto it = r.session >= 0 ? session_last_.find(r.session) : session_last_.end();
    for (const std::int32_t c : pass_)
      sc[static_cast<std::size_t>(c)] = it != session_last_.end() && it->second == c ? 1.0 : 0.0;
  } else if (is_prefix_type(t)) {
    const PrefixState* s = prefix_of(plugin);
    const auto total = static_cast<double>(s->hashes.size());
    for (const std::int32_t c : pass_) {
      sc[static_cast<std::size_t>(c)] =
          total == 0 ? 0.0 : static_cast<double>(s->matches[static_cast<std::size_t>(c)]) / total;
    }
  } else if (t == "no-hit-lru-scorer") {
    // no_hit_lru.go: the named prefix plugin's match decides whether the request is cold.
    const std::string name = p.text("prefixPluginName", "prefix-cache-scorer");
    const std::string type = p.text("prefixPluginType", "prefix-cache-scorer");
    const PrefixState* s = nullptr;
    for (const PrefixState& ps : prefix_) {
      const PluginSpec& pp = cfg_.plugins[static_cast<std::size_t>(ps.plugin)];
      if (pp.name == name && pp.type == type) s = &ps;
    }
    bool cold = true;
    for (const std::int32_t c : pass_)
      if (s != nullptr && s->matches[static_cast<std::size_t>(c)] > 0) cold = false;
    last_cold_ = cold;
    const auto n = static_cast<double>(pass_.size());
    if (!cold) {
      for (const std::int32_t c : pass_) sc[static_cast<std::size_t>(c)] = 0.5;
    } else if (pass_.size() == 1) {
      sc[static_cast<std::size_t>(pass_.front())] = 1.0;
    } else {
      // Never-used endpoints first (in candidate order), then by LRU position.
      std::size_t never = 0;
      for (const std::int32_t c : pass_)
        if (std::find(no_hit_lru_.begin(), no_hit_lru_.end(), c) == no_hit_lru_.end()) ++never;
      std::size_t i = 0;
      for (const std::int32_t c : pass_) {
        const auto it = std::find(no_hit_lru_.begin(), no_hit_lru_.end(), c);
        double rank = 0;
        if (it == no_hit_lru_.end()) {
          rank = static_cast<double>(i++);
        } else {
          // The LRU's Keys() run oldest first: position 0 is the least recently used.
          const auto from_old = static_cast<double>(no_hit_lru_.end() - it - 1);
          rank = static_cast<double>(never) + from_old;
        }
        sc[static_cast<std::size_t>(c)] = std::max(0.0, 1.0 - rank / (n - 1));
      }
    }
  }
}

std::int32_t Scheduler::pick(const PluginSpec* picker, Rng& rng) {
  const std::string type = picker != nullptr ? picker->type : "max-score-picker";
  const auto n = static_cast<std::int64_t>(pass_.size());
  if (type == "random-picker") return pass_[static_cast<std::size_t>(rng.uniform_int(0, n - 1))];
  if (type == "weighted-random-picker") {
    // weightedrandom/picker.go: A-Res keys U^(1/score); every score 0: random.
    std::int32_t best = -1;
    double best_key = -1;
    for (const std::int32_t c : pass_) {
      const double s = totals_[static_cast<std::size_t>(c)];
      if (s <= 0) continue;
      double u = rng.uniform01();
      if (u == 0) u = 1e-10;
      const double key = dmath::pow(u, 1.0 / s);
      if (key > best_key) {
        best_key = key;
        best = c;
      }
    }
    if (best >= 0) return best;
    return pass_[static_cast<std::size_t>(rng.uniform_int(0, n - 1))];
  }
  // maxscore/picker.go: shuffle, stable sort by score: the best, ties uniformly at random.
  double best = -std::numeric_limits<double>::infinity();
  next_.clear();
  for (const std::int32_t c : pass_) {
    const double s = totals_[static_cast<std::size_t>(c)];
    if (s > best) {
      best = s;
      next_.clear();
    }
    if (s == best) next_.push_back(c);
  }
  if (next_.size() == 1) return next_.front();
  return next_[static_cast<std::size_t>(
      rng.uniform_int(0, static_cast<std::int64_t>(next_.size()) - 1))];
}

void Scheduler::pre_request(const Request& r, const Decision& d) {
  // approximateprefix PreRequest: the prompt's blocks are now believed cached on the target
  // (and on the prefill endpoint, which computed them).
  for (PrefixState& s : prefix_) {
    if (s.precise) continue;
    s.approx.add(static_cast<std::size_t>(d.target), s.hashes);
    if (d.prefill >= 0) s.approx.add(static_cast<std::size_t>(d.prefill), s.hashes);
  }
  // inflightload/producer.go PreRequest: every profile's target counts the request and its
  // estimated tokens.
  const std::int64_t tokens = token_estimate(static_cast<std::int64_t>(r.prompt->size()));
  ++inflight_[static_cast<std::size_t>(d.target)];
  inflight_tokens_[static_cast<std::size_t>(d.target)] += tokens;
  if (d.prefill >= 0) {
    ++inflight_[static_cast<std::size_t>(d.prefill)];
    inflight_tokens_[static_cast<std::size_t>(d.prefill)] += tokens;
  }
  if (r.lora != 0) ++lora_inflight_[static_cast<std::size_t>(d.target)][r.lora];
  // no_hit_lru.go PreRequest: a cold request moves its primary and prefill targets to the
  // front of the LRU (lruSize bounds it).
  if (last_cold_) {
    for (const std::int32_t c : {d.prefill, d.target}) {
      if (c < 0) continue;
      const auto it = std::find(no_hit_lru_.begin(), no_hit_lru_.end(), c);
      if (it != no_hit_lru_.end()) no_hit_lru_.erase(it);
      no_hit_lru_.insert(no_hit_lru_.begin(), c);
    }
    std::size_t cap = 1024;
    for (const PluginSpec& p : cfg_.plugins)
      if (p.type == "no-hit-lru-scorer" && p.number("lruSize", 0) > 0)
        cap = static_cast<std::size_t>(p.number("lruSize", 1024));
    if (no_hit_lru_.size() > cap) no_hit_lru_.resize(cap);
  }
  last_cold_ = false;
}

void Scheduler::on_left(std::int32_t instance, std::int64_t prompt_tokens) {
  // producer.go ResponseBody: the prefill target is released at the first token (here: the
  // hand-off), the others at the end of the stream.
  auto& n = inflight_[static_cast<std::size_t>(instance)];
  if (n > 0) --n;
  auto& t = inflight_tokens_[static_cast<std::size_t>(instance)];
  t = std::max<std::int64_t>(0, t - token_estimate(prompt_tokens));
}

void Scheduler::count_in(std::int32_t instance, std::int64_t prompt_tokens) {
  ++inflight_[static_cast<std::size_t>(instance)];
  inflight_tokens_[static_cast<std::size_t>(instance)] += token_estimate(prompt_tokens);
}

void Scheduler::on_done(std::int32_t instance, const Request& r, bool answered) {
  if (r.lora != 0) {
    auto& m = lora_inflight_[static_cast<std::size_t>(instance)];
    const auto it = m.find(r.lora);
    if (it != m.end() && --it->second <= 0) m.erase(it);
  }
  // session_affinity.go ResponseBody: the response names the endpoint that served it.
  if (answered && r.session >= 0) session_last_[r.session] = instance;
}

}  // namespace blis::cluster::epp
