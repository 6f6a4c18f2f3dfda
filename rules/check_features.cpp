// LoRA, speculative decoding with async scheduling, and quantization checks.

#include <algorithm>

#include "rules/resolve_context.h"

namespace blis::rules::detail {

namespace {

void check_lora(Context& c) {
  auto& a = c.args;
  if (!a.enable_lora) {
    // vllm/engine/arg_utils.py create_engine_config builds a LoRAConfig only with enable_lora.
    // Values equal to the defaults say nothing (encode_scenario writes them out).
    const bool loras = c.set.max_loras_unused && *c.set.max_loras_unused != 1;
    const bool rank = c.set.max_lora_rank && a.max_lora_rank != c.pack.max_lora_rank_default;
    const bool cpu = c.set.max_cpu_loras && a.max_cpu_loras != a.max_loras;
    for (const auto& [set, key] : {std::pair{loras, "max_loras"}, std::pair{rank, "max_lora_rank"},
                                   std::pair{cpu, "max_cpu_loras"}}) {
      if (set) c.warning(c.ptr(key), "has no effect without enable_lora: true");
    }
    return;
  }
  // vllm/config/lora.py LoRAConfig._validate_lora_config.
  if (a.max_cpu_loras < a.max_loras) {
    c.error(c.ptr("max_cpu_loras"), std::to_string(a.max_cpu_loras) + ": max_cpu_loras (" +
                                        std::to_string(a.max_cpu_loras) +
                                        ") must be >= max_loras (" + std::to_string(a.max_loras) +
                                        ").");
  }
  // vllm/engine/arg_utils.py create_engine_config: LoRA with speculative decoding needs a
  // budget of max_num_seqs * (1 + k) tokens.
  const auto& spec = a.speculative_config;
  if (spec && spec->num_speculative_tokens > 0) {
    const std::int64_t need = static_cast<std::int64_t>(a.max_num_seqs) *
                              (static_cast<std::int64_t>(spec->num_speculative_tokens) + 1);
    if (a.max_num_batched_tokens < need) {
      c.error(c.ptr("max_num_batched_tokens"),
              std::to_string(a.max_num_batched_tokens) +
                  ": with LoRA and speculative decoding max_num_batched_tokens must be >= "
                  "max_num_seqs * (num_speculative_tokens + 1) = " +
                  std::to_string(need) +
                  ". Consider increasing max_num_batched_tokens or decreasing "
                  "num_speculative_tokens [" +
                  c.vllm() + " EngineArgs.create_engine_config]");
    }
  }
}

// Without speculative decoding vLLM checks nothing more than Field(ge=0): Scheduler takes an
// explicit value as its token budget (vllm/v1/core/sched/scheduler.py Scheduler.__init__).
void check_scheduled_tokens_without_spec(Context& c) {
  const auto& a = c.args;
  if (!a.max_num_scheduled_tokens) return;
  const std::string ptr = c.ptr("max_num_scheduled_tokens");
  const std::int32_t t = *a.max_num_scheduled_tokens;
  if (t == 0) {
    // Accepted (SchedulerConfig Field(ge=0); VllmConfig._set_max_num_scheduled_tokens checks
    // only with a speculative config), but Scheduler.schedule then has a token budget of 0.
    c.warning(ptr, "0: accepted by " + c.vllm() +
                       " (SchedulerConfig Field(ge=0)), but its scheduler then has a token "
                       "budget of 0 and never schedules a token: no request is ever served");
  } else if (t > a.max_num_batched_tokens) {
    c.warning(ptr, std::to_string(t) + ": above max_num_batched_tokens (" +
                       std::to_string(a.max_num_batched_tokens) +
                       "); vLLM does not check it, and its scheduler then issues more tokens per "
                       "step than the worker is sized for [" +
                       c.vllm() + " SchedulerConfig.max_num_scheduled_tokens]");
  }
}

// vllm/config/vllm.py VllmConfig._set_max_num_scheduled_tokens: with speculative decoding
// the scheduler issues max_num_batched_tokens minus the drafter's extra slots
// (max_num_new_slots_for_drafting: one per request for draft_model, none otherwise), or the
// explicit max_num_scheduled_tokens, which must leave those slots free.
void check_draft_slots(Context& c) {
  const auto& a = c.args;
  const std::string explicit_ptr = c.ptr("max_num_scheduled_tokens");
  if (!a.speculative_config) {
    check_scheduled_tokens_without_spec(c);
    return;
  }
  const std::int64_t slots = a.speculative_config->method == "draft_model" ? 1 : 0;
  const std::int64_t delta = slots * a.max_num_seqs;
  const bool given = a.max_num_scheduled_tokens.has_value();
  const std::int64_t scheduled = given
                                     ? *a.max_num_scheduled_tokens
                                     : static_cast<std::int64_t>(a.max_num_batched_tokens) - delta;
  const std::string ptr = given ? explicit_ptr : c.ptr("max_num_batched_tokens");
  const std::string shown =
      std::to_string(given ? scheduled : static_cast<std::int64_t>(a.max_num_batched_tokens));
  if (scheduled <= 0) {
    c.error(ptr, shown + ": max_num_scheduled_tokens is set to " + std::to_string(scheduled) +
                     " based on the speculative decoding settings, which does not allow any "
                     "tokens to be scheduled. Increase max_num_batched_tokens to accommodate the "
                     "additional draft token slots, or decrease num_speculative_tokens or "
                     "max_num_seqs. [" +
                     c.vllm() + " VllmConfig._set_max_num_scheduled_tokens]");
    return;
  }
  if (scheduled < 8192) {
    c.warning(ptr, shown + ": max_num_scheduled_tokens is set to " + std::to_string(scheduled) +
                       " based on the speculative decoding settings. This may lead to "
                       "suboptimal performance. [" +
                       c.vllm() + "]");
  }
  if (given && a.max_num_batched_tokens < scheduled + delta) {
    c.error(explicit_ptr,
            shown +
                ": VllmConfig received max_num_scheduled_tokens but it does not have enough "
                "slots to support the speculative decoding settings. It should be greater by at "
                "least " +
                std::to_string(delta) +
                ", but got max_num_batched_tokens=" + std::to_string(a.max_num_batched_tokens) +
                " and max_num_scheduled_tokens=" + shown + ". [" + c.vllm() +
                " VllmConfig._set_max_num_scheduled_tokens]");
  }
}

// vllm/config/vllm.py VllmConfig.__post_init__: the async_scheduling tri-state.
void resolve_async(Context& c) {
  auto& a = c.args;
  const auto& spec = a.speculative_config;
  const bool spec_incompatible =
      spec && !spec->method.empty() && !contains(c.pack.async_speculative_methods, spec->method);
  if (c.set.async_scheduling.has_value()) {
    a.async_scheduling = *c.set.async_scheduling;
    if (a.async_scheduling && spec_incompatible) {
      c.error(
          c.ptr("async_scheduling"),
          "true: currently, async scheduling is only supported with EAGLE/MTP/Draft Model/NGram "
          "GPU/DSpark kind of speculative decoding (speculative_config.method is \"" +
              spec->method + "\") [" + c.vllm() + " VllmConfig.__post_init__]");
    } else if (a.async_scheduling && spec && c.set.disable_padded_drafter_batch) {
      c.error(c.ptr("async_scheduling"),
              "true: async scheduling is not compatible with "
              "speculative_config.disable_padded_drafter_batch=True [" +
                  c.vllm() + " VllmConfig.__post_init__]");
    }
    return;
  }
  if (c.pack.async_scheduling_default == AsyncDefault::kOff) {
    a.async_scheduling = false;
    return;
  }
  // VllmConfig.__post_init__ with async_scheduling None.
  if (spec && !spec->method.empty() &&
      !contains(c.pack.async_auto_speculative_methods, spec->method)) {
    c.warning(c.ptr("speculative_config") + "/method",
              "async scheduling not supported with " + spec->method +
                  "-based speculative decoding and will be disabled [" + c.vllm() + "]");
    a.async_scheduling = false;
    return;
  }
  if (spec && c.set.disable_padded_drafter_batch) {
    c.warning(c.ptr("speculative_config") + "/disable_padded_drafter_batch",
              "true: async scheduling is not compatible with disable_padded_drafter_batch=True "
              "and will be disabled [" +
                  c.vllm() + "]");
    a.async_scheduling = false;
    return;
  }
  // The executor BLIS models (mp / uni) supports async scheduling.
  a.async_scheduling = true;
}

void check_quantization(Context& c) {
  auto& a = c.args;
  const ModelFacts& m = c.facts.model;
  if (a.quantization.empty() || !m.known) return;
  const std::string ptr = c.ptr("quantization");
  if (m.checkpoint_quantization.empty()) {
    if (a.quantization != "fp8") {
      if (contains(c.pack.online_quantization_methods, a.quantization)) return;
      // weight_utils.py get_quant_config: an unquantized checkpoint has no quantization config.
      c.error(ptr, "\"" + a.quantization + "\" needs a checkpoint quantized with " +
                       a.quantization + "; this model's checkpoint is unquantized (" +
                       m.checkpoint_dtype +
                       "). Online methods: \"fp8_per_tensor\", \"fp8_per_block\", ... [" +
                       c.vllm() + "]");
      return;
    }
    if (c.pack.fp8_online == Fp8Online::kAccept) {
      // fp8.py Fp8Config.get_quant_method: no serialized checkpoint -> online per tensor.
      a.quantization = "fp8_per_tensor";
    } else if (c.pack.fp8_online == Fp8Online::kRefuse) {
      // vllm/model_executor/layers/quantization/fp8.py@v0.31.0 Fp8Config.
      c.error(ptr, "\"fp8\" is not accepted by " + c.vllm() +
                       " for an unquantized checkpoint: online FP8 quantization is spelled "
                       "\"fp8_per_tensor\" (or \"fp8_per_block\")");
    } else {
      // vllm/model_executor/model_loader/weight_utils.py (v0.30.0): deprecated alias.
      c.warning(ptr,
                "\"fp8\": --quantization fp8 is deprecated for online quantization; use "
                "--quantization fp8_per_tensor instead [" +
                    c.vllm() + "]");
      a.quantization = "fp8_per_tensor";
    }
    return;
  }
  // A quantized checkpoint: vLLM refuses a different method, except the Marlin kernels of
  // the same format (gptq -> gptq_marlin, awq -> awq_marlin) and the online shorthands,
  // which do not apply to pre-quantized weights.
  const std::string& ckpt = m.checkpoint_quantization;
  if (a.quantization == ckpt || a.quantization == ckpt + "_marlin") return;
  c.error(
      ptr,
      "\"" + a.quantization + "\": quantization method specified in the model config (" + ckpt +
          ") does not match the quantization method specified in the `quantization` argument (" +
          a.quantization + ") [" + c.vllm() + " ModelConfig._verify_quantization]");
}

// vllm/config/model.py ModelConfig._verify_quantization (l.1292): a method of
// DEPRECATED_QUANTIZATION_METHODS raises unless allow_deprecated_quantization, then warns.
void check_deprecated_quantization(Context& c) {
  const std::string& q = c.args.quantization;
  if (q.empty() || !contains(c.pack.deprecated_quantization_methods, q)) return;
  const std::string text = "The quantization method " + q +
                           " is deprecated and will be removed in future versions of vLLM";
  if (c.set.allow_deprecated_quantization) {
    c.warning(c.ptr("quantization"), "\"" + q + "\": " + text + " [" + c.vllm() + "]");
  } else {
    c.error(c.ptr("quantization"), "\"" + q + "\": " + text +
                                       ". To bypass, set allow_deprecated_quantization: true [" +
                                       c.vllm() + " ModelConfig._verify_quantization]");
  }
}

// vllm/config/vllm.py VllmConfig.validate_nvfp4_kv_cache_with_mla (l.2420).
void check_kv_cache_dtype(Context& c) {
  if (c.args.kv_cache_dtype != "nvfp4" || !c.facts.model.known || !c.facts.model.use_mla) return;
  c.error(c.ptr("kv_cache_dtype"),
          "\"nvfp4\": nvfp4 KV cache is not supported with MLA (Multi-head Latent Attention) "
          "backends. Please use a different kv_cache_dtype (e.g., 'fp8' or 'auto') for MLA "
          "models such as DeepSeek [" +
              c.vllm() + " VllmConfig.validate_nvfp4_kv_cache_with_mla]");
}

}  // namespace

void check_features(Context& c) {
  check_lora(c);
  check_draft_slots(c);
  resolve_async(c);
  check_quantization(c);
  check_deprecated_quantization(c);
  check_kv_cache_dtype(c);
}

}  // namespace blis::rules::detail
