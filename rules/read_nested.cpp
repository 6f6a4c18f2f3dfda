// Typed reading of engine.args' nested objects: speculative_config (SpeculativeConfig's
// own rules for the method and the draft model) and kv_transfer_config.

#include <algorithm>
#include <cctype>
#include <limits>

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules {

using nlohmann::json;

namespace detail {
namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

}  // namespace

namespace {

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// SpeculativeConfig._is_custom_proposer_path: a dotted Python path, no "/".
bool custom_proposer_path(const std::string& model) {
  if (model.find('/') != std::string::npos) return false;
  std::size_t parts = 0, start = 0;
  while (true) {
    const std::size_t dot = model.find('.', start);
    const std::string part = model.substr(start, dot == std::string::npos ? dot : dot - start);
    const bool ident = !part.empty() && !std::isdigit(static_cast<unsigned char>(part[0])) &&
                       std::all_of(part.begin(), part.end(), [](char ch) {
                         return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_';
                       });
    if (!ident) return false;
    ++parts;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return parts >= 2;
}

// SpeculativeConfig.__post_init__: the method vLLM infers when none is given, and the one
// it detects from the draft model's name.
std::string infer_method(const std::string& given, const std::optional<std::string>& model) {
  std::string m = given;
  if (m.empty()) {
    if (model && custom_proposer_path(*model)) return "custom_class";
    m = model && (*model == "ngram" || *model == "[ngram]") ? "ngram" : "draft_model";
  }
  if (m == "draft_model" && model) {
    const std::string name = lower(*model);
    if (name.find("eagle-") != std::string::npos) return "eagle";
    if (name.find("eagle3") != std::string::npos) return "eagle3";
    if (name.find("dflash") != std::string::npos) return "dflash";
    if (name.find("dspark") != std::string::npos) return "dspark";
  }
  return m;
}

}  // namespace

void read_speculative(Context& c, FieldReader& r) {
  const json* raw = r.raw("speculative_config");
  if (!raw) return;
  FieldReader s(*raw, c.ptr("speculative_config"), c.diags, accepted_speculative_keys(),
                "an object (speculative_config)");
  if (!s.valid()) return;
  lax_reader(c, s);
  engine_args::SpeculativeConfig sc;
  const std::string refusal = "is not a speculative method of " + c.vllm();
  std::string method;
  if (auto m = s.choice("method", c.pack.speculative_methods, refusal)) method = *m;
  const bool method_ok = method.empty() == !s.has("method");
  const std::optional<std::string> model = s.string("model", "a string (draft model id)");
  if (method_ok) method = infer_method(method, model);
  // vllm/config/speculative.py SpeculativeConfig.__post_init__: MTP model types -> "mtp".
  if (has(c.pack.mtp_aliases, method)) {
    s.warning("method", "\"" + method + "\": method `" + method +
                            "` is deprecated and replaced with mtp [" + c.vllm() + "]");
    method = "mtp";
  }
  sc.method = method;
  const ArgSpec* k = c.pack.arg("speculative_config.num_speculative_tokens");
  const auto n = s.integer("num_speculative_tokens", k->int_min, k->int_max,
                           k->expected + " [" + c.vllm() + ": " + k->constraint + "]");
  if (n) sc.num_speculative_tokens = static_cast<std::int32_t>(*n);
  // Without a model, only some methods find their drafter (the target's checkpoint, or
  // none); the others raise as vLLM does.
  if (method_ok && !model && !has(c.pack.speculative_methods_without_model, method)) {
    if (method == "custom_class") {
      s.error("model",
              "missing: method='custom_class' requires 'model' to contain the custom proposer "
              "module path (e.g., 'my_module.MyProposer') [" +
                  c.vllm() + "]");
    } else if (n || !s.has("num_speculative_tokens")) {
      s.error("model", "missing: method \"" + method +
                           "\" needs a draft model; num_speculative_tokens was provided but "
                           "without speculative model [" +
                           c.vllm() + " SpeculativeConfig.__post_init__]");
    }
  }
  // SpeculativeConfig.__post_init__: mtp without a model drafts with the target, which needs
  // MTP layers (Pack::architectures_without_mtp).
  if (method == "mtp" && !model && n && c.facts.model.known &&
      has(c.pack.architectures_without_mtp, c.facts.model.architecture)) {
    s.error("method",
            "Unsupported speculative method: 'mtp': without a draft model vLLM drafts with the "
            "target's MTP layers, and " +
                c.facts.model.architecture +
                " has none (SpeculativeConfig.hf_config_override maps no MTP model type for it) "
                "[" +
                c.vllm() + " SpeculativeConfig.__post_init__]");
  }
  if (!s.has("num_speculative_tokens") && method_ok) {
    if (method == "suffix") {
      // _validate_suffix_decoding: the maximum is suffix_decoding_max_tree_depth (24).
      std::int32_t depth = 24;
      if (const json* d = s.raw("suffix_decoding_max_tree_depth"); d && d->is_number_integer() &&
                                                                   d->get<std::int64_t>() >= 1 &&
                                                                   d->get<std::int64_t>() <= 1024) {
        depth = d->get<std::int32_t>();
      }
      sc.num_speculative_tokens = depth;
      s.warning("num_speculative_tokens", "unset: defaulted num_speculative_tokens to " +
                                              std::to_string(depth) + " for suffix decoding [" +
                                              c.vllm() + "]");
    } else if (model || has(c.pack.speculative_methods_without_model, method)) {
      // _verify_args; a draft config's n_predict could supply it, which BLIS cannot read.
      s.missing("num_speculative_tokens",
                "an integer > 0: num_speculative_tokens must be provided with speculative model "
                "unless the draft model config contains an n_predict parameter [" +
                    c.vllm() + "]");
    }
  }
  // SpeculativeConfig.prompt_lookup_min / _max: Field(ge=1), min <= max (__post_init__
  // fills one from the other); only the ngram proposers read them, BLIS supplies acceptance.
  const ArgSpec* pl = c.pack.arg("speculative_config.prompt_lookup_max");
  const std::string pl_expected = pl->expected + " [" + c.vllm() + ": " + pl->constraint + "]";
  const auto lmin = s.integer("prompt_lookup_min", pl->int_min, pl->int_max, pl_expected);
  const auto lmax = s.integer("prompt_lookup_max", pl->int_min, pl->int_max, pl_expected);
  if (lmin && lmax && *lmin > *lmax && (method == "ngram" || method == "ngram_gpu")) {
    s.error("prompt_lookup_min", "prompt_lookup_min=" + std::to_string(*lmin) +
                                     " must be <= prompt_lookup_max=" + std::to_string(*lmax) +
                                     " [" + c.vllm() + " SpeculativeConfig.__post_init__]");
  }
  // acceptance_rate is BLIS Playground's own key, not a pydantic field: strictly typed.
  const ArgSpec* ar = c.pack.arg("speculative_config.acceptance_rate");
  s.lax_numbers("");
  const auto rate = s.number("acceptance_rate", ar->float_min, ar->min_exclusive, ar->float_max,
                             ar->expected + " (per-draft-token acceptance)");
  lax_reader(c, s);
  if (rate) sc.acceptance_rate = *rate;
  if (model) {
    sc.model = *model;
    s.warning("model",
              "BLIS Playground does not run a draft model; acceptance comes from acceptance_rate");
  }
  read_speculative_fields(c, s, method, sc.num_speculative_tokens);
  s.report_unknown_keys();
  c.args.speculative_config = sc;
}

void read_kv_transfer(Context& c, FieldReader& r) {
  const json* raw = r.raw("kv_transfer_config");
  if (!raw) return;
  FieldReader k(*raw, c.ptr("kv_transfer_config"), c.diags, accepted_kv_transfer_keys(),
                "an object (kv_transfer_config)");
  if (!k.valid()) return;
  lax_reader(c, k);
  // vllm/config/kv_transfer.py KVTransferConfig: the fields that are not Optional; None reaches
  // pydantic, which refuses it (kv_connector, engine_id, kv_role, kv_rank and
  // kv_connector_module_path are `X | None`).
  for (const char* key :
       {"kv_buffer_device", "kv_buffer_size", "kv_parallel_size", "kv_ip", "kv_port",
        "kv_connector_extra_config", "enable_permute_local_kv", "kv_load_failure_policy"}) {
    const auto it = raw->find(key);
    if (it == raw->end() || !it->is_null()) continue;
    k.error(key, std::string("null is not accepted: ") + key + " is not Optional in " + c.vllm() +
                     " (KVTransferConfig); leave the key out for vLLM's default");
  }
  engine_args::KvTransferConfig kt;
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
  // Transport plumbing that does not change scheduling: type-checked as KVTransferConfig
  // declares it (plain int / float / bool / Literal, no bounds), otherwise unused.
  constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
  k.string("engine_id");
  k.string("kv_ip");
  k.integer("kv_port", kInt64Min, kInt64Max, "an integer (kv_port: int)");
  k.integer("kv_rank", kInt64Min, kInt64Max, "an integer (kv_rank: int | None)");
  k.integer("kv_parallel_size", kInt64Min, kInt64Max, "an integer (kv_parallel_size: int)");
  k.number("kv_buffer_size", -1e308, false, 1e308, "a number (kv_buffer_size: float)");
  k.lax_boolean("enable_permute_local_kv", c.vllm() + "'s pydantic config classes");
  // Takes effect when a KV load fails (a decode pool's kv_pull_failure_rate).
  if (auto s =
          k.choice("kv_load_failure_policy", {"recompute", "fail"},
                   "is not accepted by " + c.vllm() + " (KVTransferConfig.kv_load_failure_policy)"))
    kt.kv_load_failure_policy = *s;
  if (k.has("enable_permute_local_kv"))
    k.warning("enable_permute_local_kv",
              "has no effect on what BLIS Playground simulates; ignored");
  if (const json* extra = k.raw("kv_connector_extra_config")) {
    // vLLM passes this dict to the connector unchecked; only OffloadingConnector's keys
    // change what BLIS simulates.
    FieldReader e(*extra, k.pointer("kv_connector_extra_config"), c.diags,
                  {"cpu_bytes_to_use", "block_size", "eviction_policy", "store_threshold"},
                  "an object");
    if (e.valid()) {
      if (auto b = e.integer("cpu_bytes_to_use", 1, kInt64Max, "a number of bytes >= 1", true)) {
        kt.cpu_bytes_to_use = *b;
      }
      if (auto b =
              e.integer("block_size", 1, kInt32Max, "an integer >= 1 (tokens per CPU block)")) {
        kt.offload_block_size = static_cast<std::int32_t>(*b);
      }
      // kv_offload/cpu/spec.py: the policy name (checked by check_offloading) and
      // int(store_threshold).
      if (auto p = e.string("eviction_policy")) kt.eviction_policy = *p;
      if (auto t = e.integer("store_threshold", kInt64Min, kInt64Max,
                             "an integer (store_threshold; below 2: no filtering)")) {
        kt.store_threshold = *t;
      }
      for (auto it = extra->begin(); it != extra->end(); ++it) {
        if (it.key() == "cpu_bytes_to_use" || it.key() == "block_size" ||
            it.key() == "eviction_policy" || it.key() == "store_threshold")
          continue;
        e.warning(it.key(), "not modelled by BLIS Playground; ignored");
      }
    }
  }
  k.report_unknown_keys();
  c.args.kv_transfer_config = kt;
}

}  // namespace detail
}  // namespace blis::rules
