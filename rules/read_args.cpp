// Typed reading of `engine.args`: every key with the constraint vLLM's own config classes
// declare (pydantic Field bounds and Literal types). Cross-field rules live in check_*.cpp.

#include <algorithm>
#include <limits>

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules {

using nlohmann::json;

const std::vector<std::string>& accepted_arg_keys() {
  static const std::vector<std::string> keys = {"max_model_len",
                                                "max_num_seqs",
                                                "max_num_batched_tokens",
                                                "enable_chunked_prefill",
                                                "enable_prefix_caching",
                                                "block_size",
                                                "gpu_memory_utilization",
                                                "kv_cache_memory_bytes",
                                                "num_gpu_blocks_override",
                                                "kv_cache_dtype",
                                                "dtype",
                                                "quantization",
                                                "long_prefill_token_threshold",
                                                "max_num_partial_prefills",
                                                "max_long_partial_prefills",
                                                "scheduling_policy",
                                                "async_scheduling",
                                                "scheduler_reserve_full_isl",
                                                "prefix_caching_hash_algo",
                                                "enable_lora",
                                                "max_loras",
                                                "max_lora_rank",
                                                "max_cpu_loras",
                                                "enforce_eager",
                                                "performance_mode",
                                                "speculative_config",
                                                "kv_transfer_config",
                                                "kv_offloading_size",
                                                "kv_offloading_backend"};
  return keys;
}

const std::vector<std::string>& accepted_speculative_keys() {
  static const std::vector<std::string> keys = {"method", "num_speculative_tokens",
                                                "acceptance_rate", "model"};
  return keys;
}

const std::vector<std::string>& accepted_kv_transfer_keys() {
  static const std::vector<std::string> keys = {"kv_connector",
                                                "kv_role",
                                                "kv_connector_extra_config",
                                                "kv_connector_module_path",
                                                "engine_id",
                                                "kv_buffer_device",
                                                "kv_buffer_size",
                                                "kv_rank",
                                                "kv_parallel_size",
                                                "kv_ip",
                                                "kv_port"};
  return keys;
}

namespace detail {
namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Keys that belong elsewhere in the scenario document.
struct Misplaced {
  const char* key;
  const char* where;  // relative to the pool
};
constexpr Misplaced kMisplaced[] = {
    {"tensor_parallel_size", "/parallelism/tp"},
    {"pipeline_parallel_size", "/parallelism/pp"},
    {"data_parallel_size", "/parallelism/dp"},
    {"model", "/model"},
};

// Keys vLLM accepts that do not change what is simulated (naming, loading, logging).
const std::vector<std::string>& ignored_args() {
  static const std::vector<std::string> keys = {"served_model_name",
                                                "tokenizer",
                                                "tokenizer_mode",
                                                "trust_remote_code",
                                                "revision",
                                                "code_revision",
                                                "tokenizer_revision",
                                                "download_dir",
                                                "load_format",
                                                "seed",
                                                "disable_log_stats",
                                                "disable_log_requests",
                                                "enable_log_requests",
                                                "max_logprobs",
                                                "logprobs_mode",
                                                "hf_token",
                                                "otlp_traces_endpoint",
                                                "collect_detailed_traces",
                                                "generation_config",
                                                "override_generation_config",
                                                "max_parallel_loading_workers",
                                                "kv_cache_metrics",
                                                "kv_cache_metrics_sample",
                                                "enable_mfu_metrics",
                                                "show_hidden_metrics_for_version",
                                                "reasoning_parser",
                                                "skip_tokenizer_init",
                                                "config_format",
                                                "model_impl",
                                                "disable_custom_all_reduce"};
  return keys;
}

bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

std::string pool_pointer(const Context& c) {
  return c.facts.pointer;
}

void report_keys(Context& c, const json& args) {
  for (auto it = args.begin(); it != args.end(); ++it) {
    const std::string& key = it.key();
    if (contains(accepted_arg_keys(), key)) continue;
    const std::string p = c.ptr(key);
    bool handled = false;
    for (const auto& m : kMisplaced) {
      if (key == m.key) {
        c.error(p, std::string("is not set in engine.args; set ") + pool_pointer(c) + m.where +
                       " instead");
        handled = true;
      }
    }
    if (handled) continue;
    if (contains(c.pack.unmodelled_args, key)) {
      c.error(p, "\"" + key + "\" exists in " + c.vllm() +
                     " but is not modelled by BLIS Playground; remove it");
      continue;
    }
    if (contains(ignored_args(), key)) {
      c.warning(p, "\"" + key + "\" has no effect on what BLIS Playground simulates; ignored");
      continue;
    }
    std::string msg =
        "unknown key: not an engine argument of " + c.vllm() + " that BLIS Playground knows";
    const auto near = closest(key, accepted_arg_keys(), 1);
    if (!near.empty()) msg += "; did you mean \"" + near.front() + "\"?";
    c.error(p, msg);
  }
}

template <typename T>
void set_int(std::optional<std::int64_t> v, T& out, bool* flag = nullptr) {
  if (!v) return;
  out = static_cast<T>(*v);
  if (flag) *flag = true;
}

void read_speculative(Context& c, FieldReader& r) {
  const json* raw = r.raw("speculative_config");
  if (!raw) return;
  FieldReader s(*raw, c.ptr("speculative_config"), c.diags, accepted_speculative_keys(),
                "an object (speculative_config)");
  if (!s.valid()) return;
  scenario::SpeculativeConfig sc;
  const std::string refusal = "is not a speculative method of " + c.vllm();
  if (auto m = s.choice("method", c.pack.speculative_methods, refusal)) {
    sc.method = *m;
  } else if (!s.has("method")) {
    // vllm/config/speculative.py infers the method from a draft model; BLIS has no draft
    // model to inspect, so the method must be named.
    s.missing("method", "a speculative method (e.g. \"eagle3\", \"ngram\", \"mtp\")");
  }
  // vllm/config/speculative.py SpeculativeConfig.num_speculative_tokens: Field(gt=0).
  if (auto n =
          s.integer("num_speculative_tokens", 1, 1024, "an integer > 0 (draft tokens per step)")) {
    sc.num_speculative_tokens = static_cast<std::int32_t>(*n);
  } else if (!s.has("num_speculative_tokens")) {
    // No draft model config to default from: vLLM requires it then.
    s.missing("num_speculative_tokens", "an integer > 0 (draft tokens per step)");
  }
  if (auto a = s.number("acceptance_rate", 0.0, false, 1.0,
                        "a probability in [0, 1] (per-draft-token acceptance)")) {
    sc.acceptance_rate = *a;
  }
  if (s.has("model")) {
    s.string("model", "a string (draft model id)");
    s.warning("model",
              "BLIS Playground does not run a draft model; acceptance comes from acceptance_rate");
  }
  s.report_unknown_keys();
  c.args.speculative_config = sc;
}

void read_kv_transfer(Context& c, FieldReader& r) {
  const json* raw = r.raw("kv_transfer_config");
  if (!raw) return;
  FieldReader k(*raw, c.ptr("kv_transfer_config"), c.diags, accepted_kv_transfer_keys(),
                "an object (kv_transfer_config)");
  if (!k.valid()) return;
  scenario::KvTransferConfig kt;
  if (auto s = k.string("kv_connector", "a connector name (e.g. \"NixlConnector\")"))
    kt.kv_connector = *s;
  if (auto s = k.string("kv_role", "one of: \"kv_producer\", \"kv_consumer\", \"kv_both\""))
    kt.kv_role = *s;
  if (k.has("kv_connector_module_path")) {
    k.error(
        "kv_connector_module_path",
        "out-of-tree connectors (kv_connector_module_path) are not modelled by BLIS Playground");
  }
  if (auto dev = k.string("kv_buffer_device", "\"cuda\"")) {
    if (*dev != "cuda") {
      k.error("kv_buffer_device",
              "\"" + *dev +
                  "\": a host-side KV buffer is not modelled by BLIS Playground "
                  "(modelled: \"cuda\")");
    }
  }
  // Transport plumbing that does not change scheduling: type-checked, otherwise unused.
  k.string("engine_id");
  k.string("kv_ip");
  k.integer("kv_port", 0, 65535, "a port number in [0, 65535]");
  k.integer("kv_rank", 0, kInt32Max, "an integer >= 0");
  k.integer("kv_parallel_size", 1, kInt32Max, "an integer >= 1");
  k.number("kv_buffer_size", 0.0, false, 1e18, "a number of bytes >= 0");
  if (const json* extra = k.raw("kv_connector_extra_config")) {
    // vLLM passes this dict to the connector unchecked; only OffloadingConnector's keys
    // change what BLIS simulates.
    FieldReader e(*extra, k.pointer("kv_connector_extra_config"), c.diags,
                  {"cpu_bytes_to_use", "block_size"}, "an object");
    if (e.valid()) {
      if (auto b = e.integer("cpu_bytes_to_use", 1, kInt64Max, "a number of bytes >= 1", true)) {
        kt.cpu_bytes_to_use = *b;
      }
      if (auto b =
              e.integer("block_size", 1, kInt32Max, "an integer >= 1 (tokens per CPU block)")) {
        kt.offload_block_size = static_cast<std::int32_t>(*b);
      }
      for (auto it = extra->begin(); it != extra->end(); ++it) {
        if (it.key() == "cpu_bytes_to_use" || it.key() == "block_size") continue;
        e.warning(it.key(), "not modelled by BLIS Playground; ignored");
      }
    }
  }
  k.report_unknown_keys();
  c.args.kv_transfer_config = kt;
}

}  // namespace

void read_args(Context& c, const json& args) {
  FieldReader r(args, c.args_pointer, c.diags, accepted_arg_keys(),
                "an object (vLLM engine arguments)");
  if (!r.valid()) return;
  report_keys(c, args);
  auto& a = c.args;

  if (const json* v = r.raw("max_model_len")) {
    // vllm/engine/arg_utils.py: "auto" / -1 fit max_model_len to memory in newer lines.
    if ((v->is_string() && v->get<std::string>() == "auto") ||
        (v->is_number_integer() && v->get<std::int64_t>() == -1)) {
      c.error(c.ptr("max_model_len"),
              show(*v) +
                  ": fitting max_model_len to memory is not modelled by BLIS "
                  "Playground; give a number of tokens");
    } else {
      set_int(r.integer("max_model_len", 1, kInt32Max, "an integer >= 1 (tokens)", true),
              a.max_model_len, &c.set.max_model_len);
    }
  }
  // vllm/config/scheduler.py@1f8758d5: Field(ge=1) on both.
  set_int(r.integer("max_num_seqs", 1, kInt32Max, "an integer >= 1"), a.max_num_seqs,
          &c.set.max_num_seqs);
  set_int(
      r.integer("max_num_batched_tokens", 1, kInt32Max, "an integer >= 1 (tokens per step)", true),
      a.max_num_batched_tokens, &c.set.max_num_batched_tokens);
  if (auto b = r.boolean("enable_chunked_prefill")) {
    a.enable_chunked_prefill = *b;
    c.set.enable_chunked_prefill = true;
  }
  if (auto b = r.boolean("enable_prefix_caching")) {
    a.enable_prefix_caching = *b;
    c.set.enable_prefix_caching = true;
  }
  // Block size: pydantic gt=0 here; the backend rule is checked in check_scheduler.cpp.
  set_int(r.integer("block_size", 1, kInt32Max, "an integer > 0 (tokens per KV block)"),
          a.block_size, &c.set.block_size);
  if (auto g = r.number("gpu_memory_utilization", 0.0, true, 1.0, "a fraction in (0, 1]")) {
    a.gpu_memory_utilization = *g;
    c.set.gpu_memory_utilization = true;
  }
  if (auto b = r.integer("kv_cache_memory_bytes", 1, kInt64Max, "a number of bytes >= 1", true)) {
    a.kv_cache_memory_bytes = *b;
  }
  // vLLM has no bound here, but KV-cache initialisation fails with no block at all.
  if (auto b = r.integer("num_gpu_blocks_override", 1, kInt64Max,
                         "an integer >= 1 (vLLM cannot start with no KV block)")) {
    a.num_gpu_blocks_override = *b;
  }
  const std::string refusal = "is not accepted by " + c.vllm();
  if (auto s = r.choice("kv_cache_dtype", c.pack.kv_cache_dtypes, refusal)) a.kv_cache_dtype = *s;
  if (auto s = r.choice("dtype", c.pack.dtypes, refusal)) a.dtype = *s;
  if (auto s = r.choice("quantization", c.pack.quantization_methods, refusal)) a.quantization = *s;
  if (auto t = r.integer("long_prefill_token_threshold", std::numeric_limits<std::int32_t>::min(),
                         kInt32Max, "an integer (tokens; 0 = no cap)")) {
    a.long_prefill_token_threshold = static_cast<std::int32_t>(*t);
    c.set.long_prefill_token_threshold = true;
    if (*t < 0) {
      c.warning(c.ptr("long_prefill_token_threshold"),
                "a negative threshold caps nothing in vLLM's scheduler (same as 0)");
    }
  }
  set_int(r.integer("max_num_partial_prefills", 1, kInt32Max, "an integer >= 1"),
          a.max_num_partial_prefills);
  set_int(r.integer("max_long_partial_prefills", 1, kInt32Max, "an integer >= 1"),
          a.max_long_partial_prefills);
  if (auto s = r.choice("scheduling_policy", c.pack.scheduling_policies, refusal))
    a.scheduling_policy = *s;
  if (auto b = r.boolean("async_scheduling")) c.set.async_scheduling = *b;
  if (auto b = r.boolean("scheduler_reserve_full_isl")) a.scheduler_reserve_full_isl = *b;
  if (auto s = r.choice("prefix_caching_hash_algo", c.pack.prefix_caching_hash_algos, refusal)) {
    a.prefix_caching_hash_algo = *s;
  }
  if (auto b = r.boolean("enable_lora")) a.enable_lora = *b;
  // vllm/config/lora.py: max_loras Field(ge=1); max_lora_rank MaxLoRARanks literal.
  set_int(r.integer("max_loras", 1, kInt32Max, "an integer >= 1"), a.max_loras, &c.set.max_loras);
  if (const json* v = r.raw("max_lora_rank")) {
    std::vector<std::string> ranks;
    for (auto x : c.pack.max_lora_ranks) ranks.push_back(std::to_string(x));
    const bool is_int = v->is_number_integer() || v->is_number_unsigned();
    const auto it = is_int ? std::find(c.pack.max_lora_ranks.begin(), c.pack.max_lora_ranks.end(),
                                       v->get<std::int64_t>())
                           : c.pack.max_lora_ranks.end();
    if (it == c.pack.max_lora_ranks.end()) {
      c.error(c.ptr("max_lora_rank"),
              show(*v) + " " + refusal + " (accepted: " + join(ranks) + ")");
    } else {
      a.max_lora_rank = *it;
      c.set.max_lora_rank = true;
    }
  }
  if (auto m = r.integer("max_cpu_loras", 1, kInt32Max, "an integer >= 1")) {
    a.max_cpu_loras = static_cast<std::int32_t>(*m);
    c.set.max_cpu_loras = true;
  }
  if (auto b = r.boolean("enforce_eager")) a.enforce_eager = *b;
  if (auto s = r.choice("performance_mode", c.pack.performance_modes, refusal))
    a.performance_mode = *s;
  read_speculative(c, r);
  read_kv_transfer(c, r);
  // vllm/config/cache.py@002f10e0: kv_offloading_size float | None (GiB, total over TP ranks).
  if (auto g = r.number("kv_offloading_size", 0.0, true, 1e9, "a size in GiB > 0")) {
    c.set.kv_offloading_size = *g;
  }
  if (auto s = r.choice("kv_offloading_backend", c.pack.kv_offloading_backends, refusal)) {
    c.set.kv_offloading_backend = *s;
  }
}

}  // namespace detail
}  // namespace blis::rules
