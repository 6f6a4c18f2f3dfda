// encode_scenario: the resolved Scenario back to a blis/scenario/v1 document with every
// default written out (unset optional values as null).

#include <nlohmann/json.hpp>

#include "rules/rules.h"
#include "scenario/scenario_encode.h"
#include "util/json_write.h"

namespace blis::scenario {

namespace {

using json_write::ojson;

// The one JSON writing helper (util/json_write.h): unset values as null.
template <typename T>
ojson opt(const std::optional<T>& v) {
  return json_write::or_null(v);
}

ojson str_or_null(const std::string& s) {
  return json_write::or_null(s);
}

ojson encode_slo_fields(const Slo& s, ojson o = ojson::object()) {
  o["ttft_ms"] = opt(s.ttft_ms);
  o["itl_ms"] = opt(s.itl_ms);
  o["e2e_ms"] = opt(s.e2e_ms);
  return o;
}

ojson encode_dist(const LengthDist& d) {
  ojson o;
  switch (d.kind) {
    case LengthDist::Kind::kConstant:
      o["dist"] = "constant";
      o["value"] = static_cast<std::int64_t>(d.value);
      return o;
    case LengthDist::Kind::kNormal:
    case LengthDist::Kind::kLognormal:
      o["dist"] = d.kind == LengthDist::Kind::kNormal ? "normal" : "lognormal";
      o["mean"] = d.mean;
      o["std"] = d.std;
      break;
    case LengthDist::Kind::kExponential:
      o["dist"] = "exponential";
      o["mean"] = d.mean;
      break;
    case LengthDist::Kind::kUniform:
      o["dist"] = "uniform";
      break;
  }
  o["min"] = opt(d.min);
  o["max"] = opt(d.max);
  return o;
}

ojson encode_arrival(const ArrivalProcess& a) {
  switch (a.kind) {
    case ArrivalProcess::Kind::kConstant:
      return "constant";
    case ArrivalProcess::Kind::kGamma:
      return ojson{{"process", "gamma"}, {"cv", a.cv}};
    default:
      return "poisson";
  }
}

ojson encode_load(const Load& l) {
  ojson o;
  switch (l.kind) {
    case Load::Kind::kRate:
      o["rate"] = l.rate;
      o["arrival"] = encode_arrival(l.arrival);
      break;
    case Load::Kind::kStages: {
      ojson stages = ojson::array();
      for (const auto& s : l.stages)
        stages.push_back({{"rate", s.rate}, {"duration_s", s.duration_s}});
      o["stages"] = stages;
      o["arrival"] = encode_arrival(l.arrival);
      break;
    }
    case Load::Kind::kConcurrency:
      o["concurrency"] = l.concurrency;
      o["think_time_s"] = l.think_time_s;
      break;
  }
  return o;
}

ojson encode_trace(const Trace& t) {
  return {{"path", str_or_null(t.path)}, {"csv", t.csv}};
}

ojson encode_client(const Client& c) {
  ojson o;
  o["name"] = c.name;
  if (!c.trace) o["load"] = encode_load(c.load);
  if (c.prompt_tokens) o["prompt_tokens"] = encode_dist(*c.prompt_tokens);
  if (c.output_tokens) o["output_tokens"] = encode_dist(*c.output_tokens);
  if (c.prefix) o["prefix"] = {{"groups", c.prefix->groups}, {"tokens", c.prefix->tokens}};
  if (c.shared_prefix) {
    const auto& s = *c.shared_prefix;
    o["shared_prefix"] = {{"system_prompts", s.system_prompts},
                          {"users_per_prompt", s.users_per_prompt},
                          {"system_prompt_tokens", s.system_prompt_tokens},
                          {"question_tokens", s.question_tokens},
                          {"output_tokens", s.output_tokens},
                          {"multi_turn", s.multi_turn}};
  }
  if (c.trace) o["trace"] = encode_trace(*c.trace);
  o["ignore_eos"] = c.ignore_eos;
  o["priority"] = c.priority;
  o["slo_class"] = str_or_null(c.slo_class);
  o["lora"] = c.lora;
  if (!c.adapters.empty()) {
    ojson list = ojson::array();
    for (const auto& a : c.adapters)
      list.push_back({{"name", a.name}, {"rank", a.rank}, {"share", a.share}});
    o["adapters"] = list;
  }
  if (c.timeout_s) o["timeout_s"] = *c.timeout_s;
  if (c.spec_acceptance) {
    if (c.spec_acceptance->acceptance_rate)
      o["spec_acceptance"] = {{"acceptance_rate", *c.spec_acceptance->acceptance_rate}};
    else
      o["spec_acceptance"] = {{"per_position", c.spec_acceptance->per_position}};
  }
  return o;
}

ojson encode_args(const VllmArgs& a, const std::string& release) {
  ojson o;
  o["max_model_len"] = a.max_model_len;
  o["max_num_seqs"] = a.max_num_seqs;
  o["max_num_batched_tokens"] = a.max_num_batched_tokens;
  // Written only when set (unset: derived by the engine, VllmConfig._set_max_num_scheduled_tokens).
  if (a.max_num_scheduled_tokens) o["max_num_scheduled_tokens"] = *a.max_num_scheduled_tokens;
  o["enable_chunked_prefill"] = a.enable_chunked_prefill;
  o["enable_prefix_caching"] = a.enable_prefix_caching;
  o["block_size"] = a.block_size;
  o["gpu_memory_utilization"] = a.gpu_memory_utilization;
  o["kv_cache_memory_bytes"] = opt(a.kv_cache_memory_bytes);
  o["num_gpu_blocks_override"] = opt(a.num_gpu_blocks_override);
  o["kv_cache_dtype"] = a.kv_cache_dtype;
  o["dtype"] = a.dtype;
  o["quantization"] = str_or_null(a.quantization);
  o["long_prefill_token_threshold"] = a.long_prefill_token_threshold;
  // Only where the release has them (0.32.0 removed them: vLLM PR #49244).
  const rules::Pack* pack = rules::find_pack(release);
  if (!pack || pack->partial_prefills) {
    o["max_num_partial_prefills"] = a.max_num_partial_prefills;
    o["max_long_partial_prefills"] = a.max_long_partial_prefills;
  }
  o["scheduling_policy"] = a.scheduling_policy;
  o["async_scheduling"] = a.async_scheduling;
  o["scheduler_reserve_full_isl"] = a.scheduler_reserve_full_isl;
  if (a.watermark != 0.0) o["watermark"] = a.watermark;              // written only when set
  if (a.enable_expert_parallel) o["enable_expert_parallel"] = true;  // written only when set
  o["prefix_caching_hash_algo"] = a.prefix_caching_hash_algo;
  o["enable_lora"] = a.enable_lora;
  o["max_loras"] = a.max_loras;
  o["max_lora_rank"] = a.max_lora_rank;
  o["max_cpu_loras"] = a.max_cpu_loras;
  o["enforce_eager"] = a.enforce_eager;
  // Written only when they differ from vLLM's defaults, so existing outputs stay as they were.
  if (a.cudagraph_mode != "FULL_AND_PIECEWISE") {
    o["compilation_config"] = {{"cudagraph_mode", a.cudagraph_mode}};
  }
  if (a.cudagraph_capture_sizes) o["cudagraph_capture_sizes"] = *a.cudagraph_capture_sizes;
  if (a.max_cudagraph_capture_size) o["max_cudagraph_capture_size"] = *a.max_cudagraph_capture_size;
  o["performance_mode"] = a.performance_mode;
  if (a.speculative_config) {
    const auto& s = *a.speculative_config;
    o["speculative_config"] = {{"method", s.method},
                               {"num_speculative_tokens", s.num_speculative_tokens},
                               {"acceptance_rate", s.acceptance_rate}};
    if (!s.model.empty()) o["speculative_config"]["model"] = s.model;
  } else {
    o["speculative_config"] = nullptr;
  }
  if (a.kv_transfer_config) {
    const auto& k = *a.kv_transfer_config;
    ojson kt = {{"kv_connector", k.kv_connector}, {"kv_role", k.kv_role}};
    if (k.cpu_bytes_to_use || k.offload_block_size) {
      kt["kv_connector_extra_config"] = {{"cpu_bytes_to_use", opt(k.cpu_bytes_to_use)},
                                         {"block_size", opt(k.offload_block_size)}};
      if (k.eviction_policy)
        kt["kv_connector_extra_config"]["eviction_policy"] = *k.eviction_policy;
      if (k.store_threshold)
        kt["kv_connector_extra_config"]["store_threshold"] = *k.store_threshold;
    }
    if (k.kv_load_failure_policy) kt["kv_load_failure_policy"] = *k.kv_load_failure_policy;
    o["kv_transfer_config"] = kt;
  } else {
    o["kv_transfer_config"] = nullptr;
  }
  o["kv_offloading_size"] = opt(a.kv_offloading_size_gib);
  o["kv_offloading_backend"] = a.kv_offloading_backend;
  return o;
}

ojson encode_pool(const Pool& p) {
  ojson o;
  o["name"] = p.name;
  o["role"] = p.role;
  o["instances"] = p.instances;
  o["hardware"] = p.hardware;
  o["model"] = p.model;
  o["parallelism"] = {{"tp", p.parallelism.tp}, {"pp", p.parallelism.pp}, {"dp", p.parallelism.dp}};
  o["engine"] = {{"kind", p.engine.kind},
                 {"release", p.engine.release},
                 {"memory_profile", p.engine.memory_profile},
                 {"args", encode_args(p.engine.args, p.engine.release)}};
  if (p.cost_per_gpu_hour) o["cost_per_gpu_hour"] = *p.cost_per_gpu_hour;
  if (p.kv_pull_failure_rate > 0) o["kv_pull_failure_rate"] = p.kv_pull_failure_rate;
  if (!p.labels.empty()) {
    ojson l = ojson::object();
    for (const auto& [k, v] : p.labels) l[k] = v;
    o["labels"] = std::move(l);
  }
  return o;
}

ojson encode_entries(const std::vector<std::string>& entries) {
  ojson a = ojson::array();
  for (const auto& e : entries) a.push_back(ojson::parse(e));
  return a;
}

}  // namespace

std::string encode_scenario(const Scenario& s) {
  ojson o;
  o["schema"] = s.schema;
  o["name"] = s.name;
  o["seed"] = s.seed;
  o["horizon"] = {{"duration_s", opt(s.horizon.duration_s)},
                  {"max_requests", opt(s.horizon.max_requests)},
                  {"drain", s.horizon.drain}};
  o["catalog"] = {{"gpus", encode_entries(s.catalog.gpus)},
                  {"models", encode_entries(s.catalog.models)},
                  {"fabrics", encode_entries(s.catalog.fabrics)}};
  ojson pools = ojson::array();
  for (const auto& p : s.pools) pools.push_back(encode_pool(p));
  o["pools"] = pools;
  ojson router = {{"policy", s.router.policy}};
  if (s.router.policy == "weighted") {
    ojson scorers = ojson::array();
    for (const auto& sc : s.router.scorers)
      scorers.push_back({{"name", sc.name}, {"weight", sc.weight}});
    router["scorers"] = scorers;
  }
  if (s.router.policy == "epp") {
    // Back as it came: an object when the text is a JSON object, else the YAML string.
    const ojson parsed = ojson::parse(s.router.epp_config, nullptr, false);
    router["epp_config"] = parsed.is_object() ? parsed : ojson(s.router.epp_config);
  }
  router["signal_staleness_ms"] = s.router.signal_staleness_ms;
  o["router"] = router;
  o["fabric"] = str_or_null(s.fabric);
  ojson placement = ojson::object();
  for (const auto& [pool, nodes] : s.network.placement) placement[pool] = nodes;
  o["network"] = {{"gpus_per_node", s.network.gpus_per_node},
                  {"nic", s.network.nic},
                  {"switch_hops", s.network.switch_hops},
                  {"placement", placement}};
  ojson workload = ojson::object();
  if (s.workload.trace_csv) {
    workload["trace_csv"] = encode_trace(*s.workload.trace_csv);
  } else {
    ojson clients = ojson::array();
    for (const auto& c : s.workload.clients) clients.push_back(encode_client(c));
    workload["clients"] = clients;
  }
  o["workload"] = workload;
  o["slo"] = encode_slo_fields(s.slo);
  ojson classes = ojson::array();
  for (const auto& c : s.slo_classes)
    classes.push_back(encode_slo_fields(c.slo, ojson{{"name", c.name}}));
  o["slo_classes"] = classes;
  o["outputs"] = {{"timeseries_interval_ms", s.outputs.timeseries_interval_ms},
                  {"per_request", s.outputs.per_request}};
  return o.dump(2) + "\n";
}

}  // namespace blis::scenario
