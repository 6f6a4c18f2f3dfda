#include "rules/packs/shared_tables.h"

#include <algorithm>
#include <limits>

namespace blis::rules::packs {

namespace {

// Every EngineArgs row of 8d9b52f7, in the order the rules reference lists them. The remaining
// fields (more_arg_specs*.cpp, config_object_specs.cpp): the unmodelled ones join
// unmodelled_args; the others are ignored_arg_keys (read_args.cpp).
void add_engine_arg_specs(Pack& p) {
  p.args = arg_specs_8d9b52f7();
  for (auto& a : speculative_arg_specs()) p.args.push_back(std::move(a));
  for (auto& a : other_arg_specs()) p.args.push_back(std::move(a));
  for (auto& a : remaining_arg_specs()) {
    if (a.unmodelled && a.key.find('.') == std::string::npos) p.unmodelled_args.push_back(a.key);
    p.args.push_back(std::move(a));
  }
}

}  // namespace

std::vector<ArgSpec> remaining_arg_specs() {
  std::vector<ArgSpec> rows = more_arg_specs();
  for (auto& a : more_arg_specs_mm()) rows.push_back(std::move(a));
  for (auto& a : config_object_specs()) rows.push_back(std::move(a));
  return rows;
}

Pack shared_v029_to_v032() {
  Pack p;

  // vllm/config/cache.py CacheConfig.block_size: `int = Field(default=None, gt=0)`,
  // None -> DEFAULT_BLOCK_SIZE = 16 (_apply_block_size_default). The CUDA attention
  // backends then take only multiples of 16 (FlashAttentionBackend / TritonAttentionBackend
  // .supports_block_size: block_size % 16 == 0, get_supported_kernel_block_sizes ->
  // [MultipleOf(16)]); with no backend left the selector raises.
  p.block_size = {{}, 16, 16};

  // vllm/config/cache.py CacheDType at 8d9b52f7. (nvfp4_ds_mla and nvfp4_4over6, which
  // an index copy listed, were never in upstream's CacheDType: `git log -S` finds no commit.)
  p.kv_cache_dtypes = {"auto",
                       "float16",
                       "bfloat16",
                       "fp8",
                       "fp8_e4m3",
                       "fp8_e5m2",
                       "fp8_inc",
                       "fp8_ds_mla",
                       "turboquant_k8v4",
                       "turboquant_4bit_nc",
                       "turboquant_k3v4_nc",
                       "turboquant_3bit_nc",
                       "int4_per_token_head",
                       "int8_per_token_head",
                       "fp8_per_token_head",
                       "nvfp4"};
  // vllm/config/cache.py PrefixCachingHashAlgo.
  p.prefix_caching_hash_algos = {"sha256", "sha256_cbor", "xxhash", "xxhash_cbor"};
  // vllm/config/scheduler.py SchedulerPolicy.
  p.scheduling_policies = {"fcfs", "priority"};
  // vllm/config/model.py ModelDType.
  p.dtypes = {"auto", "half", "float16", "bfloat16", "float", "float32"};
  // vllm/model_executor/layers/quantization/__init__.py QuantizationMethods at 8d9b52f7
  // (gguf moved to a plugin in PR #39612, 2026-06-12; cpu_awq merged into awq_marlin in
  // PR #43841, 2026-05-28: the older packs keep both).
  p.quantization_methods = {"awq",
                            "auto_awq",
                            "fp8",
                            "fbgemm_fp8",
                            "fp_quant",
                            "modelopt",
                            "modelopt_fp4",
                            "modelopt_mxfp8",
                            "modelopt_mixed",
                            "auto_gptq",
                            "gptq",
                            "gptq_marlin",
                            "awq_marlin",
                            "humming",
                            "compressed-tensors",
                            "bitsandbytes",
                            "experts_int8",
                            "quark",
                            "moe_wna16",
                            "torchao",
                            "inc",
                            "mxfp4",
                            "gpt_oss_mxfp4",
                            "deepseek_v4_fp8",
                            "online",
                            "fp8_per_tensor",
                            "fp8_per_block",
                            "fp8_per_channel",
                            "int8_per_channel_weight_only",
                            "nvfp4_per_token",
                            "mxfp8"};
  // vllm/model_executor/layers/quantization/__init__.py DEPRECATED_QUANTIZATION_METHODS at
  // 8d9b52f7 (the list of PR #31688, 2026-01-08, less the methods removed since).
  p.deprecated_quantization_methods = {"fbgemm_fp8", "fp_quant"};
  // vllm/config/quantization.py ONLINE_QUANT_SHORTHAND_NAMES (fp8_per_tensor, fp8_per_block,
  // fp8_per_channel, int8_per_channel_weight_only, nvfp4_per_token, mxfp8, "online"), plus the
  // in-flight methods that need no quantized checkpoint (bitsandbytes, experts_int8, inc,
  // torchao). "fp8" is handled per release (fp8_online_refused).
  p.online_quantization_methods = {
      "fp8_per_tensor",  "fp8_per_block", "fp8_per_channel", "int8_per_channel_weight_only",
      "nvfp4_per_token", "mxfp8",         "online",          "bitsandbytes",
      "experts_int8",    "inc",           "torchao"};
  // vllm/config/lora.py MaxLoRARanks; LoRAConfig.max_lora_rank = 16.
  p.max_lora_ranks = {1, 8, 16, 32, 64, 128, 256, 320, 512};
  p.max_lora_rank_default = 16;
  // vllm/config/vllm.py PerformanceMode.
  p.performance_modes = {"balanced", "interactivity", "throughput"};
  // vllm/config/cache.py KVOffloadingBackend.
  p.kv_offloading_backends = {"native", "lmcache"};
  // vllm/config/kv_transfer.py KVRole.
  p.kv_roles = {"kv_producer", "kv_consumer", "kv_both"};

  // vllm/config/speculative.py SpeculativeMethod at 8d9b52f7 with EagleModelTypes (MTP
  // types, dflash), NgramGPUTypes and DSparkModelTypes. (hy_v4_mtp and glm5_next_mtp, which
  // an index copy listed, were never in upstream's MTPModelTypes: `git log -S` finds none.)
  const std::vector<std::string> mtp = {"deepseek_mtp",
                                        "mimo_mtp",
                                        "mimo_v2_mtp",
                                        "glm4_moe_mtp",
                                        "glm4_moe_lite_mtp",
                                        "glm_ocr_mtp",
                                        "ernie_mtp",
                                        "nemotron_h_mtp",
                                        "exaone_moe_mtp",
                                        "exaone4_5_mtp",
                                        "qwen3_next_mtp",
                                        "qwen3_5_mtp",
                                        "longcat_flash_mtp",
                                        "bailing_hybrid_v3_mtp",
                                        "minimax_m3_mtp",
                                        "bailing_hybrid_mtp",
                                        "mtp",
                                        "kimi_k3_mtp",
                                        "pangu_ultra_moe_mtp",
                                        "step3p5_mtp",
                                        "hy_v3_mtp",
                                        "gemma4_mtp",
                                        "inkling_mtp"};
  std::vector<std::string> eagle = {"eagle", "eagle3", "extract_hidden_states"};
  eagle.insert(eagle.end(), mtp.begin(), mtp.end());
  eagle.push_back("dflash");
  p.speculative_methods = {"ngram",       "medusa", "mlp_speculator",
                           "draft_model", "suffix", "custom_class"};
  p.speculative_methods.insert(p.speculative_methods.end(), eagle.begin(), eagle.end());
  p.speculative_methods.push_back("ngram_gpu");
  p.speculative_methods.push_back("dspark");
  // vllm/config/vllm.py VllmConfig.__post_init__: async scheduling works with
  // EagleModelTypes, NgramGPUTypes, "draft_model" and "dspark".
  p.async_speculative_methods = eagle;
  p.async_speculative_methods.push_back("ngram_gpu");
  p.async_speculative_methods.push_back("draft_model");
  p.async_speculative_methods.push_back("dspark");
  p.async_auto_speculative_methods = p.async_speculative_methods;
  // SpeculativeConfig.__post_init__: without a model, mtp and dspark use the target's
  // checkpoint and ngram, ngram_gpu, suffix, extract_hidden_states need none; every other
  // method raises "num_speculative_tokens was provided but without speculative model".
  p.speculative_methods_without_model = {"mtp",       "dspark", "ngram",
                                         "ngram_gpu", "suffix", "extract_hidden_states"};
  // SpeculativeConfig.__post_init__ (l.848-950): mtp without a model drafts with the target's
  // checkpoint, whose model type SpeculativeConfig.hf_config_override (l.336) must turn into
  // an MTP type; else NotImplementedError "Unsupported speculative method: 'mtp'". The
  // catalog's architectures whose model types (llama, mistral, mixtral, qwen2, qwen3,
  // qwen3_moe, gpt_oss, llama4) it does not map (DeepseekV3ForCausalLM, deepseek_v3, is).
  p.architectures_without_mtp = {"LlamaForCausalLM",   "MistralForCausalLM",
                                 "MixtralForCausalLM", "Qwen2ForCausalLM",
                                 "Qwen3ForCausalLM",   "Qwen3MoeForCausalLM",
                                 "GptOssForCausalLM",  "Llama4ForConditionalGeneration"};
  // SpeculativeConfig.__post_init__: every MTP model type but "mtp" is replaced by "mtp".
  p.mtp_aliases = mtp;
  p.mtp_aliases.erase(std::remove(p.mtp_aliases.begin(), p.mtp_aliases.end(), "mtp"),
                      p.mtp_aliases.end());

  // vllm/config/cache.py CacheConfig.gpu_memory_utilization: Field(default=0.92, gt=0, le=1).
  p.gpu_memory_utilization_default = 0.92;
  // vllm/config/scheduler.py `async_scheduling: bool | None = None`, resolved in
  // vllm/config/vllm.py VllmConfig.__post_init__ (None -> True unless incompatible).
  p.async_scheduling_default = AsyncDefault::kAutoOn;
  // 8d9b52f7: Fp8Config without a serialized checkpoint uses Fp8PerTensorOnlineLinearMethod
  // (vllm/model_executor/layers/quantization/fp8.py Fp8Config.get_quant_method).
  p.fp8_online = Fp8Online::kAccept;
  p.negative_threshold_refused = true;
  p.partial_prefills = false;
  // vllm/engine/arg_utils.py EngineArgs.get_batch_defaults, OPENAI_API_SERVER: >= 70 GiB and
  // not A100 8192/1024, otherwise 2048/256. (A ">= 160 GiB: 16384" row an index copy had was
  // never upstream: `git log -S'160 * GiB'` finds no commit.)
  p.batch_defaults = {{70.0, "a100", 8192, 1024}, {0.0, "", 2048, 256}};

  // vllm/distributed/kv_transfer/kv_connector/factory.py: the registration list, in order.
  p.connectors = {{"ExampleConnector", false},
                  {"ExampleHiddenStatesConnector", false},
                  {"LMCacheConnectorV1", false},
                  {"LMCacheMPConnector", false},
                  {"NixlConnector", true},
                  {"NixlPullConnector", false},
                  {"NixlPushConnector", false},
                  {"MultiConnector", false},
                  {"MoRIIOConnector", false},
                  {"OffloadingConnector", true},
                  {"DecodeBenchConnector", false},
                  {"MooncakeConnector", false},
                  {"MooncakeStoreConnector", false},
                  {"FlexKVConnectorV1", false},
                  {"SimpleCPUOffloadConnector", false},
                  {"HF3FSKVConnector", false}};
  p.removed_connectors = {
      {"P2pNcclConnector", "vLLM removed P2pNcclConnector in PR #44854 (2026-06-08)"},
      {"SharedStorageConnector",
       "vLLM renamed SharedStorageConnector to ExampleConnector (PR #30201, 2025-12-08)"},
      {"PyNcclConnector", "vLLM removed the V0 PyNcclConnector (PR #21785, 2025-08-04)"},
  };

  // EngineArgs fields (vllm/engine/arg_utils.py) that change what vLLM does but that BLIS
  // Playground does not simulate. A value vLLM accepts is accepted with a warning and
  // simulated as vLLM's default; a value vLLM refuses is refused (ArgSpec rows).
  p.unmodelled_args = {"cpu_offload_gb",
                       "attention_backend",
                       "distributed_executor_backend",
                       "decode_context_parallel_size",
                       "prefill_context_parallel_size",
                       "enable_eplb",
                       "enable_dbo",
                       "all2all_backend",
                       "disable_hybrid_kv_cache_manager",
                       "disable_sliding_window",
                       "disable_cascade_attn",
                       "disable_chunked_mm_input",
                       "prefill_schedule_interval",
                       "kv_cache_dtype_skip_layers",
                       "prefix_match_unit",
                       "quantization_config",
                       "fully_sharded_loras",
                       "lora_dtype",
                       "lora_target_modules",
                       "default_mm_loras",
                       "scheduler_cls",
                       "stream_interval",
                       "kv_events_config",
                       "ec_transfer_config",
                       "limit_mm_per_prompt",
                       "hf_overrides",
                       "enable_sleep_mode",
                       "mm_processor_cache_gb"};

  add_engine_arg_specs(p);
  // Names an index copy listed that vllm/engine/arg_utils.py EngineArgs at 8d9b52f7 does not
  // have (disable_log_requests was replaced by AsyncEngineArgs.enable_log_requests).
  const std::string never = "never an EngineArgs field at upstream 8d9b52f7";
  p.removed_args = {
      {"max_num_partial_prefills", "removed upstream on 2026-07-21 (PR #49244)"},
      {"max_long_partial_prefills", "removed upstream on 2026-07-21 (PR #49244)"},
      {"max_num_active_seqs", never},
      {"max_num_queued_reqs", never},
      {"max_num_queued_tokens", never},
      {"attn_group_size", never},
      {"prefix_cache_retention_interval", never},
      {"disable_log_requests",
       "not an EngineArgs field at upstream 8d9b52f7 (vllm serve has "
       "enable_log_requests)"},
  };

  p.rules = shared_rules();
  return p;
}

}  // namespace blis::rules::packs

