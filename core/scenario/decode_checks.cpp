// Rules that span sections: the shape of a prefill/decode deployment, references from
// clients to SLO classes and LoRA-enabled pools, and request lengths against max_model_len.

#include <algorithm>

#include "scenario/decode_internal.h"
#include "util/text.h"

namespace blis::scenario::detail {

namespace {

void check_pd_shape(Scenario& s, DecodeContext& c) {
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
    c.diags.push_back(
        {"/pools",
         "a prefill/decode deployment has exactly one prefill and one decode pool and no "
         "unified pool (found " +
             std::to_string(prefill) + " prefill, " + std::to_string(decode) + " decode, " +
             std::to_string(unified) + " unified)"});
    return;
  }
  if (s.fabric.empty()) {
    c.diags.push_back(
        {"/fabric",
         "missing: a prefill/decode deployment needs the fabric its KV transfers cross "
         "(e.g. \"nvlink4\", \"ib-ndr\")"});
  }
  const auto pi = std::find_if(s.pools.begin(), s.pools.end(),
                               [](const Pool& p) { return p.role == "prefill"; });
  const auto di = std::find_if(s.pools.begin(), s.pools.end(),
                               [](const Pool& p) { return p.role == "decode"; });
  if (pi->model != di->model) {
    c.diags.push_back({"/pools/" + std::to_string(di - s.pools.begin()) + "/model",
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

void check_clients(Scenario& s, DecodeContext& c) {
  const bool lora_pool = std::any_of(s.pools.begin(), s.pools.end(),
                                     [](const Pool& p) { return p.engine.args.enable_lora; });
  const bool priority_pool = std::any_of(s.pools.begin(), s.pools.end(), [](const Pool& p) {
    return p.engine.args.scheduling_policy == "priority";
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
        c.diags.push_back({ptr + "/slo_class",
                           quote_excerpt(cl.slo_class) +
                               " is not defined in /slo_classes (defined: " +
                               (names.empty() ? std::string("none") : rules::join(names)) + ")"});
      }
    }
    if (cl.lora > 0 && !lora_pool) {
      c.diags.push_back({ptr + "/lora",
                         std::to_string(cl.lora) +
                             ": requests a LoRA adapter but no pool sets engine.args.enable_lora"});
    }
    if (cl.priority != 0 && !priority_pool) {
      c.diags.push_back({ptr + "/priority",
                         std::to_string(cl.priority) +
                             ": has no effect, every pool schedules fcfs "
                             "(engine.args.scheduling_policy \"priority\" uses it)",
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
      c.diags.push_back({ptr,
                         "requests of up to " +
                             std::to_string(static_cast<std::int64_t>(*longest)) +
                             " tokens (prompt + output) exceed max_model_len " +
                             std::to_string(min_mml) + " of a pool; vLLM refuses them",
                         Severity::kWarning});
    }
  }
}

}  // namespace

void check_cross_references(Scenario& s, DecodeContext& c) {
  check_pd_shape(s, c);
  check_clients(s, c);
  check_adapters(s, c);
}

}  // namespace blis::scenario::detail
