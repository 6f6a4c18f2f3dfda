// The combinations of engine arguments that vLLM 8d9b52f7 refuses while it assembles the
// VllmConfig (vllm/engine/arg_utils.py EngineArgs.create_engine_config, vllm/config/vllm.py
// VllmConfig.__post_init__), where at least one side is a key BLIS Playground reads but does
// not model: LoRA defaults for a text model, routed-expert capture, Mamba stochastic
// rounding, fast prefill with EAGLE, the "set both" overrides, microbatching's all2all
// backends, and VllmConfig's model validators and validate_block_size on the Mamba and
// context-parallel keys, and quantization_config (resolve_quantization_config). A key whose own
// reading was refused is not checked again.

#include <string>

#include "rules/given_args.h"

namespace blis::rules::detail {

namespace {

using nlohmann::json;

// vllm/engine/arg_utils.py:2322 EngineArgs.create_engine_config: default_mm_loras on a model
// that is not multimodal is refused whether or not enable_lora builds a LoRAConfig.
void check_default_mm_loras(Context& c) {
  const json* v = given(c, "default_mm_loras");
  if (!v || !v->is_object() || v->empty()) return;  // an empty dict is falsy
  if (!c.facts.model.known || c.facts.model.is_multimodal) return;
  c.error(c.ptr("default_mm_loras"),
          show(*v) +
              ": Default modality-specific LoRA(s) were provided for a non multimodal model" +
              cite(c, "EngineArgs.create_engine_config"));
}

// vllm/config/vllm.py:1007-1027 VllmConfig.__post_init__: routed-expert capture refuses
// pipeline parallelism and an explicit KV connector (is_kv_transfer_instance; the connector
// kv_offloading_size selects is set up later, in _post_init_kv_transfer_config, and passes).
void check_routed_experts(Context& c) {
  if (!flag(c, "enable_return_routed_experts")) return;
  const std::string p = c.ptr("enable_return_routed_experts");
  if (c.facts.pp > 1) {
    c.error(p,
            "true: --enable-return-routed-experts is incompatible with pipeline "
            "parallelism (PP > 1); the pool's parallelism.pp is " +
                std::to_string(c.facts.pp) + cite(c, "VllmConfig.__post_init__"));
    return;
  }
  const json* connector = given_field(c, "kv_transfer_config", "kv_connector");
  const json* role = given_field(c, "kv_transfer_config", "kv_role");
  if (connector && role && !refused_at(c, c.ptr("kv_transfer_config"))) {
    c.error(p,
            "true: --enable-return-routed-experts is incompatible with KV connectors (PD "
            "disaggregation, KV cache offload): kv_transfer_config selects " +
                show(*connector) + cite(c, "VllmConfig.__post_init__"));
  }
}

// vllm/config/vllm.py:1034 VllmConfig.__post_init__: MambaConfig.enable_stochastic_rounding
// (mamba_config's field, or enable_mamba_cache_stochastic_rounding, which arg_utils.py:2401
// copies in when true) needs CacheConfig.mamba_ssm_cache_dtype "float16" (its default "auto"
// is not). The check does not depend on the model.
void check_mamba_rounding(Context& c) {
  std::string p;
  if (flag(c, "enable_mamba_cache_stochastic_rounding")) {
    p = c.ptr("enable_mamba_cache_stochastic_rounding");
  } else if (is_true(given_field(c, "mamba_config", "enable_stochastic_rounding"))) {
    p = c.ptr("mamba_config") + "/enable_stochastic_rounding";
  } else {
    return;
  }
  const std::string dtype = text(c, "mamba_ssm_cache_dtype", "auto");
  if (dtype == "float16" || refused_at(c, c.ptr("mamba_ssm_cache_dtype"))) return;
  c.error(p,
          "true: Stochastic rounding for Mamba cache requires the SSM cache to be float16 "
          "(mamba_ssm_cache_dtype is \"" +
              dtype +
              "\"). Set mamba_ssm_cache_dtype to \"float16\", or disable stochastic "
              "rounding." +
              cite(c, "VllmConfig.__post_init__"));
}

// vllm/config/vllm.py:1462 VllmConfig.__post_init__: kv_sharing_fast_prefill with a method of
// SpeculativeConfig.use_eagle (eagle, eagle3, mtp, dflash, dspark; the MTP model types were
// already replaced by mtp).
void check_fast_prefill(Context& c) {
  if (!flag(c, "kv_sharing_fast_prefill") || !c.args.speculative_config) return;
  const std::string& m = c.args.speculative_config->method;
  if (m != "eagle" && m != "eagle3" && m != "mtp" && m != "dflash" && m != "dspark") return;
  c.error(c.ptr("kv_sharing_fast_prefill"),
          "true: Fast prefill optimization for KV sharing is not compatible with EAGLE "
          "(speculative_config.method \"" +
              m +
              "\") as EAGLE requires correct logits for all tokens while fast prefill gives "
              "incorrect logits for prompt tokens." +
              cite(c, "VllmConfig.__post_init__"));
}

// A backend name that AttentionConfig.validate_backend_before does not turn into None.
bool backend_set(const json* v) {
  return v && !(v->is_string() && lower(v->get<std::string>()) == "auto");
}

// vllm/engine/arg_utils.py:2367-2442 EngineArgs.create_engine_config: a top-level argument
// and the field of its config object it overrides may not both be set.
void check_overrides(Context& c) {
  const std::string where = "EngineArgs.create_engine_config";
  if (backend_set(given(c, "attention_backend")) &&
      backend_set(given_field(c, "attention_config", "backend"))) {
    c.error(
        c.ptr("attention_backend"),
        "attention_backend and attention_config.backend are mutually exclusive" + cite(c, where));
  }
  if (given(c, "enable_flashinfer_autotune") &&
      given_field(c, "kernel_config", "enable_flashinfer_autotune")) {
    c.error(c.ptr("enable_flashinfer_autotune"),
            "enable_flashinfer_autotune and kernel_config.enable_flashinfer_autotune are "
            "mutually exclusive" +
                cite(c, where));
  }
  // IrOpPriorityConfig._to_list_str: a string is split at commas (never empty), a list is
  // set when it has an entry ("Empty means unset").
  const auto op_set = [](const json* v) {
    return v && (v->is_string() || (v->is_array() && !v->empty()));
  };
  const json* kernel_ops = given_field(c, "kernel_config", "ir_op_priority");
  for (const char* op : {"rms_norm", "fused_add_rms_norm"}) {
    if (!op_set(given_field(c, "ir_op_priority", op))) continue;
    if (!kernel_ops || !kernel_ops->is_object() || !kernel_ops->contains(op)) continue;
    if (!op_set(&(*kernel_ops)[op])) continue;
    c.error(c.ptr("ir_op_priority") + "/" + op,
            std::string("Op priority for ") + op +
                " specified via both ir_op_priority and KernelConfig.ir_op_priority, only one "
                "allowed at a time." +
                cite(c, where));
  }
}

// vllm/config/vllm.py:1597 VllmConfig.__post_init__: microbatching
// (ParallelConfig.use_ubatching: enable_dbo or ubatch_size > 1) asserts a DeepEP or NIXL EP
// all2all backend.
void check_ubatching(Context& c) {
  std::string p;
  if (flag(c, "enable_dbo")) {
    p = c.ptr("enable_dbo");
  } else if (int_arg(c, "ubatch_size").value_or(0) > 1) {
    p = c.ptr("ubatch_size");
  } else {
    return;
  }
  const std::string backend = text(c, "all2all_backend", "allgather_reducescatter");
  if (backend == "deepep_low_latency" || backend == "deepep_high_throughput" ||
      backend == "nixl_ep" || refused_at(c, c.ptr("all2all_backend"))) {
    return;
  }
  c.error(p,
          "Microbatching currently only supports the deepep_low_latency, "
          "deepep_high_throughput, and nixl_ep all2all backends. " +
              backend + " is not supported (set all2all_backend)." +
              cite(c, "VllmConfig.__post_init__"));
}

// vllm/config/vllm.py:2432 VllmConfig.validate_mamba_block_size: a mamba_block_size other than
// max_model_len needs prefix caching (as resolved: on by default).
void check_mamba_block_size(Context& c) {
  const auto mbs = int_arg(c, "mamba_block_size");
  if (!mbs || *mbs == c.args.max_model_len || c.args.enable_prefix_caching) return;
  c.error(c.ptr("mamba_block_size"),
          std::to_string(*mbs) +
              ": --mamba-block-size can only be set with "
              "--enable-prefix-caching (enable_prefix_caching is false)" +
              cite(c, "VllmConfig.validate_mamba_block_size"));
}

// vllm/config/vllm.py:2446 VllmConfig.validate_mamba_cached_kernel: ReplaySSM needs a model
// that supports it (Nemotron-H; the catalog holds none), prefix caching in align mode (not
// "all"), no speculative decoding, the Triton Mamba backend and no KV connector (the one
// kv_offloading_size selects included: the validator runs after __post_init__).
void check_replayssm(Context& c) {
  if (!flag(c, "use_replayssm")) return;
  const std::string p = c.ptr("use_replayssm");
  const std::string where = cite(c, "VllmConfig.validate_mamba_cached_kernel");
  // create_engine_config (arg_utils.py:2395) sets MambaConfig.backend from mamba_backend
  // (default TRITON) whatever mamba_config says.
  const std::string backend = text(c, "mamba_backend", "TRITON");
  const json* connector = given_field(c, "kv_transfer_config", "kv_connector");
  const json* role = given_field(c, "kv_transfer_config", "kv_role");
  if (c.facts.model.known) {
    c.error(p,
            "true: --use-replayssm is only supported for Nemotron-H models (the pool's model "
            "is not one)" +
                where);
  } else if (text(c, "mamba_cache_mode", "none") == "all") {
    c.error(p,
            "true: --use-replayssm supports prefix caching only in align mode; pass "
            "--mamba-cache-mode align" +
                where);
  } else if (c.args.speculative_config) {
    c.error(p, "true: --use-replayssm does not support speculative decoding" + where);
  } else if (upper(backend) != "TRITON") {
    c.error(p, "true: --use-replayssm requires --mamba-backend triton" + where);
  } else if ((connector && role) || c.set.kv_offloading_size) {
    c.error(p,
            "true: --use-replayssm is incompatible with KV connectors (P/D disaggregation, KV "
            "cache offload)" +
                where);
  }
}

// vllm/config/vllm.py:2380 VllmConfig.validate_block_size (vllm/v1/engine/core.py:324, at
// engine start): with decode context parallelism the interleave size (dcp_kv_cache_interleave_
// size when > 1 overrides cp_kv_cache_interleave_size) must divide the block size and not
// exceed it; Mamba's align mode needs chunked multimodal input.
void check_block_size_final(Context& c) {
  const std::string where = cite(c, "VllmConfig.validate_block_size");
  if (int_arg(c, "decode_context_parallel_size").value_or(1) > 1) {
    const std::int64_t dcp_i = int_arg(c, "dcp_kv_cache_interleave_size").value_or(1);
    const bool from_dcp = dcp_i > 1;
    const std::int64_t i = from_dcp ? dcp_i : int_arg(c, "cp_kv_cache_interleave_size").value_or(1);
    const std::int64_t bs = c.args.block_size;
    if (!(i <= bs && i != 0 && bs % i == 0)) {
      c.error(c.ptr(from_dcp ? "dcp_kv_cache_interleave_size" : "cp_kv_cache_interleave_size"),
              std::to_string(i) + ": Block_size(" + std::to_string(bs) +
                  ") should be greater than or equal to and divisible by "
                  "cp_kv_cache_interleave_size (" +
                  std::to_string(i) + ")." + where);
    }
  }
  if (text(c, "mamba_cache_mode", "none") == "align" && flag(c, "disable_chunked_mm_input")) {
    c.error(c.ptr("disable_chunked_mm_input"),
            "true: Chunked MM input is required because we need the flexibility to schedule a "
            "multiple of block_size tokens even if they are in the middle of a mm input "
            "(mamba_cache_mode align)" +
                where);
  }
}

// vllm/config/model.py:1418-1446 ModelConfig.verify_with_parallel_config (from
// VllmConfig.__post_init__): decode context parallelism on a GQA/MQA model (not MLA) needs
// tp > the KV heads, dcp <= tp / KV heads, and dcp dividing the query heads per KV head.
void check_dcp_heads(Context& c) {
  const auto dcp = int_arg(c, "decode_context_parallel_size");
  const auto& m = c.facts.model;
  if (!dcp || *dcp <= 1 || !m.known || m.use_mla || m.num_kv_heads <= 0) return;
  const std::string p = c.ptr("decode_context_parallel_size");
  const std::string where = cite(c, "ModelConfig.verify_with_parallel_config");
  const std::int64_t tp = c.facts.tp, kv = m.num_kv_heads;
  if (tp <= kv) {
    c.error(p, std::to_string(*dcp) +
                   ": Decode context parallelism for GQA/MQA requires --tensor-parallel-size (" +
                   std::to_string(tp) +
                   ") to be greater than the model's total number of KV heads (" +
                   std::to_string(kv) + ")." + where);
  } else if (*dcp > tp / kv) {
    c.error(p, std::to_string(*dcp) +
                   ": --decode-context-parallel-size exceeds the maximum "
                   "supported value (" +
                   std::to_string(tp / kv) + ") for --tensor-parallel-size (" + std::to_string(tp) +
                   ") and " + std::to_string(kv) + " model KV heads." + where);
  } else if ((m.num_attention_heads / kv) % *dcp != 0) {
    c.error(p, std::to_string(*dcp) + ": The model's number of query heads per KV head (" +
                   std::to_string(m.num_attention_heads / kv) +
                   ") must be divisible by --decode-context-parallel-size for GQA/MQA." + where);
  }
}

// vllm/config/quantization.py: QUANT_KEY_NAMES, and the shorthands of _ONLINE_SHORTHANDS with
// the fields they define (int8_per_channel_weight_only and nvfp4_per_token define no linear).
const char* const kQuantKeys[] = {
    "fp8_per_tensor_static",  "fp8_per_tensor_dynamic", "fp8_per_token", "fp8_per_channel_static",
    "fp8_per_block_static",   "fp8_per_block_dynamic",  "mxfp8",         "mxfp4",
    "int8_per_channel_static"};
const char* const kShorthands[] = {
    "fp8_per_tensor", "fp8_per_block", "fp8_per_channel", "mxfp8", "int8_per_channel_weight_only",
    "nvfp4_per_token"};

bool one_of(const std::string& s, std::initializer_list<const char*> names) {
  for (const char* n : names) {
    if (s == n) return true;
  }
  return false;
}

// The reason `v` is not a QuantSpec for field `f` (QuantizationConfigArgs._coerce_spec,
// QuantSpec with _coerce_quant_key), or "".
std::string quant_spec_problem(const json& v, const std::string& f) {
  const auto key_ok = [](const json& k) {
    if (k.is_null()) return true;
    if (!k.is_string()) return false;
    for (const char* n : kQuantKeys) {
      if (k == n) return true;
    }
    return false;
  };
  const std::string names =
      "expected one of fp8_per_block_dynamic, fp8_per_block_static, fp8_per_channel_static, "
      "fp8_per_tensor_dynamic, fp8_per_tensor_static, fp8_per_token, int8_per_channel_static, "
      "mxfp4, mxfp8";
  if (v.is_null()) return "";
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    for (const char* n : kShorthands) {
      if (s != n) continue;
      if (f == "linear" && one_of(s, {"int8_per_channel_weight_only", "nvfp4_per_token"})) {
        return "online shorthand '" + s + "' does not define a linear spec";
      }
      return "";
    }
    return key_ok(v) ? "" : "unknown quantization name '" + s + "'; " + names;
  }
  if (!v.is_object()) return "expected a shorthand or quantization name, or a QuantSpec object";
  for (auto it = v.begin(); it != v.end(); ++it) {
    if (it.key() != "weight" && it.key() != "activation") {
      return "unknown QuantSpec field '" + it.key() + "' (weight, activation; extra=\"forbid\")";
    }
    if (!key_ok(*it)) return it.key() + ": " + show(*it) + ": " + names;
  }
  return "";
}

// vllm/config/quantization.py resolve_quantization_config (EngineArgs.__post_init__): a
// quantization_config needs quantization unset or an online shorthand ("online" included), and
// a dict becomes a QuantizationConfigArgs (linear, moe: QuantSpec | None; ignore: list[str];
// extra="forbid").
void check_quantization_config(Context& c) {
  const json* qc = given(c, "quantization_config");
  if (!qc || !qc->is_object()) return;
  const std::string p = c.ptr("quantization_config");
  const std::string where = cite(c, "resolve_quantization_config");
  // The raw quantization (EngineArgs.__post_init__ runs before ModelConfig checks it).
  const auto qi = c.raw->find("quantization");
  if (const json* q = qi == c.raw->end() ? nullptr : &*qi; q && q->is_string()) {
    const std::string s = q->get<std::string>();
    bool online = s == "online";
    for (const char* n : kShorthands) online = online || s == n;
    if (!online) {
      c.error(p,
              "quantization_config is only supported when quantization is one of "
              "fp8_per_block, fp8_per_channel, fp8_per_tensor, int8_per_channel_weight_only, "
              "mxfp8, nvfp4_per_token, online; got quantization='" +
                  s + "'" + where);
      return;
    }
  }
  for (auto it = qc->begin(); it != qc->end(); ++it) {
    const std::string fp = json_pointer_append(p, it.key());
    if (it.key() == "linear" || it.key() == "moe") {
      const std::string why = quant_spec_problem(*it, it.key());
      if (!why.empty()) c.error(fp, show(*it) + ": " + why + where);
    } else if (it.key() == "ignore") {
      bool ok = it->is_array();
      for (std::size_t i = 0; ok && i < it->size(); ++i) ok = (*it)[i].is_string();
      if (!ok) c.error(fp, type_mismatch(*it, "a list of strings (ignore: list[str])") + where);
    } else {
      c.error(fp,
              "unknown key: QuantizationConfigArgs takes linear, moe, ignore "
              "(extra=\"forbid\")" +
                  where);
    }
  }
}

// vllm/config/vllm.py:1517 VllmConfig.__post_init__: a configuration that needs Model Runner
// V2 (use_v2_model_runner: prefill context parallelism, or speculative method dspark; the
// environment's VLLM_USE_V2_MODEL_RUNNER is taken as unset) is refused when it has a feature
// V2 lacks (_get_v2_model_runner_unsupported_features, l.2288; logits-processor plugins
// installed as entry points are not modelled). The error points at the first such feature.
void check_v2_model_runner(Context& c) {
  const bool pcp = int_arg(c, "prefill_context_parallel_size").value_or(1) > 1;
  const std::string method = c.args.speculative_config ? c.args.speculative_config->method : "";
  if (!pcp && method != "dspark") return;
  const std::string why = pcp ? "prefill_context_parallel_size > 1" : "speculative method dspark";
  std::vector<std::pair<std::string, std::string>> unsupported;  // (pointer, feature)
  const auto add = [&](const std::string& p, const std::string& f) {
    unsupported.emplace_back(p, f);
  };
  if (pcp && c.facts.model.known && !c.facts.model.use_mla) {
    add(c.ptr("prefill_context_parallel_size"), "prefill context parallelism");
  }
  if (c.set.compilation_mode == "STOCK_TORCH_COMPILE") {
    add(c.ptr("compilation_config") + "/mode", "stock torch.compile");
  }
  const json* pass = given_field(c, "compilation_config", "pass_config");
  const auto pass_on = [&](const char* k) {
    return pass && pass->is_object() && pass->contains(k) && is_true(&(*pass)[k]);
  };
  if ((pass_on("enable_sp") || pass_on("fuse_gemm_comms")) && c.facts.tp > 1) {
    add(c.ptr("compilation_config") + "/pass_config", "sequence parallelism");
  }
  if (text(c, "distributed_executor_backend", "") == "external_launcher" && c.facts.pp > 1) {
    add(c.ptr("distributed_executor_backend"), "pipeline parallelism with external_launcher");
  }
  if (!method.empty()) {
    const std::string sp = c.ptr("speculative_config");
    if (method == "ngram" || method == "ngram_gpu") {
      add(sp + "/method", "ngram/ngram_gpu speculative decoding");
    } else if (method != "eagle" && method != "eagle3" && method != "mtp" && method != "dflash" &&
               method != "dspark") {
      add(sp + "/method", "speculative method '" + method + "'");
    }
    if (is_true(given_field(c, "speculative_config", "parallel_drafting")) && method != "dflash" &&
        method != "dspark") {
      add(sp + "/parallel_drafting", "parallel drafting for EAGLE speculative decoding");
    }
    if (method == "eagle3" && c.facts.pp > 1)
      add(sp + "/method", "EAGLE3 with pipeline parallelism");
  }
  if (flag(c, "enable_dbo")) add(c.ptr("enable_dbo"), "dual batch overlap");
  if (flag(c, "enable_elastic_ep")) add(c.ptr("enable_elastic_ep"), "elastic expert parallelism");
  if (const json* lp = given(c, "logits_processors"); lp && lp->is_array() && !lp->empty()) {
    add(c.ptr("logits_processors"), "custom logits processors");
  }
  if (flag(c, "enable_prompt_embeds")) add(c.ptr("enable_prompt_embeds"), "prompt embeds");
  if (flag(c, "kv_sharing_fast_prefill")) {
    add(c.ptr("kv_sharing_fast_prefill"), "KV sharing fast prefill");
  }
  if (unsupported.empty() || refused_at(c, unsupported.front().first)) return;
  std::string list;
  for (const auto& u : unsupported) list += (list.empty() ? "" : ", ") + u.second;
  c.error(unsupported.front().first, "Model Runner V2 does not yet support: " + list + " (" + why +
                                         " needs Model Runner V2)" +
                                         cite(c, "VllmConfig._validate_v2_model_runner"));
}

}  // namespace

void check_combinations(Context& c) {
  check_quantization_config(c);
  check_dcp_heads(c);
  check_default_mm_loras(c);
  check_routed_experts(c);
  check_mamba_rounding(c);
  check_fast_prefill(c);
  check_overrides(c);
  check_ubatching(c);
  check_mamba_block_size(c);
  check_replayssm(c);
  check_block_size_final(c);
  check_v2_model_runner(c);
}

}  // namespace blis::rules::detail