namespace blis::rules::packs {

namespace {

void drop_rule(Pack& p, const std::string& id) {
  p.rules.erase(
      std::remove_if(p.rules.begin(), p.rules.end(), [&](const RuleInfo& r) { return r.id == id; }),
      p.rules.end());
}

ArgSpec* find_arg(Pack& p, const std::string& key) {
  for (auto& a : p.args) {
    if (a.key == key) return &a;
  }
  return nullptr;
}

}  // namespace

void keep_partial_prefills(Pack& p) {
  // Written from index copies that predate PR #44070 (2026-06-30) and PR #49244
  // (2026-07-21); the history has no release tags that would date them otherwise.
  p.partial_prefills = true;
  p.negative_threshold_refused = false;
  p.removed_args.erase(std::remove_if(p.removed_args.begin(), p.removed_args.end(),
                                      [](const RemovedArg& r) {
                                        return r.key == "max_num_partial_prefills" ||
                                               r.key == "max_long_partial_prefills";
                                      }),
                       p.removed_args.end());
  // gguf (plugin since PR #39612, 2026-06-12) and cpu_awq (merged into awq_marlin by
  // PR #43841, 2026-05-28) are still built in.
  // Before PR #48341 (2026-08-06, a day before 8d9b52f7; releases are cut every two
  // weeks, RELEASE.md) an unset async_scheduling turned off with draft_model.
  p.async_auto_speculative_methods.erase(
      std::remove(p.async_auto_speculative_methods.begin(), p.async_auto_speculative_methods.end(),
                  "draft_model"),
      p.async_auto_speculative_methods.end());
  p.quantization_methods.push_back("gguf");
  p.quantization_methods.push_back("cpu_awq");

  ArgSpec* t = find_arg(p, "long_prefill_token_threshold");
  t->constraint =
      "int (a negative value caps nothing); <= max_model_len with "
      "max_num_partial_prefills > 1";
  t->expected = "an integer (tokens; 0 = no cap)";
  t->int_min = std::numeric_limits<std::int32_t>::min();
  t->source =
      "vllm/config/scheduler.py SchedulerConfig (before PR #44070) .__post_init__, "
      "verify_max_model_len";
  ArgSpec* lp = find_arg(p, "max_logprobs");
  lp->constraint =
      "int, unchecked (before PR #44070); no effect on what BLIS Playground "
      "simulates";
  lp->expected = "an integer";
  lp->int_min = std::numeric_limits<std::int64_t>::min();
  for (const std::string key : {"max_num_partial_prefills", "max_long_partial_prefills"}) {
    const bool long_key = key == "max_long_partial_prefills";
    ArgSpec a;
    a.key = key;
    a.type = "int";
    a.default_text = "1";
    a.constraint = long_key ? "Field(ge=1); <= max_num_partial_prefills"
                            : "Field(ge=1); > 1 needs chunked prefill";
    a.expected = "an integer >= 1";
    a.source =
        "vllm/config/scheduler.py SchedulerConfig." + key + " (removed by PR #49244, 2026-07-21)";
    a.int_min = 1;
    a.int_max = std::numeric_limits<std::int32_t>::max();
    p.args.push_back(a);
  }

  for (auto& r : p.rules) {
    if (r.id == "async.default") {
      r.summary =
          "async_scheduling unset -> True, unless a speculative method outside "
          "EAGLE/MTP/ngram_gpu/dspark is configured (then False, with a warning)";
      r.source = "vllm/config/vllm.py VllmConfig.__post_init__ (before PR #48341)";
    }
  }
  drop_rule(p, "scheduler.threshold_nonnegative");
  drop_rule(p, "args.max_logprobs");
  drop_rule(p, "args.removed");
  const std::string verify =
      "vllm/config/scheduler.py SchedulerConfig.verify_max_model_len "
      "(before PR #49244)";
  for (auto& r : p.rules) {
    if (r.id == "scheduler.threshold_above_model_len") {
      r.summary = "max_num_partial_prefills > 1 and long_prefill_token_threshold > max_model_len";
      r.source =
          "vllm/config/scheduler.py SchedulerConfig.verify_max_model_len (before "
          "PR #49244)";
    }
  }
  p.rules.push_back({"args.partial_prefills", "error",
                     "max_num_partial_prefills and max_long_partial_prefills must be >= 1",
                     "vllm/config/scheduler.py Field(ge=1) (before PR #49244)"});
  p.rules.push_back({"scheduler.partial_prefills_need_chunking", "error",
                     "max_num_partial_prefills > 1 needs chunked prefill", verify});
  p.rules.push_back({"scheduler.long_above_partial", "error",
                     "max_long_partial_prefills > max_num_partial_prefills", verify});
  p.rules.push_back({"default.long_prefill_token_threshold", "default",
                     "max_num_partial_prefills > 1 and threshold 0 -> int(max_model_len * 0.04)",
                     "vllm/config/scheduler.py SchedulerConfig.__post_init__ (before PR #49244)"});
}

}  // namespace blis::rules::packs
