// Bad scenario documents, table-driven: each case is a valid base document changed by a
// JSON Patch (or raw text for malformed JSON), and the pointer + message it must produce.

#include <gtest/gtest.h>

#include "documents.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

enum class Base { kUnified, kPd, kRaw };

struct BadCase {
  const char* name;
  Base base;
  const char* text;  // JSON Patch ops (kUnified/kPd) or the whole document (kRaw)
  const char* pointer;
  const char* message;
  Severity severity = Severity::kError;
};

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

std::string deep_nesting(int levels) {
  std::string s = "{\"schema\": ";
  for (int i = 0; i < levels; ++i) s += "[";
  for (int i = 0; i < levels; ++i) s += "]";
  return s + "}";
}

const std::vector<BadCase>& cases() {
  static const std::vector<BadCase> all = {
      // --- malformed JSON: line and column ---
      {"truncated", Base::kRaw, "{\"schema\": \"blis/scenario/v1\",\n  \"pools\": [", "",
       "malformed JSON at line 2, column 13: syntax error while parsing value - unexpected end of "
       "input"},
      {"trailing_comma", Base::kRaw, "{\"schema\": \"x\",}", "",
       "malformed JSON at line 1, column 16"},
      {"single_quotes", Base::kRaw, "{'schema': 1}", "", "malformed JSON at line 1, column 2"},
      {"empty_text", Base::kRaw, "", "", "malformed JSON at line 1, column 1"},
      {"nan_literal", Base::kRaw, "{\"seed\": NaN}", "", "malformed JSON at line 1, column 10"},
      {"not_json", Base::kRaw, "hello", "", "malformed JSON at line 1, column 1"},
      {"error_on_line_3", Base::kRaw, "{\n  \"a\": 1,\n  \"b\" 2\n}", "",
       "malformed JSON at line 3, column 7"},
      {"number_overflow", Base::kRaw, "{\"seed\": 1e400}", "", "malformed JSON at line 1"},
      {"bad_utf8", Base::kRaw, "{\"name\": \"\xff\"}", "", "malformed JSON at line 1"},
      {"two_documents", Base::kRaw, "{} {}", "", "malformed JSON at line 1, column 4"},
      // --- root ---
      {"root_array", Base::kRaw, "[1, 2]", "",
       "[1,2] is an array, expected an object (a blis/scenario/v1 document)"},
      {"schema_missing", Base::kUnified, R"([{"op": "remove", "path": "/schema"}])", "/schema",
       "missing, expected \"blis/scenario/v1\""},
      {"schema_v2", Base::kUnified,
       R"([{"op": "replace", "path": "/schema", "value": "blis/scenario/v2"}])", "/schema",
       "\"blis/scenario/v2\" is not a schema this build reads, expected \"blis/scenario/v1\""},
      {"root_unknown_key", Base::kUnified, R"([{"op": "add", "path": "/pool", "value": []}])",
       "/pool", "unknown key; did you mean \"pools\"?"},
      {"seed_negative", Base::kUnified, R"([{"op": "replace", "path": "/seed", "value": -1}])",
       "/seed", "-1 is out of range, expected an integer in [0, 18446744073709551615]"},
      {"seed_string", Base::kUnified, R"([{"op": "replace", "path": "/seed", "value": "42"}])",
       "/seed", "\"42\" is a string, expected an integer"},
      {"seed_fraction", Base::kUnified, R"([{"op": "replace", "path": "/seed", "value": 1.5}])",
       "/seed", "1.5 is out of range"},
      {"name_number", Base::kUnified, R"([{"op": "replace", "path": "/name", "value": 3}])",
       "/name", "3 is an integer, expected a string"},
      {"horizon_missing", Base::kUnified, R"([{"op": "remove", "path": "/horizon"}])", "/horizon",
       "missing"},
      {"pools_missing", Base::kUnified, R"([{"op": "remove", "path": "/pools"}])", "/pools",
       "missing, expected a non-empty array of pools"},
      {"workload_missing", Base::kUnified, R"([{"op": "remove", "path": "/workload"}])",
       "/workload", "missing"},
      {"nesting_too_deep", Base::kRaw, nullptr, "",
       "nesting deeper than 64 levels at line 1, column 75"},
      // --- horizon ---
      {"duration_zero", Base::kUnified,
       R"([{"op": "replace", "path": "/horizon/duration_s", "value": 0}])", "/horizon/duration_s",
       "0 is out of range, expected a number of seconds > 0"},
      {"duration_string", Base::kUnified,
       R"([{"op": "replace", "path": "/horizon/duration_s", "value": "60"}])",
       "/horizon/duration_s", "\"60\" is a string, expected a number of seconds > 0"},
      {"horizon_empty", Base::kUnified,
       R"([{"op": "replace", "path": "/horizon", "value": {"drain": false}}])", "/horizon",
       "needs duration_s or max_requests"},
      {"max_requests_zero", Base::kUnified,
       R"([{"op": "add", "path": "/horizon/max_requests", "value": 0}])", "/horizon/max_requests",
       "0 is out of range, expected an integer >= 1"},
      {"drain_string", Base::kUnified,
       R"([{"op": "add", "path": "/horizon/drain", "value": "yes"}])", "/horizon/drain",
       "\"yes\" is a string, expected true or false"},
      {"horizon_unknown", Base::kUnified,
       R"([{"op": "add", "path": "/horizon/durations", "value": 1}])", "/horizon/durations",
       "unknown key; did you mean \"duration_s\"?"},
      // --- pools ---
      {"pools_empty", Base::kUnified, R"([{"op": "replace", "path": "/pools", "value": []}])",
       "/pools", "[] is empty, expected a non-empty array of pools"},
      {"pools_object", Base::kUnified, R"([{"op": "replace", "path": "/pools", "value": {}}])",
       "/pools", "{} is an object, expected a non-empty array of pools"},
      {"pool_unknown_key", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/enginee", "value": {}}])", "/pools/0/enginee",
       "unknown key; did you mean \"engine\"?"},
      {"pool_role", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/role", "value": "leader"}])", "/pools/0/role",
       "\"leader\" is not a pool role (accepted: \"unified\", \"prefill\", \"decode\")"},
      {"instances_zero", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/instances", "value": 0}])", "/pools/0/instances",
       "0 is out of range, expected an integer in [1, 10000]"},
      {"instances_huge", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/instances", "value": 1e12}])", "/pools/0/instances",
       "out of range"},
      {"hardware_missing", Base::kUnified, R"([{"op": "remove", "path": "/pools/0/hardware"}])",
       "/pools/0/hardware", "missing, expected a catalog GPU id"},
      {"model_number", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": 7}])", "/pools/0/model",
       "7 is an integer, expected a catalog model id"},
      {"tp_zero", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/parallelism", "value": {"tp": 0}}])",
       "/pools/0/parallelism/tp", "0 is out of range, expected an integer in [1, 1024]"},
      {"parallelism_unknown", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/parallelism", "value": {"ep": 2}}])",
       "/pools/0/parallelism/ep", "unknown key"},
      {"engine_kind", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/kind", "value": "sglang"}])",
       "/pools/0/engine/kind",
       "\"sglang\" is not an engine BLIS Playground models (accepted: \"vllm\")"},
      {"release_unknown", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/engine/release", "value": "0.30.0"}])",
       "/pools/0/engine/release",
       "\"0.30.0\" is not a release BLIS Playground has a rules pack for (known: 0.29.x, 0.31.0, "
       "0.32.0)"},
      {"pool_names_twice", Base::kUnified,
       R"([{"op": "add", "path": "/pools/-", "value": {"name": "main", "hardware": "H100-SXM-80GB",
           "model": "meta-llama/Llama-3.1-8B-Instruct"}}])",
       "/pools/1/name", "\"main\" is used by another pool, expected unique names"},
      {"block_size_17", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/args/block_size", "value": 17}])",
       "/pools/0/engine/args/block_size",
       "17 is not accepted by vLLM 0.32.0 (accepted: 16, 32, 48, 64, ...: multiples of 16"},
      {"args_string", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/engine/args", "value": "fast"}])",
       "/pools/0/engine/args", "\"fast\" is a string, expected an object (vLLM engine arguments)"},
      {"args_c3_rule2", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/args/max_num_batched_tokens", "value": 64},
           {"op": "add", "path": "/pools/0/engine/args/max_num_seqs", "value": 128}])",
       "/pools/0/engine/args/max_num_batched_tokens",
       "must be greater than or equal to max_num_seqs (128)"},
      {"args_release_0_29_connector", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/engine/release", "value": "0.29.2"},
           {"op": "add", "path": "/pools/0/engine/args/kv_transfer_config",
            "value": {"kv_connector": "MooncakeConnector", "kv_role": "kv_both"}}])",
       "/pools/0/engine/args/kv_transfer_config/kv_connector",
       "\"MooncakeConnector\" exists in vLLM 0.29.x but is not modelled by BLIS Playground"},
      // --- prefill/decode shape ---
      {"pd_two_prefill", Base::kPd,
       R"([{"op": "replace", "path": "/pools/1/role", "value": "prefill"}])", "/pools",
       "exactly one prefill and one decode pool and no unified pool (found 2 prefill, 0 decode, 0 "
       "unified)"},
      {"pd_prefill_only", Base::kPd, R"([{"op": "remove", "path": "/pools/1"}])", "/pools",
       "(found 1 prefill, 0 decode, 0 unified)"},
      {"pd_no_fabric", Base::kPd, R"([{"op": "remove", "path": "/fabric"}])", "/fabric",
       "missing: a prefill/decode deployment needs the fabric its KV transfers cross"},
      {"pd_model_mismatch", Base::kPd,
       R"([{"op": "replace", "path": "/pools/1/model", "value": "Qwen/Qwen3-8B"}])",
       "/pools/1/model", "differs from the prefill pool's model"},
      {"pd_mixed_with_unified", Base::kPd,
       R"([{"op": "add", "path": "/pools/-", "value": {"name": "u", "hardware": "H100-SXM-80GB",
           "model": "meta-llama/Llama-3.1-8B-Instruct"}}])",
       "/pools", "(found 1 prefill, 1 decode, 1 unified)"},
      {"pd_wrong_connector", Base::kPd,
       R"([{"op": "add", "path": "/pools/0/engine", "value": {"args": {"kv_transfer_config":
           {"kv_connector": "OffloadingConnector", "kv_role": "kv_both",
            "kv_connector_extra_config": {"cpu_bytes_to_use": "4G"}}}}}])",
       "/pools/0/engine/args/kv_transfer_config/kv_connector",
       "a prefill pool hands KV over with NixlConnector"},
      // --- router ---
      {"router_policy", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"policy": "fastest"}}])", "/router/policy",
       "\"fastest\" is not a router policy (accepted: \"round-robin\", \"least-loaded\", "
       "\"weighted\", \"random\")"},
      {"weighted_without_scorers", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"policy": "weighted"}}])", "/router/scorers",
       "missing, expected a non-empty array of {name, weight}"},
      {"scorer_unknown", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"policy": "weighted", "scorers": [{"name": "latency"}]}}])",
       "/router/scorers/0/name",
       "\"latency\" is not a scorer (accepted: \"queue-depth\", \"kv-utilization\", "
       "\"prefix-cache\")"},
      {"scorer_weight_negative", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"policy": "weighted",
           "scorers": [{"name": "queue-depth", "weight": -0.5}]}}])",
       "/router/scorers/0/weight", "-0.5 is out of range, expected a weight >= 0"},
      {"scorers_with_round_robin", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"policy": "round-robin", "scorers": []}}])",
       "/router/scorers", "scorers are used only by policy \"weighted\""},
      {"scorers_all_zero", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"policy": "weighted",
           "scorers": [{"name": "queue-depth", "weight": 0}, {"name": "prefix-cache", "weight": 0}]}}])",
       "/router/scorers", "every weight is 0"},
      {"scorer_twice", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"policy": "weighted",
           "scorers": [{"name": "queue-depth"}, {"name": "queue-depth"}]}}])",
       "/router/scorers/1/name", "\"queue-depth\" is listed twice"},
      {"staleness_negative", Base::kUnified,
       R"([{"op": "add", "path": "/router", "value": {"signal_staleness_ms": -1}}])",
       "/router/signal_staleness_ms", "-1 is out of range, expected a number of milliseconds >= 0"},
      // --- workload ---
      {"workload_both", Base::kUnified,
       R"([{"op": "add", "path": "/workload/trace_csv", "value": {"csv": "0,10,10\n"}}])",
       "/workload", "gives both clients and trace_csv"},
      {"workload_neither", Base::kUnified,
       R"([{"op": "replace", "path": "/workload", "value": {}}])", "/workload",
       "needs clients (a non-empty array) or trace_csv"},
      {"clients_empty", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients", "value": []}])", "/workload/clients",
       "[] is empty, expected a non-empty array of clients"},
      {"client_no_shape", Base::kUnified,
       R"([{"op": "remove", "path": "/workload/clients/0/prompt_tokens"},
           {"op": "remove", "path": "/workload/clients/0/output_tokens"}])",
       "/workload/clients/0", "needs a request shape"},
      {"client_two_shapes", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/shared_prefix", "value": {"system_prompts": 1,
           "users_per_prompt": 1, "system_prompt_tokens": 10, "question_tokens": 10, "output_tokens": 10}}])",
       "/workload/clients/0", "gives more than one request shape"},
      {"prompt_without_output", Base::kUnified,
       R"([{"op": "remove", "path": "/workload/clients/0/output_tokens"}])",
       "/workload/clients/0/output_tokens", "missing, expected a token-count distribution"},
      {"dist_unknown", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens", "value": {"dist": "poisson", "mean": 3}}])",
       "/workload/clients/0/prompt_tokens/dist", "\"poisson\" is not a length distribution"},
      {"dist_missing", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens", "value": {"value": 3}}])",
       "/workload/clients/0/prompt_tokens/dist", "missing"},
      {"dist_not_object", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens", "value": 512}])",
       "/workload/clients/0/prompt_tokens", "512 is an integer, expected an object"},
      {"constant_with_mean", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/prompt_tokens/mean", "value": 3}])",
       "/workload/clients/0/prompt_tokens/mean",
       "is not used by dist \"constant\" (it takes: value)"},
      {"constant_zero", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens/value", "value": 0}])",
       "/workload/clients/0/prompt_tokens/value",
       "0 is out of range, expected an integer >= 1 (tokens)"},
      {"uniform_min_above_max", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens", "value": {"dist": "uniform", "min": 500, "max": 100}}])",
       "/workload/clients/0/prompt_tokens/min", "500 is above max (100), expected min <= max"},
      {"uniform_missing_max", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens", "value": {"dist": "uniform", "min": 5}}])",
       "/workload/clients/0/prompt_tokens/max", "missing"},
      {"normal_negative_std", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens", "value": {"dist": "normal", "mean": 500, "std": -1}}])",
       "/workload/clients/0/prompt_tokens/std", "-1 is out of range, expected a number >= 0"},
      {"lognormal_missing_std", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens", "value": {"dist": "lognormal", "mean": 500}}])",
       "/workload/clients/0/prompt_tokens/std", "missing"},
      {"exponential_mean_zero", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/output_tokens", "value": {"dist": "exponential", "mean": 0}}])",
       "/workload/clients/0/output_tokens/mean",
       "0 is out of range, expected a number of tokens > 0"},
      {"load_missing", Base::kUnified, R"([{"op": "remove", "path": "/workload/clients/0/load"}])",
       "/workload/clients/0/load", "missing, expected an object with rate"},
      {"rate_zero", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/load/rate", "value": 0}])",
       "/workload/clients/0/load/rate", "0 is out of range, expected a rate in requests/s > 0"},
      {"rate_and_concurrency", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/load/concurrency", "value": 4}])",
       "/workload/clients/0/load", "gives more than one of rate, stages and concurrency"},
      {"stages_empty", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/load", "value": {"stages": []}}])",
       "/workload/clients/0/load/stages",
       "[] is empty, expected a non-empty array of {rate, duration_s}"},
      {"stage_duration_zero", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/load", "value": {"stages": [{"rate": 1, "duration_s": 0}]}}])",
       "/workload/clients/0/load/stages/0/duration_s",
       "0 is out of range, expected a number of seconds > 0"},
      {"concurrency_zero", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/load", "value": {"concurrency": 0}}])",
       "/workload/clients/0/load/concurrency", "0 is out of range"},
      {"think_time_with_rate", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/load/think_time_s", "value": 1}])",
       "/workload/clients/0/load/think_time_s", "think_time_s is used only with concurrency"},
      {"arrival_unknown", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/load/arrival", "value": "bursty"}])",
       "/workload/clients/0/load/arrival", "\"bursty\" is not an arrival process"},
      {"arrival_gamma_string", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/load/arrival", "value": "gamma"}])",
       "/workload/clients/0/load/arrival", "\"gamma\" needs its cv"},
      {"arrival_gamma_cv_zero", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/load/arrival", "value": {"process": "gamma", "cv": 0}}])",
       "/workload/clients/0/load/arrival/cv",
       "0 is out of range, expected a coefficient of variation > 0"},
      {"arrival_with_concurrency", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/load", "value": {"concurrency": 4, "arrival": "poisson"}}])",
       "/workload/clients/0/load/arrival", "arrival is not used with concurrency"},
      {"prefix_groups_zero", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/prefix", "value": {"groups": 0, "tokens": 100}}])",
       "/workload/clients/0/prefix/groups", "0 is out of range, expected an integer >= 1"},
      {"shared_prefix_missing_field", Base::kUnified,
       R"([{"op": "remove", "path": "/workload/clients/0/prompt_tokens"},
           {"op": "remove", "path": "/workload/clients/0/output_tokens"},
           {"op": "add", "path": "/workload/clients/0/shared_prefix", "value": {"system_prompts": 2,
            "system_prompt_tokens": 10, "question_tokens": 10, "output_tokens": 10}}])",
       "/workload/clients/0/shared_prefix/users_per_prompt", "missing, expected an integer >= 1"},
      {"trace_with_load", Base::kUnified,
       R"([{"op": "remove", "path": "/workload/clients/0/prompt_tokens"},
           {"op": "remove", "path": "/workload/clients/0/output_tokens"},
           {"op": "add", "path": "/workload/clients/0/trace", "value": {"csv": "0,10,10\n"}}])",
       "/workload/clients/0/load", "a trace carries its own arrival times"},
      {"trace_path_without_files", Base::kUnified,
       R"([{"op": "replace", "path": "/workload", "value": {"trace_csv": {"path": "trace.csv"}}}])",
       "/workload/trace_csv/path",
       "trace files cannot be read here (no file access, e.g. in the browser); give the CSV inline "
       "as \"csv\""},
      {"trace_bad_prompt", Base::kUnified,
       R"([{"op": "replace", "path": "/workload", "value": {"trace_csv": {"csv": "arrival_s,prompt_tokens,output_tokens\n0,10,5\n0.5,abc,5\n"}}}])",
       "/workload/trace_csv/csv", "line 3: prompt_tokens \"abc\" is not an integer >= 1"},
      {"trace_out_of_order", Base::kUnified,
       R"([{"op": "replace", "path": "/workload", "value": {"trace_csv": {"csv": "1.0,10,5\n0.5,10,5\n"}}}])",
       "/workload/trace_csv/csv", "line 2: arrival_s 0.5 is earlier than the previous row"},
      {"trace_field_count", Base::kUnified,
       R"([{"op": "replace", "path": "/workload", "value": {"trace_csv": {"csv": "0,10\n"}}}])",
       "/workload/trace_csv/csv", "line 1: 2 fields, expected 3 to 5"},
      {"trace_empty", Base::kUnified,
       R"([{"op": "replace", "path": "/workload", "value": {"trace_csv": {"csv": "arrival_s,prompt_tokens,output_tokens\n"}}}])",
       "/workload/trace_csv/csv", "no requests: the trace has no data rows"},
      {"trace_neither", Base::kUnified,
       R"([{"op": "replace", "path": "/workload", "value": {"trace_csv": {}}}])",
       "/workload/trace_csv", "needs path (a CSV file) or csv"},
      {"slo_class_undefined", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/slo_class", "value": "gold"}])",
       "/workload/clients/0/slo_class", "\"gold\" is not defined in /slo_classes (defined: none)"},
      {"lora_without_pool", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/lora", "value": 3}])",
       "/workload/clients/0/lora",
       "3: requests a LoRA adapter but no pool sets engine.args.enable_lora"},
      {"lora_negative", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/lora", "value": -1}])",
       "/workload/clients/0/lora", "-1 is out of range"},
      {"priority_without_policy", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/priority", "value": 2}])",
       "/workload/clients/0/priority", "has no effect, every pool schedules fcfs",
       Severity::kWarning},
      {"client_names_twice", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/-", "value": {"name": "chat", "load": {"rate": 1},
           "prompt_tokens": {"dist": "constant", "value": 5}, "output_tokens": {"dist": "constant", "value": 5}}}])",
       "/workload/clients/1/name", "\"chat\" is used by another client"},
      {"client_unknown_key", Base::kUnified,
       R"([{"op": "add", "path": "/workload/clients/0/prompt_lens", "value": 3}])",
       "/workload/clients/0/prompt_lens", "unknown key"},
      {"request_longer_than_model_len", Base::kUnified,
       R"([{"op": "replace", "path": "/workload/clients/0/prompt_tokens/value", "value": 9000}])",
       "/workload/clients/0",
       "requests of up to 9128 tokens (prompt + output) exceed max_model_len 8192",
       Severity::kWarning},
      // --- catalog ids and impossible deployments (catalog + kernel) ---
      {"hardware_unknown", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/hardware", "value": "H100"}])", "/pools/0/hardware",
       "\"H100\" is not a catalog GPU id (closest: \"H100-SXM-80GB\""},
      {"model_unknown", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": "meta-llama/Llama-3.1-8B"}])",
       "/pools/0/model",
       "\"meta-llama/Llama-3.1-8B\" is not a catalog model id (closest: "
       "\"meta-llama/Llama-3.1-8B-Instruct\""},
      {"fabric_unknown", Base::kPd, R"([{"op": "replace", "path": "/fabric", "value": "nvlink"}])",
       "/fabric", "\"nvlink\" is not a catalog fabric id (closest: "},
      {"weights_do_not_fit", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": "meta-llama/Llama-3.1-70B-Instruct"}])",
       "/pools/0/parallelism/tp",
       "vLLM would not start meta-llama/Llama-3.1-70B-Instruct on H100-SXM-80GB (tp=1, pp=1): "
       "model weights need"},
      {"deepseek_v3_tp8_h100", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": "deepseek-ai/DeepSeek-V3"},
           {"op": "add", "path": "/pools/0/parallelism", "value": {"tp": 8}},
           {"op": "remove", "path": "/pools/0/engine/args/max_model_len"}])",
       "/pools/0/parallelism/tp", "more than the 79.11 GiB the H100-SXM-80GB reports"},
      {"no_room_for_max_model_len", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/engine/args", "value": {"gpu_memory_utilization": 0.3}}])",
       "/pools/0/engine/args/max_model_len",
       "To serve at least one request with the models's max seq len (131072)"},
      {"no_memory_for_kv", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/args/gpu_memory_utilization", "value": 0.15}])",
       "/pools/0/engine/args/gpu_memory_utilization", "No available memory for the cache blocks"},
      {"kv_heads_not_split", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": "Qwen/Qwen2.5-7B-Instruct"},
           {"op": "add", "path": "/pools/0/parallelism", "value": {"tp": 7}}])",
       "/pools/0/parallelism/tp", "tensor parallel size 7 cannot split 4 KV heads evenly"},
      {"tp_not_dividing_heads", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": "Qwen/Qwen2.5-7B-Instruct"},
           {"op": "add", "path": "/pools/0/parallelism", "value": {"tp": 8}}])",
       "/pools/0/parallelism/tp",
       "total number of attention heads (28) must be divisible by tensor parallel size (8)"},
      {"max_model_len_above_model", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": "meta-llama/Llama-2-7b-hf"}])",
       "/pools/0/engine/args/max_model_len",
       "8192 is above the model's derived max_model_len (4096)"},
      {"awq_on_unquantized", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/args/quantization", "value": "awq"}])",
       "/pools/0/engine/args/quantization", "\"awq\" needs a checkpoint quantized with awq"},
      {"kv_dtype_not_modelled", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/args/kv_cache_dtype", "value": "turboquant_k8v4"}])",
       "/pools/0/engine/args/kv_cache_dtype",
       "accepted by vLLM 0.32.0 but not modelled by BLIS Playground's latency kernel"},
      {"block_size_not_modelled", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/args/block_size", "value": 48}])",
       "/pools/0/engine/args/block_size",
       "accepted by vLLM 0.32.0 but not modelled by BLIS Playground's latency kernel"},
      {"quantization_not_modelled", Base::kUnified,
       R"([{"op": "add", "path": "/pools/0/engine/args/quantization", "value": "mxfp8"}])",
       "/pools/0/engine/args/quantization",
       "\"mxfp8\" is accepted by vLLM 0.32.0 but not modelled"},
      {"flashmla_forces_64", Base::kUnified,
       R"([{"op": "replace", "path": "/pools/0/model", "value": "deepseek-ai/DeepSeek-V3"},
           {"op": "replace", "path": "/pools/0/hardware", "value": "B200-SXM-180GB"},
           {"op": "add", "path": "/pools/0/parallelism", "value": {"tp": 8}},
           {"op": "add", "path": "/pools/0/engine/args/block_size", "value": 16}])",
       "/pools/0/engine/args/block_size",
       "forcing kv cache block size to 64 for the FlashMLA backend", Severity::kWarning},
      {"inline_gpu_invalid", Base::kUnified,
       R"([{"op": "add", "path": "/catalog", "value": {"gpus": [{"id": "X1"}]}}])",
       "/catalog/gpus/0/memory_bytes", "required key is missing"},
      // --- slo, slo_classes, outputs, catalog ---
      {"slo_ttft_zero", Base::kUnified,
       R"([{"op": "add", "path": "/slo", "value": {"ttft_ms": 0}}])", "/slo/ttft_ms",
       "0 is out of range, expected a number of milliseconds > 0"},
      {"slo_unknown", Base::kUnified, R"([{"op": "add", "path": "/slo", "value": {"tpot_ms": 5}}])",
       "/slo/tpot_ms", "unknown key"},
      {"slo_classes_twice", Base::kUnified,
       R"([{"op": "add", "path": "/slo_classes", "value": [{"name": "a"}, {"name": "a"}]}])",
       "/slo_classes/1/name", "\"a\" is defined twice"},
      {"slo_class_no_name", Base::kUnified,
       R"([{"op": "add", "path": "/slo_classes", "value": [{"ttft_ms": 5}]}])",
       "/slo_classes/0/name", "missing, expected a non-empty string"},
      {"outputs_interval_zero", Base::kUnified,
       R"([{"op": "add", "path": "/outputs", "value": {"timeseries_interval_ms": 0}}])",
       "/outputs/timeseries_interval_ms", "0 is out of range"},
      {"outputs_per_request_string", Base::kUnified,
       R"([{"op": "add", "path": "/outputs", "value": {"per_request": "yes"}}])",
       "/outputs/per_request", "\"yes\" is a string, expected true or false"},
      {"catalog_gpus_object", Base::kUnified,
       R"([{"op": "add", "path": "/catalog", "value": {"gpus": {}}}])", "/catalog/gpus",
       "{} is an object, expected an array of catalog entries"},
      {"catalog_entry_string", Base::kUnified,
       R"([{"op": "add", "path": "/catalog", "value": {"models": ["x"]}}])", "/catalog/models/0",
       "\"x\" is a string, expected an object (a catalog entry)"},
      {"catalog_unknown", Base::kUnified,
       R"([{"op": "add", "path": "/catalog", "value": {"gpu": []}}])", "/catalog/gpu",
       "unknown key; did you mean \"gpus\"?"},
  };
  return all;
}

class DecodeBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(DecodeBad, ReportsPointerAndMessage) {
  const BadCase& c = GetParam();
  std::string text;
  switch (c.base) {
    case Base::kUnified:
      text = testing::patched(testing::base_unified(), c.text);
      break;
    case Base::kPd:
      text = testing::patched(testing::base_pd(), c.text);
      break;
    case Base::kRaw:
      text = c.text ? c.text : deep_nesting(100);
      break;
  }
  const DecodeResult r = decode_scenario(text);
  bool found = false;
  std::string all;
  for (const auto& d : r.diagnostics) {
    all += format_diagnostic(d) + "\n";
    if (d.pointer == c.pointer && d.message.find(c.message) != std::string::npos &&
        d.severity == c.severity) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "expected at '" << c.pointer << "': " << c.message << "\ngot:\n" << all;
  if (c.severity == Severity::kError) {
    EXPECT_FALSE(r.scenario.has_value());
  } else {
    EXPECT_TRUE(r.scenario.has_value()) << all;
  }
  EXPECT_EQ(r.malformed_json, std::string(c.message).rfind("malformed JSON", 0) == 0 ||
                                  std::string(c.message).rfind("nesting deeper", 0) == 0);
}

INSTANTIATE_TEST_SUITE_P(Table, DecodeBad, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace blis::scenario
