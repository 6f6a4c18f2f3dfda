#include "cluster/router.h"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <utility>

#include "util/text.h"

namespace blis::cluster {
namespace {

bool parse_policy(const std::string& s, Router::Policy& out) {
  if (s == "round-robin")
    out = Router::Policy::kRoundRobin;
  else if (s == "random")
    out = Router::Policy::kRandom;
  else if (s == "least-loaded")
    out = Router::Policy::kLeastLoaded;
  else if (s == "weighted")
    out = Router::Policy::kWeighted;
  else if (s == "epp")
    out = Router::Policy::kEpp;
  else
    return false;
  return true;
}

// A prefill pool behind a handler that never disaggregates gets whole requests where the one
// profile picks it (a decode-filter keeps it out altogether): legal in llm-d, seldom meant.
void warn_undisaggregated_prefill_pool(const epp::EppConfig& parsed,
                                       const std::vector<scenario::Pool>& pools, Diagnostics& ds) {
  if (!epp::runs_one_profile(parsed)) return;
  const auto prefill = std::find_if(pools.begin(), pools.end(),
                                    [](const scenario::Pool& p) { return p.role == "prefill"; });
  if (prefill == pools.end()) return;
  const std::string handler =
      parsed.profile_handler < 0
          ? "single-profile-handler (the default)"
          : parsed.plugins[static_cast<std::size_t>(parsed.profile_handler)].type;
  ds.push_back({"/router/epp_config",
                "pool " + quote_excerpt(prefill->name) + " has role prefill, but " + handler +
                    " runs one scheduling profile and never splits a request: that pool serves "
                    "whole requests where the profile picks it, or none if its filters leave "
                    "it out (llm-d disaggregates with disagg-profile-handler and a prefill "
                    "profile)",
                Severity::kWarning});
}

}  // namespace

Diagnostics Router::validate(const scenario::Router& cfg,
                             const std::vector<scenario::Pool>& pools) {
  Diagnostics ds;
  Policy p{};
  if (!parse_policy(cfg.policy, p)) {
    ds.push_back(
        {"/router/policy", "unknown policy '" + cfg.policy +
                               "' (expected round-robin, least-loaded, weighted, random or epp)"});
    return ds;
  }
  if (p == Policy::kEpp) {
    if (cfg.epp_config.empty()) {
      ds.push_back({"/router/epp_config", "policy epp needs an EndpointPickerConfig"});
    } else {
      epp::EppConfig parsed;
      for (auto& d : epp::parse_epp_config(cfg.epp_config, "/router/epp_config", parsed))
        ds.push_back(std::move(d));
      if (!has_errors(ds)) warn_undisaggregated_prefill_pool(parsed, pools, ds);
      if (!has_errors(ds) &&
          epp::flow_never_dispatches(parsed, from_millis(cfg.signal_staleness_ms)))
        ds.push_back({"/router/signal_staleness_ms",
                      "the EPP's flow control will never dispatch: metrics this old are stale "
                      "to its utilization-detector (metricsStalenessThreshold), so the pool "
                      "counts as saturated and every request waits in its queue",
                      Severity::kWarning});
    }
  } else if (!cfg.epp_config.empty()) {
    ds.push_back({"/router/epp_config", "epp_config is used only by policy \"epp\""});
  }
  if (p == Policy::kWeighted && cfg.scorers.empty()) {
    ds.push_back({"/router/scorers", "the weighted policy needs at least one scorer"});
  }
  for (std::size_t i = 0; i < cfg.scorers.size(); ++i) {
    const auto& sc = cfg.scorers[i];
    const std::string ptr = json_pointer_append("/router/scorers", i);
    if (sc.name != "queue-depth" && sc.name != "kv-utilization" && sc.name != "prefix-cache") {
      ds.push_back({ptr + "/name", "unknown scorer '" + sc.name +
                                       "' (expected queue-depth, kv-utilization or prefix-cache)"});
    }
    if (!(sc.weight >= 0)) {
      ds.push_back({ptr + "/weight", "weight must be >= 0"});
    }
  }
  if (!(cfg.signal_staleness_ms >= 0)) {
    ds.push_back({"/router/signal_staleness_ms", "must be >= 0"});
  }
  return ds;
}

Router::Router(const scenario::Router& cfg, std::size_t instances,
               std::vector<std::int32_t> candidates, std::int32_t block_size,
               std::uint64_t model_salt, Rng rng, const std::vector<std::int32_t>& dp)
    : candidates_(std::move(candidates)), outstanding_(instances, 0), rng_(rng) {
  if (!parse_policy(cfg.policy, policy_)) throw std::invalid_argument("unknown router policy");
  if (candidates_.empty()) throw std::invalid_argument("router has no candidate instances");
  if (policy_ == Policy::kWeighted) {
    for (const auto& sc : cfg.scorers) {
      ScorerKind k = ScorerKind::kQueueDepth;
      if (sc.name == "kv-utilization")
        k = ScorerKind::kKvUtilization;
      else if (sc.name == "prefix-cache")
        k = ScorerKind::kPrefixCache;
      scorers_.push_back({k, sc.weight});
      uses_prefix_ = uses_prefix_ || k == ScorerKind::kPrefixCache;
    }
  }
  if (policy_ == Policy::kEpp) {
    epp::EppConfig parsed;
    if (has_errors(epp::parse_epp_config(cfg.epp_config, "/router/epp_config", parsed)))
      throw std::invalid_argument("invalid router epp_config");
    build_endpoints(parsed.data_parallel, instances, dp);
    epp_ = std::make_unique<epp::Scheduler>(std::move(parsed), endpoints_.size(), epp_candidates_,
                                            block_size, model_salt,
                                            from_millis(cfg.signal_staleness_ms));
  } else {
    build_endpoints(false, instances, dp);
  }
  if (uses_prefix_) prefix_ = PrefixIndex(instances, block_size, model_salt);
  totals_.resize(candidates_.size());
}

// dp_profile_handler.go: each DP rank is its own endpoint (the rank's address:port); an
// instance without ranks stays one endpoint.
void Router::build_endpoints(bool data_parallel, std::size_t instances,
                             const std::vector<std::int32_t>& dp) {
  endpoints_.clear();
  for (std::size_t i = 0; i < instances; ++i)
    endpoints_.push_back({static_cast<std::int32_t>(i), -1});
  first_rank_.assign(instances, -1);
  epp_candidates_.clear();
  for (const std::int32_t c : candidates_) {
    const auto i = static_cast<std::size_t>(c);
    const std::int32_t ranks = i < dp.size() ? dp[i] : 1;
    if (!data_parallel || ranks <= 1) {
      epp_candidates_.push_back(c);
      continue;
    }
    first_rank_[i] = static_cast<std::int32_t>(endpoints_.size());
    for (std::int32_t r = 0; r < ranks; ++r) {
      epp_candidates_.push_back(static_cast<std::int32_t>(endpoints_.size()));
      endpoints_.push_back({c, r});
    }
  }
}

std::int32_t Router::endpoint_of(std::int32_t instance, std::int32_t rank) const {
  if (rank < 0 || !ranks_are_endpoints(instance)) return instance;
  return first_rank_[static_cast<std::size_t>(instance)] + rank;
}

void Router::set_instance_blocks(std::int32_t instance, std::int64_t blocks) {
  if (uses_prefix_) prefix_.set_capacity(static_cast<std::size_t>(instance), blocks);
}

std::int32_t Router::pick(const std::vector<std::int32_t>& prompt, SimTime now,
                          SignalBoard& board) {
  std::int32_t chosen = candidates_.front();
  switch (policy_) {
    case Policy::kRoundRobin:
      chosen = candidates_[rr_next_];
      rr_next_ = (rr_next_ + 1) % candidates_.size();
      break;
    case Policy::kRandom:
      chosen = candidates_[static_cast<std::size_t>(
          rng_.uniform_int(0, static_cast<std::int64_t>(candidates_.size()) - 1))];
      break;
    case Policy::kLeastLoaded: {
      std::int64_t best = std::numeric_limits<std::int64_t>::max();
      for (const std::int32_t c : candidates_) {
        const std::int64_t load = outstanding_[static_cast<std::size_t>(c)];
        if (load < best) {
          best = load;
          chosen = c;
        }
      }
      break;
    }
    case Policy::kWeighted:
      chosen = pick_weighted(prompt, now, board);
      break;
    case Policy::kEpp:
      throw std::logic_error("Router::pick: policy epp routes through route()");
  }
  ++outstanding_[static_cast<std::size_t>(chosen)];
  return chosen;
}

std::int32_t Router::pick_weighted(const std::vector<std::int32_t>& prompt, SimTime now,
                                   SignalBoard& board) {
  const std::size_t n = candidates_.size();
  std::fill(totals_.begin(), totals_.end(), 0.0);
  if (uses_prefix_) {
    prefix_.hash_prompt(prompt, hashes_);
    prefix_.match(hashes_, matches_);
  }
  for (const auto& sc : scorers_) {
    switch (sc.kind) {
      case ScorerKind::kQueueDepth: {
        std::int32_t lo = std::numeric_limits<std::int32_t>::max();
        std::int32_t hi = std::numeric_limits<std::int32_t>::min();
        for (const std::int32_t c : candidates_) {
          const std::int32_t q = board.view(static_cast<std::size_t>(c), now).waiting;
          lo = std::min(lo, q);
          hi = std::max(hi, q);
        }
        for (std::size_t i = 0; i < n; ++i) {
          const std::int32_t q = board.view(static_cast<std::size_t>(candidates_[i]), now).waiting;
          const double s =
              hi == lo ? 1.0 : static_cast<double>(hi - q) / static_cast<double>(hi - lo);
          totals_[i] += sc.weight * s;
        }
        break;
      }
      case ScorerKind::kKvUtilization:
        for (std::size_t i = 0; i < n; ++i) {
          const double u = board.view(static_cast<std::size_t>(candidates_[i]), now).kv_usage;
          totals_[i] += sc.weight * (1.0 - u);
        }
        break;
      case ScorerKind::kPrefixCache:
        if (!hashes_.empty()) {
          const auto total = static_cast<double>(hashes_.size());
          for (std::size_t i = 0; i < n; ++i) {
            const auto m = matches_[static_cast<std::size_t>(candidates_[i])];
            totals_[i] += sc.weight * (static_cast<double>(m) / total);
          }
        }
        break;
    }
  }
  // Max-score picker with a uniformly random tie break.
  double best = -std::numeric_limits<double>::infinity();
  ties_.clear();
  for (std::size_t i = 0; i < n; ++i) {
    if (totals_[i] > best) {
      best = totals_[i];
      ties_.clear();
    }
    if (totals_[i] == best) ties_.push_back(static_cast<std::int32_t>(i));
  }
  std::size_t pick = static_cast<std::size_t>(ties_.front());
  if (ties_.size() > 1) {
    pick = static_cast<std::size_t>(ties_[static_cast<std::size_t>(
        rng_.uniform_int(0, static_cast<std::int64_t>(ties_.size()) - 1))]);
  }
  const std::int32_t chosen = candidates_[pick];
  if (uses_prefix_) prefix_.add(static_cast<std::size_t>(chosen), hashes_);
  return chosen;
}

void Router::on_finished(std::int32_t instance, std::int64_t prompt_tokens, std::int32_t rank) {
  auto& o = outstanding_[static_cast<std::size_t>(instance)];
  if (o > 0) --o;
  if (epp_) epp_->on_left(endpoint_of(instance, rank), prompt_tokens);
}

bool Router::flow_dispatch(SimTime now, SignalBoard& board, std::uint64_t& key) {
  epp::FlowController* fc = flow();
  if (fc == nullptr || fc->queued() == 0) return false;
  return fc->dispatch_cycle(epp_->saturation(now, board), now, key);
}

epp::Decision Router::route(const epp::Request& r, SimTime now, SignalBoard& board) {
  if (!epp_) {
    epp::Decision d;
    d.target = pick(*r.prompt, now, board);
    return d;
  }
  epp::Decision d = epp_->schedule(r, now, board, rng_);
  if (d.rejected) {
    // Accounted on the first endpoint (the pool the gateway fronts), so the finish balances.
    d.target = epp_candidates_.front();
    d.prefill = -1;
    epp_->count_in(d.target, static_cast<std::int64_t>(r.prompt->size()));
  }
  // dp_profile_handler.go ProcessResults: the header names the chosen rank, the request goes
  // to the instance's primary port (here: the instance, with the rank named).
  if (d.target >= 0) {
    const Endpoint& e = endpoint(d.target);
    d.target = e.instance;
    d.rank = e.rank;
  }
  if (d.prefill >= 0) d.prefill = endpoint(d.prefill).instance;
  if (d.target >= 0) ++outstanding_[static_cast<std::size_t>(d.target)];
  if (d.prefill >= 0) ++outstanding_[static_cast<std::size_t>(d.prefill)];
  return d;
}

void Router::on_done(std::int32_t instance, const epp::Request& r, bool answered,
                     std::int32_t rank) {
  if (epp_) epp_->on_done(endpoint_of(instance, rank), r, answered);
}

}  // namespace blis::cluster
