#include "cluster/epp/plugins.h"

#include <utility>

namespace blis::cluster::epp {
namespace {

using K = PluginKind;
using S = Support;
using T = ParamType;

const std::string kSched = "pkg/epp/framework/plugins/scheduling/";
const std::string kFlow = "pkg/epp/framework/plugins/flowcontrol/";

std::vector<PluginInfo> build() {
  const ParamInfo max_endpoints{"maxNumOfEndpoints", T::kInt, "1", false, {}};
  return {
      // ---- scorers
      {"prefix-cache-scorer",
       K::kScorer,
       S::kApproximated,
       {},
       kSched + "scorer/prefix/plugin.go",
       "matched leading blocks / prompt blocks, from the PrefixCacheMatchInfo the "
       "approx-prefix-cache-producer computes (its factory ignores any parameters)",
       "the router's approximate index, set by the approx-prefix-cache-producer plugin's "
       "parameters (its defaults when the config has none, as upstream creates it)"},
      {"precise-prefix-cache-scorer",
       K::kScorer,
       S::kSupported,
       {{"tokenProcessorConfig", T::kObject, "", false, {}},
        {"indexerConfig", T::kObject, "", false, {}},
        {"kvEventsConfig", T::kObject, "", false, {}}},
       kSched + "scorer/preciseprefixcache/precise_prefix_cache.go",
       "matched leading blocks / prompt blocks, from an index fed by the engines' KV events "
       "(BlockStored / BlockRemoved)",
       "the engines publish BlockStored / BlockRemoved as their block pools cache and evict "
       "blocks; events arrive without delay; block size and hashes are the engine's own"},
      {"kv-cache-utilization-scorer",
       K::kScorer,
       S::kSupported,
       {},
       kSched + "scorer/kvcacheutilization/kvcache_utilization.go",
       "1 - vllm:kv_cache_usage_perc",
       "reads the signal board (router.signal_staleness_ms behind)"},
      {"queue-scorer",
       K::kScorer,
       S::kSupported,
       {},
       kSched + "scorer/queuedepth/queue.go",
       "(max_q - q) / (max_q - min_q) over the candidates, 1 when all equal; q = "
       "vllm:num_requests_waiting",
       "reads the signal board"},
      {"running-requests-size-scorer",
       K::kScorer,
       S::kSupported,
       {},
       kSched + "scorer/runningrequests/runningrequest.go",
       "(max_r - r) / (max_r - min_r), 1 when all equal; r = vllm:num_requests_running",
       "reads the signal board"},
      {"load-aware-scorer",
       K::kScorer,
       S::kSupported,
       {{"threshold", T::kInt, "128", true, {}}},
       kSched + "scorer/loadaware/load_aware.go",
       "0.5 with an empty queue, else 0.5 * (1 - min(q, threshold) / threshold)",
       "reads the signal board; threshold <= 0 falls back to 128 as upstream"},
      {"active-request-scorer",
       K::kScorer,
       S::kSupported,
       {{"requestTimeout", T::kDuration, "", false, {}},
        {"idleThreshold", T::kInt, "0", true, {}},
        {"maxBusyScore", T::kNumber, "1", true, {}}},
       kSched + "scorer/activerequest/active_request.go",
       "1 when in-flight <= idleThreshold, else (max - n) / max * maxBusyScore; n = requests "
       "the EPP sent and that have not finished",
       "in-flight counts are the router's own (exact, no staleness); requestTimeout is "
       "deprecated upstream and ignored"},
      {"lora-affinity-scorer",
       K::kScorer,
       S::kApproximated,
       {},
       kSched + "scorer/loraaffinity/lora_affinity.go",
       "1 if the adapter is active, 0.8 if active + waiting adapters < max_lora, 0.6 if it is "
       "waiting, else 0",
       "active = adapters in the instance's GPU LoRA slots (vLLM's worker LRU), waiting = "
       "adapters of requests routed there and not yet scheduled; max_lora = max_loras; a dense "
       "dp > 1 instance: the union of its ranks' adapters (vLLM logs one lora_requests_info "
       "series per rank, without an engine label), or with data-parallel-profile-handler each "
       "rank endpoint's own"},
      {"session-affinity-scorer",
       K::kScorer,
       S::kSupported,
       {},
       kSched + "scorer/sessionaffinity/session_affinity.go",
       "1 for the endpoint named by the request's x-session-token (set on the session's "
       "previous response), else 0",
       "a session is the workload's multi-turn / closed-loop user; its token is the instance "
       "that served its last finished turn"},
      {"no-hit-lru-scorer",
       K::kScorer,
       S::kSupported,
       {{"prefixPluginType", T::kString, "prefix-cache-scorer", true, {}},
        {"prefixPluginName", T::kString, "prefix-cache-scorer", true, {}},
        {"lruSize", T::kInt, "1024", true, {}}},
       kSched + "scorer/nohitlru/no_hit_lru.go",
       "cold requests (no prefix hit anywhere): never-used endpoints first, then least "
       "recently used; 0.5 for all when some endpoint has a hit",
       "reads the named prefix plugin's match on the same request"},
      {"token-load-scorer",
       K::kScorer,
       S::kApproximated,
       {{"queueThresholdTokens", T::kInt, "4194304", true, {}}},
       kSched + "scorer/tokenload/token_load.go; "
                "pkg/epp/framework/plugins/requestcontrol/dataproducer/inflightload/",
       "1 with no tokens in flight, else 1 - min(t, queueThresholdTokens) / "
       "queueThresholdTokens; t = the in-flight-load producer's tokens on the endpoint, each "
       "request counting input + round(1.5 x input) from PreRequest until its response ends "
       "(a P/D prefill endpoint: until the first token)",
       "in-flight tokens are the router's own counts; input = the prompt's exact token count "
       "(upstream estimates it from the body, bytes / 4); queueThresholdTokens <= 0 falls back "
       "to the default as upstream"},
      {"context-length-aware",
       K::kScorer,
       S::kSupported,
       {{"label", T::kString, "llm-d.ai/context-length-range", true, {}},
        {"enableFiltering", T::kBool, "false", true, {}}},
       kSched + "scorer/contextlengthaware/context_length_aware.go",
       "endpoints label a \"min-max\" token range: in range 0.3 + 0.7 x (0.7 / (1 + width / "
       "10000) + 0.3 x (max - n) / width) (1 for a zero-width range), out of range 0.3 / (1 + "
       "distance / 1000), unlabelled 0.5, unparsable 0; with enableFiltering it is also a filter "
       "keeping in-range and unlabelled endpoints; n = the prompt's tokens",
       "labels are the pool's pools[].labels; n is the prompt's exact token count (upstream's "
       "tokenized-prompt path)"},
      {"latency-scorer",
       K::kScorer,
       S::kNotExpressible,
       {},
       kSched + "scorer/latency/plugin.go",
       "scores by a trained latency predictor's TTFT / TPOT predictions",
       "needs the external latency-predictor service"},
      // ---- filters
      {"decode-filter",
       K::kFilter,
       S::kSupported,
       {},
       kSched + "filter/bylabel/roles.go",
       "keeps endpoints whose llm-d.ai/role is decode, prefill-decode, both or "
       "encode-prefill-decode, and endpoints without the label",
       "a pool's role is its label: decode -> decode, prefill -> prefill, unified -> no label"},
      {"prefill-filter",
       K::kFilter,
       S::kSupported,
       {},
       kSched + "filter/bylabel/roles.go",
       "keeps endpoints whose llm-d.ai/role is prefill, encode-prefill, prefill-decode, both or "
       "encode-prefill-decode (unlabelled endpoints are dropped)",
       "prefill pools pass, unified and decode pools do not"},
      {"lora-affinity-filter",
       K::kFilter,
       S::kApproximated,
       {{"threshold", T::kNumber, "0.999", true, {}}},
       "kubernetes-sigs/gateway-api-inference-extension at 654199f3^ (removed there by "
       "\"Deprecate legacy filters\", #1305): "
       "pkg/epp/scheduling/framework/plugins/filter/lora_affinity_filter.go",
       "affinity group = endpoints with the adapter active or waiting; available = endpoints "
       "with a free adapter slot; both non-empty: the affinity group with probability "
       "threshold, else the available group; else whichever is non-empty (none: no endpoint)",
       "active / waiting / max_lora as for lora-affinity-scorer; the draw uses the router's "
       "stream; no endpoint left rejects the request (upstream: 503)"},
      {"encode-filter",
       K::kFilter,
       S::kSupported,
       {},
       kSched + "filter/bylabel/roles.go",
       "keeps endpoints whose llm-d.ai/role is encode, encode-prefill or encode-prefill-decode "
       "(multimodal E/P/D)",
       "the simulator's pools are unified, prefill or decode, so it keeps none"},
      {"by-label",
       K::kFilter,
       S::kSupported,
       {{"label", T::kString, "", true, {}},
        {"validValues", T::kStringList, "[]", true, {}},
        {"allowsNoLabel", T::kBool, "false", true, {}}},
       kSched + "filter/bylabel/filter.go",
       "keeps endpoints whose label has one of validValues, and (allowsNoLabel) those without "
       "the label (deprecated: label-selector-filter or the role filters)",
       "labels are the pools' labels and llm-d.ai/role from the pool's role"},
      {"label-selector-filter",
       K::kFilter,
       S::kSupported,
       {{"matchLabels", T::kObject, "{}", true, {}},
        {"matchExpressions", T::kSelector, "[]", true, {}}},
       kSched + "filter/bylabel/selector.go",
       "keeps endpoints whose labels match a Kubernetes label selector (matchLabels equal; "
       "matchExpressions In, NotIn, Exists, DoesNotExist; all must hold; empty matches all)",
       "an endpoint's labels are its pool's pools[].labels plus llm-d.ai/role (prefill / "
       "decode pools)"},
      {"by-label-selector",
       K::kFilter,
       S::kSupported,
       {{"matchLabels", T::kObject, "{}", true, {}},
        {"matchExpressions", T::kSelector, "[]", true, {}}},
       kSched + "filter/bylabel/selector.go",
       "deprecated alias of label-selector-filter",
       "as label-selector-filter"},
      {"prefix-cache-affinity-filter",
       K::kFilter,
       S::kNotExpressible,
       {},
       kSched + "filter/prefixcacheaffinity/plugin.go",
       "keeps endpoints above a prefix-match / latency-headroom gate",
       "depends on the latency predictor"},
      {"slo-headroom-tier-filter",
       K::kFilter,
       S::kNotExpressible,
       {},
       kSched + "filter/sloheadroomtier/plugin.go",
       "keeps the endpoints of the best tier of predicted SLO headroom",
       "depends on the latency predictor"},
      // ---- pickers
      {"max-score-picker",
       K::kPicker,
       S::kSupported,
       {max_endpoints},
       kSched + "picker/maxscore/picker.go",
       "shuffle, then stable sort by score: the highest score wins, ties at random",
       "the shuffle draws from the router's stream (seeded from the scenario seed); one "
       "endpoint is used (maxNumOfEndpoints > 1 only adds fallbacks upstream)"},
      {"random-picker",
       K::kPicker,
       S::kSupported,
       {max_endpoints},
       kSched + "picker/random/picker.go",
       "a uniformly random candidate",
       "draws from the router's stream"},
      {"weighted-random-picker",
       K::kPicker,
       S::kSupported,
       {max_endpoints},
       kSched + "picker/weightedrandom/picker.go",
       "A-Res weighted sampling: key = U^(1/score), highest key wins; all scores 0 -> random",
       "draws from the router's stream"},
      // ---- profile handlers and deciders
      {"single-profile-handler",
       K::kProfileHandler,
       S::kSupported,
       {},
       kSched + "profilehandler/single/single_profile_handler.go",
       "runs the one scheduling profile",
       "the default when the config has one profile and no handler, as upstream"},
      {"disagg-profile-handler",
       K::kProfileHandler,
       S::kSupported,
       {{"profiles",
         T::kObject,
         "{decode: decode, prefill: prefill, encode: encode}",
         true,
         {"decode", "prefill", "encode"}},
        {"deciders", T::kObject, "{}", true, {"prefill", "encode"}},
        {"decodeProfile", T::kString, "decode", true, {}},
        {"prefillProfile", T::kString, "prefill", true, {}},
        {"encodeProfile", T::kString, "encode", false, {}},
        {"deciderPluginName", T::kString, "", true, {}},
        {"prefillDeciderPluginName", T::kString, "", true, {}},
        {"encodeDeciderPluginName", T::kString, "", false, {}}},
       kSched + "profilehandler/disagg/disagg_profile_handler.go",
       "runs the decode profile; then, if its prefill decider says so for the chosen decode "
       "endpoint, the prefill profile (no decider: never disaggregate)",
       "with a prefill target the request goes P -> D over the P/D proxy; without, straight to "
       "the decode instance, which prefills it itself"},
      {"pd-profile-handler",
       K::kProfileHandler,
       S::kSupported,
       {{"decodeProfile", T::kString, "decode", true, {}},
        {"prefillProfile", T::kString, "prefill", true, {}},
        {"prefixPluginType", T::kString, "prefix-cache-scorer", false, {}},
        {"prefixPluginName", T::kString, "prefix-cache-scorer", false, {}},
        {"primaryPort", T::kInt, "0", false, {}},
        {"deciderPluginName", T::kString, "prefix-based-pd-decider", true, {}}},
       kSched + "profilehandler/disagg/pd_profile_handler.go",
       "deprecated alias of disagg-profile-handler with flat parameters",
       "as disagg-profile-handler"},
      {"data-parallel-profile-handler",
       K::kProfileHandler,
       S::kSupported,
       {{"primaryPort", T::kInt, "8000", false, {}}},
       kSched + "profilehandler/dataparallel/dp_profile_handler.go",
       "exactly one scheduling profile; every DP rank is an endpoint (address:port of the "
       "rank); the profile picks a rank, the x-data-parallel-host-port header names it and the "
       "request goes to primaryPort (1..65535; 0 unchecked), where the named rank serves it",
       "endpoints are the (instance, rank) pairs of dp > 1 pools (dp 1 instances stay one "
       "endpoint), each with its own signals (queue, running, KV usage, in-flight counts, "
       "prefix index, LoRA adapters); the chosen rank gets the request as vLLM's "
       "data_parallel_rank (X-data-parallel-rank), bypassing its internal DP load balancer; "
       "more than one profile is an error at load (upstream: the request fails); primaryPort "
       "is validated, no effect (no ports)"},
      {"prefix-based-pd-decider",
       K::kDecider,
       S::kSupported,
       {{"nonCachedTokens", T::kInt, "0", true, {}}},
       kSched + "profilehandler/disagg/prefix_based_pd_decider.go",
       "disaggregate when nonCachedTokens > 0, the prompt has >= nonCachedTokens tokens and "
       "prompt - (matched blocks x block size) >= nonCachedTokens on the decode endpoint",
       "the prompt's token count is exact (upstream estimates 4 characters per token); the "
       "match is the profile's prefix scorer's on the chosen decode instance"},
      {"always-disagg-pd-decider",
       K::kDecider,
       S::kSupported,
       {},
       kSched + "profilehandler/disagg/always_disagg_pd_decider.go",
       "always disaggregate",
       ""},
      {"always-disagg-multimodal-decider",
       K::kDecider,
       S::kSupported,
       {},
       kSched + "profilehandler/disagg/always_disagg_mm_decider.go",
       "disaggregate (run the encode profile) when the request has multimodal content",
       "simulated requests are text only, so it never disaggregates"},
      // ---- saturation detection (admission)
      {"utilization-detector",
       K::kSaturationDetector,
       S::kSupported,
       {{"queueDepthThreshold", T::kInt, "5", true, {}},
        {"kvCacheUtilThreshold", T::kNumber, "0.8", true, {}},
        {"metricsStalenessThreshold", T::kDuration, "200ms", true, {}},
        {"headroom", T::kNumber, "0", true, {}}},
       kFlow + "saturationdetector/utilization/detector.go; pkg/epp/requestcontrol/admission.go",
       "saturation = mean over endpoints of max(q / queueDepthThreshold, kv / "
       "kvCacheUtilThreshold), 1 for an endpoint whose metrics are older than "
       "metricsStalenessThreshold; without flow control a sheddable request (priority < 0) "
       "is rejected when saturation >= 1 (LegacyAdmissionController); with it, the flow "
       "controller dispatches only while saturation < the usage limit",
       "the default detector, as upstream; staleness = router.signal_staleness_ms; rejected "
       "requests count as rejected in the results (HTTP 429 upstream)"},
      {"concurrency-detector",
       K::kSaturationDetector,
       S::kSupported,
       {{"maxConcurrency", T::kInt, "100", true, {}},
        {"headroom", T::kNumber, "0", true, {}},
        {"concurrencyMode", T::kString, "requests", true, {}},
        {"maxTokenConcurrency", T::kInt, "1000000", true, {}}},
       kFlow + "saturationdetector/concurrency/detector.go",
       "saturation = in-flight requests / (endpoints x maxConcurrency), or with "
       "concurrencyMode tokens in-flight tokens / (endpoints x maxTokenConcurrency); as a "
       "filter it keeps endpoints under the limit",
       "in-flight requests and tokens are the router's own counts (tokens as for "
       "token-load-scorer)"},
      // ---- flow control (featureGates: [flowControl]): the policies bands name
      {"global-strict-fairness-policy",
       K::kFlowPolicy,
       S::kSupported,
       {},
       kFlow + "fairness/globalstrict/global_strict.go",
       "within a band, the flow whose head request the ordering policy ranks first (the "
       "default fairness policy)",
       "a flow is the request's workload client (its fairness ID); equal heads go to the "
       "earlier enqueued"},
      {"round-robin-fairness-policy",
       K::kFlowPolicy,
       S::kSupported,
       {},
       kFlow + "fairness/roundrobin/roundrobin.go",
       "within a band, flows in turn (sorted by ID), starting after the last one picked",
       "a flow is the request's workload client"},
      {"fcfs-ordering-policy",
       K::kFlowPolicy,
       S::kSupported,
       {},
       kFlow + "ordering/fcfs/fcfs.go",
       "within a flow, the earliest enqueued request first (the default ordering policy)",
       "as upstream"},
      {"edf-ordering-policy",
       K::kFlowPolicy,
       S::kSupported,
       {},
       kFlow + "ordering/edf/edf.go",
       "earliest deadline (enqueue time + TTL) first, FCFS on ties",
       "every request has the same TTL (defaultRequestTTL), so it orders as FCFS, as upstream "
       "does then"},
      {"slo-deadline-ordering-policy",
       K::kFlowPolicy,
       S::kApproximated,
       {},
       kFlow + "ordering/slodeadline/slo_deadline.go",
       "earliest received + x-slo-ttft-ms header first; requests without the header after, "
       "FCFS",
       "simulated requests carry no x-slo-ttft-ms header, so it orders as FCFS"},
      {"static-usage-limit-policy",
       K::kFlowPolicy,
       S::kSupported,
       {{"threshold", T::kNumber, "1.0", true, {}}},
       kFlow + "usagelimits/usagelimitpolicy.go; " + kFlow + "usagelimits/README.md",
       "every band's usage ceiling is threshold, in (0, 1]: a dispatch cycle stops when "
       "saturation >= it (the default usage-limit policy)",
       "as upstream"},
  };
}

}  // namespace

const std::vector<PluginInfo>& plugin_registry() {
  static const std::vector<PluginInfo> r = [] {
    std::vector<PluginInfo> all = build();
    for (PluginInfo& p : request_control_plugins()) all.push_back(std::move(p));
    return all;
  }();
  return r;
}

const PluginInfo* find_plugin(const std::string& type) {
  for (const PluginInfo& p : plugin_registry())
    if (p.type == type) return &p;
  return nullptr;
}

std::vector<std::string> plugin_types() {
  std::vector<std::string> out;
  for (const PluginInfo& p : plugin_registry()) out.push_back(p.type);
  return out;
}

const char* kind_name(PluginKind k) {
  switch (k) {
    case K::kFilter:
      return "filter";
    case K::kScorer:
      return "scorer";
    case K::kPicker:
      return "picker";
    case K::kProfileHandler:
      return "profile handler";
    case K::kDecider:
      return "P/D decider";
    case K::kSaturationDetector:
      return "saturation detector";
    case K::kFlowPolicy:
      return "flow-control policy";
    case K::kAdmitter:
      return "admitter";
    case K::kDataLayer:
      return "data layer";
    case K::kOther:
      return "other";
  }
  return "other";
}

const char* support_name(Support s) {
  switch (s) {
    case S::kSupported:
      return "supported";
    case S::kApproximated:
      return "approximated";
    case S::kAccepted:
      return "accepted, no effect";
    case S::kNotExpressible:
      return "not expressible";
  }
  return "";
}

namespace {

std::string escape_cell(const std::string& s) {
  std::string o;
  for (const char c : s) {
    if (c == '|')
      o += "\\|";
    else
      o += c;
  }
  return o;
}

std::string params_cell(const PluginInfo& p) {
  if (p.params.empty()) return "—";
  std::string o;
  for (const ParamInfo& q : p.params) {
    if (!o.empty()) o += ", ";
    o += "`" + q.name + "`";
    if (!q.default_text.empty()) o += " (" + q.default_text + ")";
    if (!q.used) o += " *ignored*";
  }
  return escape_cell(o);
}

}  // namespace

std::string parity_markdown() {
  std::string o = std::string(kParityBegin) + "\n";
  o += "Upstream: `" + std::string(kUpstreamRepo) + "` at `" + kUpstreamCommit + "`.\n\n";
  o += "| Plugin type | Kind | Status | Parameters (default) | Upstream rule | In the simulator | "
       "Upstream source |\n";
  o += "|---|---|---|---|---|---|---|\n";
  for (const PluginInfo& p : plugin_registry()) {
    o += "| `" + p.type + "` | " + kind_name(p.kind) + " | " + support_name(p.support) + " | " +
         params_cell(p) + " | " + escape_cell(p.rule) + " | " +
         escape_cell(p.note.empty() ? "as upstream" : p.note) + " | `" + escape_cell(p.source) +
         "` |\n";
  }
  o += std::string(kParityEnd) + "\n";
  return o;
}

}  // namespace blis::cluster::epp
