// Rules that span sections: the shape of a prefill/decode deployment, references from
// clients to SLO classes and LoRA-enabled pools, and request lengths against max_model_len.

#include <algorithm>

#include "scenario/decode_internal.h"
#include "scenario/scenario_checks.h"
#include "util/text.h"

namespace blis::scenario {

namespace {

void check_pd_shape(const Scenario& s, Diagnostics& diags) {
  int prefill = 0, decode = 0, unified = 0;
  for (const auto& p : s.pools) {
    if (p.role == "prefill")
      ++prefill;
    else if (p.role == "decode")
      ++decode;
    else
      ++unified;
  }
  if (prefill == 0 && decode == 0) return;
  if (prefill != 1 || decode != 1 || unified != 0) {
    diags.push_back(
        {"/pools",
         "a prefill/decode deployment has exactly one prefill and one decode pool and no "
         "unified pool (found " +
             std::to_string(prefill) + " prefill, " + std::to_string(decode) + " decode, " +
             std::to_string(unified) + " unified)"});
    return;
  }
  if (s.fabric.empty()) {
    diags.push_back({"/fabric",
                     "missing: a prefill/decode deployment needs the fabric its KV transfers cross "
                     "(e.g. \"nvlink4\", \"ib-ndr\")"});
  }
  const auto pi = std::find_if(s.pools.begin(), s.pools.end(),
                               [](const Pool& p) { return p.role == "prefill"; });
  const auto di = std::find_if(s.pools.begin(), s.pools.end(),
                               [](const Pool& p) { return p.role == "decode"; });
  if (pi->model != di->model) {
    diags.push_back({"/pools/" + std::to_string(di - s.pools.begin()) + "/model",
                     quote_excerpt(di->model) + " differs from the prefill pool's model " +
                         quote_excerpt(pi->model) +
                         "; the decode pool must serve the model whose KV it receives"});
  }
}

// Largest prompt + output a shape can produce, when it is bounded.
std::optional<double> upper_bound(const std::optional<LengthDist>& d) {
  if (!d) return std::nullopt;
  if (d->kind == LengthDist::Kind::kConstant) return d->value;
  if (d->max) return *d->max;
  return std::nullopt;
}

void check_clients(const Scenario& s, Diagnostics& diags) {
  const bool lora_pool = std::any_of(s.pools.begin(), s.pools.end(),
                                     [](const Pool& p) { return p.engine.args.enable_lora; });
  const bool priority_pool = std::any_of(s.pools.begin(), s.pools.end(), [](const Pool& p) {
    return p.engine.args.scheduling_policy == "priority";
  });
  const bool spec_pool = std::any_of(s.pools.begin(), s.pools.end(), [](const Pool& p) {
    return p.engine.args.speculative_config.has_value();
  });
  std::int64_t min_mml = 0;
  for (const auto& p : s.pools) {
    if (p.engine.args.max_model_len > 0 &&
        (min_mml == 0 || p.engine.args.max_model_len < min_mml)) {
      min_mml = p.engine.args.max_model_len;
    }
  }
  for (std::size_t i = 0; i < s.workload.clients.size(); ++i) {
    const Client& cl = s.workload.clients[i];
    const std::string ptr = "/workload/clients/" + std::to_string(i);
    if (!cl.slo_class.empty()) {
      const bool known = std::any_of(s.slo_classes.begin(), s.slo_classes.end(),
                                     [&](const SloClass& k) { return k.name == cl.slo_class; });
      if (!known) {
        std::vector<std::string> names;  // a few, each a short excerpt
        for (const auto& k : s.slo_classes) {
          if (names.size() == 5) {
            names.push_back("...");
            break;
          }
          names.push_back(quote_excerpt(k.name));
        }
        diags.push_back({ptr + "/slo_class",
                         quote_excerpt(cl.slo_class) +
                             " is not defined in /slo_classes (defined: " +
                             (names.empty() ? std::string("none") : rules::join(names)) + ")"});
      }
    }
    if (cl.lora > 0 && !lora_pool) {
      diags.push_back({ptr + "/lora",
                       std::to_string(cl.lora) +
                           ": requests a LoRA adapter but no pool sets engine.args.enable_lora"});
    }
    // Router epp reads it too (a sheddable request, a flow-control priority band).
    if (cl.priority != 0 && !priority_pool && s.router.policy != "epp") {
      diags.push_back({ptr + "/priority",
                       std::to_string(cl.priority) +
                           ": has no effect, every pool schedules fcfs "
                           "(engine.args.scheduling_policy \"priority\" uses it)",
                       Severity::kWarning});
    }
    if (cl.spec_acceptance && !spec_pool) {
      diags.push_back({ptr + "/spec_acceptance",
                       "has no effect: no pool sets engine.args.speculative_config",
                       Severity::kWarning});
    }
    // vLLM's frontend refuses a request longer than max_model_len (HTTP 400).
    std::optional<double> longest;
    if (auto p = upper_bound(cl.prompt_tokens), o = upper_bound(cl.output_tokens); p && o) {
      longest = *p + *o + (cl.prefix ? cl.prefix->tokens : 0);
    }
    if (cl.shared_prefix) {
      longest = double(cl.shared_prefix->system_prompt_tokens) + cl.shared_prefix->question_tokens +
                cl.shared_prefix->output_tokens;
    }
    if (longest && min_mml > 0 && *longest > static_cast<double>(min_mml)) {
      diags.push_back({ptr,
                       "requests of up to " + std::to_string(static_cast<std::int64_t>(*longest)) +
                           " tokens (prompt + output) exceed max_model_len " +
                           std::to_string(min_mml) + " of a pool; vLLM refuses them",
                       Severity::kWarning});
    }
  }
}

}  // namespace

Diagnostics check_cross_sections(const Scenario& s) {
  Diagnostics diags;
  check_pd_shape(s, diags);
  check_clients(s, diags);
  return diags;
}

namespace detail {

void check_cross_references(Scenario& s, DecodeContext& c) {
  for (auto& d : check_cross_sections(s)) c.diags.push_back(std::move(d));
  check_adapters(s, c);  // also resolves the adapters' workload-wide ids
}

}  // namespace detail
}  // namespace blis::scenario
