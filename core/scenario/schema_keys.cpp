#include "scenario/schema_keys.h"

#include "rules/rules.h"

namespace blis::scenario::keys {

const std::vector<std::string> kRoot = {"schema",      "name",    "seed",   "horizon",  "catalog",
                                        "pools",       "router",  "fabric", "workload", "slo",
                                        "slo_classes", "outputs", "network"};
const std::vector<std::string> kHorizon = {"duration_s", "max_requests", "drain"};
const std::vector<std::string> kCatalog = {"gpus", "models", "fabrics"};
const std::vector<std::string> kPool = {
    "name",        "role",   "instances",         "hardware", "model",
    "parallelism", "engine", "cost_per_gpu_hour", "labels",   "kv_pull_failure_rate"};
const std::vector<std::string> kParallelism = {"tp", "pp", "dp"};
const std::vector<std::string> kEngine = {"kind", "release", "memory_profile", "args"};
const std::vector<std::string> kRouter = {"policy", "scorers", "signal_staleness_ms", "epp_config"};
const std::vector<std::string> kScorer = {"name", "weight"};
const std::vector<std::string> kWorkload = {"clients", "trace_csv"};
const std::vector<std::string> kClient = {
    "name",          "load",      "prompt_tokens",   "output_tokens", "prefix",
    "shared_prefix", "trace",     "ignore_eos",      "priority",      "slo_class",
    "lora",          "timeout_s", "spec_acceptance", "adapters"};
const std::vector<std::string> kSpecAcceptance = {"acceptance_rate", "per_position"};
const std::vector<std::string> kAdapter = {"name", "rank", "share"};
const std::vector<std::string> kLoad = {"rate", "stages", "concurrency", "think_time_s", "arrival"};
const std::vector<std::string> kStage = {"rate", "duration_s"};
const std::vector<std::string> kArrival = {"process", "cv"};
const std::vector<std::string> kDist = {"dist", "value", "mean", "std", "min", "max"};
const std::vector<std::string> kPrefix = {"groups", "tokens"};
const std::vector<std::string> kSharedPrefix = {"system_prompts",       "users_per_prompt",
                                                "system_prompt_tokens", "question_tokens",
                                                "output_tokens",        "multi_turn"};
const std::vector<std::string> kTrace = {"path", "csv"};
const std::vector<std::string> kSlo = {"ttft_ms", "itl_ms", "e2e_ms"};
const std::vector<std::string> kSloClass = {"name", "ttft_ms", "itl_ms", "e2e_ms"};
const std::vector<std::string> kOutputs = {"timeseries_interval_ms", "per_request"};
const std::vector<std::string> kNetwork = {"gpus_per_node", "nic", "switch_hops", "placement"};

std::vector<ObjectKeys> all_objects() {
  return {{"(root)", kRoot},
          {"horizon", kHorizon},
          {"catalog", kCatalog},
          {"pools[]", kPool},
          {"pools[].parallelism", kParallelism},
          {"pools[].engine", kEngine},
          {"pools[].engine.args", rules::accepted_arg_keys()},
          {"pools[].engine.args.speculative_config", rules::accepted_speculative_keys()},
          {"pools[].engine.args.kv_transfer_config", rules::accepted_kv_transfer_keys()},
          {"router", kRouter},
          {"router.scorers[]", kScorer},
          {"workload", kWorkload},
          {"workload.clients[]", kClient},
          {"workload.clients[].spec_acceptance", kSpecAcceptance},
          {"workload.clients[].adapters[]", kAdapter},
          {"load", kLoad},
          {"load.stages[]", kStage},
          {"load.arrival", kArrival},
          {"length distribution", kDist},
          {"prefix", kPrefix},
          {"shared_prefix", kSharedPrefix},
          {"trace", kTrace},
          {"slo", kSlo},
          {"slo_classes[]", kSloClass},
          {"outputs", kOutputs},
          {"network", kNetwork}};
}

}  // namespace blis::scenario::keys
