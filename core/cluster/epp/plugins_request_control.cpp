// The registry's request-control, request-handling and data-layer plugins (plugins.h): what
// runs around scheduling in llm-d's EPP (admitters, pre-request header handlers, data
// producers, data sources and extractors, request parsers). The simulator is its own data
// layer and its requests are generated, not parsed, so most of these load and have no effect;
// the admitters that read only the endpoints' signals run.

#include "cluster/epp/plugins.h"

namespace blis::cluster::epp {
namespace {

using K = PluginKind;
using S = Support;
using T = ParamType;

const std::string kRc = "pkg/epp/framework/plugins/requestcontrol/";
const std::string kDl = "pkg/epp/framework/plugins/datalayer/";
const std::string kParsers = "pkg/epp/framework/plugins/requesthandling/parsers/";

}  // namespace

std::vector<PluginInfo> request_control_plugins() {
  const std::string disagg = "pkg/epp/framework/plugins/scheduling/profilehandler/disagg/";
  const std::vector<ParamInfo> headers_params = {
      {"prefillProfile", T::kString, "prefill", false, {}},
      {"encodeProfile", T::kString, "encode", false, {}}};
  const std::string headers_rule =
      "PreRequest: sets the prefill (x-prefiller-host-port) and encode disaggregation headers "
      "from the profile results (deprecated: disagg-profile-handler does it natively)";
  // tokenizer.go: the token producer's parameters (the legacy "tokenizer" type takes the same).
  const std::vector<ParamInfo> tokenizer_params = {
      {"modelName", T::kString, "", false, {}},
      {"vllm", T::kObject, "", false, {}},
      {"udsTokenizerConfig", T::kObject, "", false, {}}};
  const std::string headers_note =
      "the P/D proxy hands a disaggregated request to its prefill endpoint itself";
  return {
      // ---- admission (director.go runAdmissionPlugins: after the admission controller,
      // before scheduling, over every candidate endpoint)
      {"probabilistic-admitter",
       K::kAdmitter,
       S::kSupported,
       {{"queueDepthThreshold", T::kInt, "5", true, {}},
        {"kvCacheUtilThreshold", T::kNumber, "0.8", true, {}},
        {"power", T::kNumber, "5", true, {}},
        {"k", T::kNumber, "300", true, {}}},
       kRc + "admitter/probabilisticadmitter/plugin.go",
       "a sheddable request (priority < 0) is rejected with probability min(sat^power x k, 1), "
       "sat = mean over endpoints of max(waiting / queueDepthThreshold, KV usage / "
       "kvCacheUtilThreshold); other requests are admitted",
       "sheddable = client priority > 0 (see Admission); the draw uses the router's stream; a "
       "rejection counts as rejected (upstream: HTTP 500, request cannot be admitted)"},
      {"latency-slo-admitter",
       K::kAdmitter,
       S::kNotExpressible,
       {},
       kRc + "admitter/latencyslo/plugin.go",
       "admits by the latency predictor's headroom against the request's SLO headers",
       "needs the external latency-predictor service"},
      // ---- pre-request header handlers (deprecated aliases kept by register.go)
      {"disagg-headers-handler", K::kOther, S::kAccepted, headers_params,
       disagg + "disagg_headers_handler.go", headers_rule, headers_note},
      {"prefill-header-handler", K::kOther, S::kAccepted, headers_params,
       disagg + "disagg_headers_handler.go",
       headers_rule + " (an older name of disagg-headers-handler)", headers_note},
      // ---- the data layer and request handling: the simulator is its own data layer
      {"metrics-data-source",
       K::kDataLayer,
       S::kAccepted,
       {},
       kDl + "source/metrics/datasource.go",
       "scrapes the model servers' /metrics",
       "the signal board"},
      {"core-metrics-extractor",
       K::kDataLayer,
       S::kAccepted,
       {},
       kDl + "extractor/metrics/extractor.go",
       "maps vllm:* metrics onto endpoint attributes",
       "the signal board"},
      {"models-data-source",
       K::kDataLayer,
       S::kAccepted,
       {{"scheme", T::kString, "http", false, {}},
        {"path", T::kString, "/v1/models", false, {}},
        {"insecureSkipVerify", T::kBool, "false", false, {}}},
       kDl + "source/models/datasource.go",
       "polls the model servers' /v1/models",
       "every endpoint serves its pool's model and adapters"},
      {"models-data-extractor",
       K::kDataLayer,
       S::kAccepted,
       {},
       kDl + "extractor/models/extractor.go",
       "maps /v1/models onto endpoint attributes",
       "every endpoint serves its pool's model and adapters"},
      {"endpoint-notification-source",
       K::kDataLayer,
       S::kAccepted,
       {},
       kDl + "source/notifications/endpoint_datasource.go",
       "endpoint add / remove notifications",
       "instances are fixed for a run"},
      {"approx-prefix-cache-producer",
       K::kDataLayer,
       S::kApproximated,
       {{"blockSizeTokens", T::kInt, "16", false, {}},
        {"blockSize", T::kInt, "(deprecated blockSizeTokens)", false, {}},
        {"autoTune", T::kBool, "true", true, {}},
        {"maxPrefixBlocksToMatch", T::kInt, "256", true, {}},
        {"maxPrefixTokensToMatch", T::kInt, "0", false, {}},
        {"lruCapacityPerServer", T::kInt, "31250", true, {}}},
       kRc + "dataproducer/approximateprefix/plugin.go; " + kRc +
           "dataproducer/approximateprefix/types.go",
       "the approximate prefix index prefix-cache-scorer reads (PrefixCacheMatchInfo): chained "
       "block hashes of what was routed where, a per-server LRU; created with its defaults when "
       "a config has a prefix-cache-scorer and no producer (CreateMissingDataProducers)",
       "its parameters set the router's index (the first producer's, else the defaults); "
       "hashes token ids in blocks of the engine's block size (upstream hashes 4 characters per "
       "token); autoTune: LRU capacity = the instance's GPU KV blocks, else "
       "lruCapacityPerServer; maxPrefixBlocksToMatch is capped at 256"},
      {"token-producer", K::kDataLayer, S::kAccepted, tokenizer_params,
       kRc + "dataproducer/tokenizer/tokenizer.go", "tokenizes prompts for precise prefix scoring",
       "requests carry token ids"},
      {"tokenizer", K::kDataLayer, S::kAccepted, tokenizer_params,
       kRc + "dataproducer/tokenizer/tokenizer.go",
       "the older name of token-producer (LegacyPluginType)", "requests carry token ids"},
      {"inflight-load-producer",
       K::kDataLayer,
       S::kAccepted,
       {},
       kRc + "dataproducer/inflightload/producer.go",
       "counts requests and tokens in flight per endpoint",
       "the router counts its own"},
      {"predicted-latency-producer",
       K::kDataLayer,
       S::kNotExpressible,
       {},
       kRc + "dataproducer/predictedlatency/plugin.go",
       "asks the latency predictor for each endpoint's TTFT / TPOT",
       "needs the external latency-predictor service"},
      {"request-attribute-reporter",
       K::kDataLayer,
       S::kAccepted,
       {{"attributes", T::kAny, "", false, {}}},
       kRc + "requestattributereporter/plugin.go",
       "reports CEL expressions over the response's usage to the proxy as dynamic metadata",
       "the simulator has no proxy to report to; results.json carries the usage"},
      {"openai-parser",
       K::kDataLayer,
       S::kAccepted,
       {},
       kParsers + "openai/openai.go",
       "parses OpenAI request bodies",
       "requests are generated, not parsed"},
      {"passthrough-parser",
       K::kDataLayer,
       S::kAccepted,
       {},
       kParsers + "passthrough/passthrough.go",
       "passes request bodies through unparsed",
       "requests are generated, not parsed"},
      {"vllmgrpc-parser",
       K::kDataLayer,
       S::kAccepted,
       {},
       kParsers + "vllmgrpc/vllmgrpc.go",
       "parses vLLM's gRPC requests",
       "requests are generated, not parsed"},
      {"vertexai-parser",
       K::kDataLayer,
       S::kAccepted,
       {},
       kParsers + "vertexai/vertexai.go",
       "parses Vertex AI requests",
       "requests are generated, not parsed"},
  };
}

}  // namespace blis::cluster::epp
