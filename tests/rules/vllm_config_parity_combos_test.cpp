// The parity table (parity_rows.h) for the combinations VllmConfig.__post_init__ and
// EngineArgs.create_engine_config refuse (rules/check_combinations.cpp), the checks of
// CompilationConfig.__post_init__ (rules/read_compilation.cpp), the fields of KVTransferConfig
// and CompilationConfig that are not Optional, and SpeculativeConfig's draft overrides. Files
// under vllm/ at 8d9b52f7. Facts: H100, Llama-3.1-8B, unless a table says otherwise.

#include <gtest/gtest.h>

#include "parity_rows.h"

namespace blis::rules::testing {
namespace {

std::vector<Row> combination_rows() {
  return {
      // --- engine/arg_utils.py create_engine_config.
      {"default_mm_loras", R"({"default_mm_loras": {"image": "/l"}})", R, "/default_mm_loras",
       "non multimodal model", "engine/arg_utils.py:2322 also without enable_lora"},
      {"default_mm_loras", R"({"default_mm_loras": {}})", A, "", "",
       "engine/arg_utils.py:2322 an empty dict is falsy"},
      {"attention_backend",
       R"({"attention_backend": "FLASH_ATTN", "attention_config": {"backend": "TRITON_ATTN"}})", R,
       "/attention_backend", "mutually exclusive", "engine/arg_utils.py:2368"},
      {"attention_backend",
       R"({"attention_backend": "FLASH_ATTN", "attention_config": {"backend": "auto"}})", A,
       "/attention_backend", kAsDefault,
       "engine/arg_utils.py:2368 attention.py:140 \"auto\" is None"},
      {"enable_flashinfer_autotune",
       R"({"enable_flashinfer_autotune": false, "kernel_config": {"enable_flashinfer_autotune": true}})",
       R, "/enable_flashinfer_autotune", "mutually exclusive", "engine/arg_utils.py:2413"},
      {"ir_op_priority",
       R"({"ir_op_priority": {"rms_norm": "a"}, "kernel_config": {"ir_op_priority": {"rms_norm": ["b"]}}})",
       R, "/ir_op_priority/rms_norm", "specified via both", "engine/arg_utils.py:2435"},
      {"ir_op_priority",
       R"({"ir_op_priority": {"rms_norm": []}, "kernel_config": {"ir_op_priority": {"rms_norm": ["b"]}}})",
       A, "", "", "engine/arg_utils.py:2431 an empty list is unset"},
      // --- config/quantization.py resolve_quantization_config (EngineArgs.__post_init__).
      {"quantization_config",
       R"({"quantization": "fp8", "quantization_config": {"linear": "fp8_per_block"}})", R,
       "/quantization_config", "only supported when quantization is one of",
       "config/quantization.py:165 fp8 is not an online shorthand"},
      {"quantization_config",
       R"({"quantization": "online", "quantization_config": {"linear": "fp8_per_block", "moe": {"weight": "mxfp4"}, "ignore": ["lm_head"]}})",
       A, "/quantization_config", kAsDefault, "config/quantization.py:87-93"},
      {"quantization_config", R"({"quantization_config": {"lin": "fp8_per_block"}})", R,
       "/quantization_config/lin", "extra=\"forbid\"", "config/quantization.py:80 @config"},
      {"quantization_config",
       R"({"quantization": "online", "quantization_config": {"linear": "nvfp4_per_token"}})", R,
       "/quantization_config/linear", "does not define a linear spec",
       "config/quantization.py:108 _coerce_spec"},
      {"quantization_config",
       R"({"quantization": "online", "quantization_config": {"moe": {"weight": "int4"}}})", R,
       "/quantization_config/moe", "expected one of",
       "config/quantization.py:47 _coerce_quant_key"},
      // --- The config objects' own validators (rules/check_config_objects.cpp).
      {"ec_transfer_config", R"({"ec_transfer_config": {"ec_connector": "ECExampleConnector"}})", R,
       "/ec_transfer_config/ec_connector", "Please specify ec_role", "config/ec_transfer.py:88"},
      {"ec_transfer_config",
       R"({"ec_transfer_config": {"ec_connector": "ECExampleConnector", "ec_role": "ec_both"}})", A,
       "/ec_transfer_config", kAsDefault, "config/ec_transfer.py:12 ECRole"},
      {"structured_outputs_config",
       R"({"structured_outputs_config": {"disable_any_whitespace": true}})", R,
       "/structured_outputs_config/disable_any_whitespace", "xgrammar and guidance",
       "config/structured_outputs.py:64 backend auto"},
      {"structured_outputs_config",
       R"({"structured_outputs_config": {"disable_any_whitespace": true, "backend": "guidance"}})",
       A, "", "", "config/structured_outputs.py:64"},
      {"structured_outputs_config",
       R"({"structured_outputs_config": {"disable_additional_properties": true, "backend": "xgrammar"}})",
       R, "/structured_outputs_config/disable_additional_properties", "guidance backend",
       "config/structured_outputs.py:69"},
      {"profiler_config", R"({"profiler_config": {"profiler": "torch"}})", R,
       "/profiler_config/profiler", "torch_profiler_dir must be set", "config/profiler.py:150"},
      {"profiler_config",
       R"({"profiler_config": {"profiler": "cuda", "torch_profiler_dir": "/t"}})", R,
       "/profiler_config/torch_profiler_dir", "only applicable", "config/profiler.py:146"},
      {"profiler_config", R"({"profiler_config": {"capture_torch_profiler": true}})", R,
       "/profiler_config/capture_torch_profiler", "only applicable", "config/profiler.py:158"},
      {"profiler_config",
       R"({"profiler_config": {"profiler": "torch", "torch_profiler_dir": "/t", "capture_torch_profiler": true}})",
       A, "", "", "config/profiler.py:145-163"},
      {"pooler_config", R"({"pooler_config": {"logit_sigma": 0.0}})", R,
       "/pooler_config/logit_sigma", "division by zero", "config/pooler.py:132"},
      {"pooler_config", R"({"pooler_config": {"pooling_type": "ALL", "tok_pooling_type": "STEP"}})",
       R, "/pooler_config/tok_pooling_type", "Cannot set both", "config/pooler.py:140"},
      {"pooler_config", R"({"pooler_config": {"pooling_type": "MEAN"}})", A, "", "",
       "config/pooler.py:144 MEAN -> seq_pooling_type"},
      {"attention_config",
       R"({"attention_config": {"backend_per_kind": {"sliding": "FLASH_ATTN"}}})", R,
       "/attention_config/backend_per_kind/sliding", "Unknown KV cache group kind",
       "config/attention.py:168 KVCacheSpecKind"},
      {"attention_config",
       R"({"attention_config": {"backend_per_kind": {"sliding_window": "FLASH_ATTN"}}})", A, "", "",
       "config/attention.py:168 KVCacheSpecKind"},
      // --- engine/arg_utils.py _set_default_max_num_seqs_and_batched_tokens_args.
      {"max_num_batched_tokens", R"({"max_num_batched_tokens": 512})", A, "", "",
       "engine/arg_utils.py:2819 unset max_num_seqs = min(1024, 512)"},
      {"max_num_seqs",
       R"({"max_num_seqs": 2, "max_model_len": 100, "enable_chunked_prefill": false})", A, "", "",
       "engine/arg_utils.py:2806 unset budget = min(2 * 100, 8192)"},
      // --- config/vllm.py VllmConfig.__post_init__.
      {"enable_return_routed_experts",
       R"({"enable_return_routed_experts": true, "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}})",
       R, "/enable_return_routed_experts", "incompatible with KV connectors",
       "config/vllm.py:1024 is_kv_transfer_instance"},
      {"enable_return_routed_experts",
       R"({"enable_return_routed_experts": true, "kv_offloading_size": 4})", A, "", "",
       "config/vllm.py:1630 the offloading connector is set up after the check"},
      {"enable_mamba_cache_stochastic_rounding",
       R"({"mamba_config": {"enable_stochastic_rounding": true}})", R,
       "/mamba_config/enable_stochastic_rounding", "float16",
       "config/vllm.py:1034 mamba_ssm_cache_dtype auto"},
      {"kv_sharing_fast_prefill",
       R"({"kv_sharing_fast_prefill": true, "speculative_config": {"method": "eagle", "model": "m", "num_speculative_tokens": 2}})",
       R, "/kv_sharing_fast_prefill", "not compatible with EAGLE", "config/vllm.py:1462 use_eagle"},
      {"kv_sharing_fast_prefill",
       R"({"kv_sharing_fast_prefill": true, "speculative_config": {"method": "ngram", "num_speculative_tokens": 2}})",
       A, "/kv_sharing_fast_prefill", kAsDefault, "config/vllm.py:1462 ngram is not EAGLE"},
      {"enable_dbo", R"({"enable_dbo": true})", R, "/enable_dbo", "Microbatching",
       "config/vllm.py:1597 allgather_reducescatter"},
      {"enable_dbo", R"({"enable_dbo": true, "all2all_backend": "nixl_ep"})", A, "/enable_dbo",
       kAsDefault, "config/vllm.py:1597 nixl_ep"},
      // --- config/vllm.py VllmConfig's model validators and validate_block_size.
      {"mamba_block_size", R"({"mamba_block_size": 64, "enable_prefix_caching": false})", R,
       "/mamba_block_size", "can only be set with --enable-prefix-caching",
       "config/vllm.py:2439 validate_mamba_block_size"},
      {"mamba_block_size", R"({"mamba_block_size": 64})", A, "/mamba_block_size", "",
       "config/vllm.py:2439 prefix caching on by default"},
      {"disable_chunked_mm_input",
       R"({"mamba_cache_mode": "align", "disable_chunked_mm_input": true})", R,
       "/disable_chunked_mm_input", "Chunked MM input is required",
       "config/vllm.py:2411 validate_block_size (engine/core.py:324)"},
      // --- config/vllm.py:1517 _validate_v2_model_runner when V2 is needed.
      {"prefill_context_parallel_size", R"({"prefill_context_parallel_size": 2})", R,
       "/prefill_context_parallel_size", "Model Runner V2 does not yet support",
       "config/vllm.py:2293 PCP needs V2, which runs it only with MLA"},
      {"speculative_config.method",
       R"({"speculative_config": {"method": "dspark", "model": "m", "num_speculative_tokens": 2}, "enable_prompt_embeds": true})",
       R, "/enable_prompt_embeds", "prompt embeds", "config/vllm.py:2355 dspark needs V2"},
      {"speculative_config.method",
       R"({"speculative_config": {"method": "dspark", "model": "m", "num_speculative_tokens": 2}})",
       A, "/speculative_config/model", "does not run a draft model", "config/vllm.py:610"},
      {"enable_prompt_embeds", R"({"enable_prompt_embeds": true})", A, "/enable_prompt_embeds", "",
       "config/vllm.py:638 V1 when V2 is not needed"},
      // --- config/compilation.py CompilationConfig.__post_init__.
      {"compilation_config.custom_ops",
       R"({"compilation_config": {"custom_ops": ["none", "all"]}})", R,
       "/compilation_config/custom_ops", "only one base mode", "config/compilation.py:1005"},
      {"compilation_config.custom_ops",
       R"({"compilation_config": {"custom_ops": ["-rms_norm", "+rms_norm"]}})", R,
       "/compilation_config/custom_ops", "both enable and disable", "config/compilation.py:1013"},
      {"compilation_config.custom_ops",
       R"({"compilation_config": {"custom_ops": ["none", "+rms_norm", "-silu_and_mul"]}})", A,
       "/compilation_config/custom_ops", "", "config/compilation.py:998"},
      {"compilation_config.backend",
       R"({"compilation_config": {"mode": "VLLM_COMPILE", "backend": "cudagraphs"}})", R,
       "/compilation_config/backend", "Invalid backend", "config/compilation.py:1023"},
      {"compilation_config.backend", R"({"compilation_config": {"backend": "cudagraphs"}})", A,
       "/compilation_config/backend", "", "config/compilation.py:1023 mode unset at __post_init__"},
      {"compilation_config.encoder_cudagraph_max_vision_items_per_batch",
       R"({"compilation_config": {"cudagraph_mm_encoder": true, "encoder_cudagraph_max_vision_items_per_batch": -1}})",
       R, "/compilation_config/encoder_cudagraph_max_vision_items_per_batch", "non-negative",
       "config/compilation.py:1035"},
      {"compilation_config.encoder_cudagraph_max_frames_per_batch",
       R"({"compilation_config": {"cudagraph_mm_encoder": true, "encoder_cudagraph_max_frames_per_batch": -2}})",
       R, "/compilation_config/encoder_cudagraph_max_frames_per_batch", "non-negative",
       "config/compilation.py:1044"},
      {"compilation_config.encoder_cudagraph_max_vision_items_per_batch",
       R"({"compilation_config": {"encoder_cudagraph_max_vision_items_per_batch": -1}})", A,
       "/compilation_config/encoder_cudagraph_max_vision_items_per_batch", "",
       "config/compilation.py:1034 only with cudagraph_mm_encoder"},
      {"compilation_config.inductor_passes",
       R"({"compilation_config": {"inductor_passes": {"p": 1}}})", R,
       "/compilation_config/inductor_passes/p", "a string",
       "config/compilation.py:599 dict[str, str]"},
      {"compilation_config.cudagraph_capture_sizes",
       R"({"compilation_config": {"cudagraph_capture_sizes": null}})", R,
       "/compilation_config/cudagraph_capture_sizes", "not Optional",
       "config/compilation.py:648 list[int] = None, no _skip_none_validation"},
      {"compilation_config.max_cudagraph_capture_size",
       R"({"compilation_config": {"max_cudagraph_capture_size": null}})", A, "", "",
       "config/compilation.py:893 _skip_none_validation"},
      {"compilation_config.custom_ops", R"({"compilation_config": {"custom_ops": null}})", R,
       "/compilation_config/custom_ops", "not Optional", "config/compilation.py:495 list[str]"},
      // --- config/kv_transfer.py KVTransferConfig: fields that are not Optional.
      {"kv_transfer_config.kv_parallel_size",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_parallel_size": null}})",
       R, "/kv_transfer_config/kv_parallel_size", "not Optional", "config/kv_transfer.py:50 int"},
      {"kv_transfer_config.kv_rank",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_rank": null}})",
       A, "", "", "config/kv_transfer.py kv_rank: int | None"},
      // --- config/speculative.py SpeculativeConfig: the draft's overrides.
      {"speculative_config.moe_backend",
       R"({"speculative_config": {"method": "eagle", "model": "m", "num_speculative_tokens": 2, "moe_backend": "triton"}})",
       A, "/speculative_config/moe_backend", "no effect", "config/speculative.py:116 MoEBackend"},
      {"speculative_config.moe_backend",
       R"({"speculative_config": {"method": "eagle", "model": "m", "num_speculative_tokens": 2, "moe_backend": "fast"}})",
       R, "/speculative_config/moe_backend", "is not accepted",
       "config/speculative.py:116 Literal"},
      {"speculative_config.attention_backend",
       R"({"speculative_config": {"method": "eagle", "model": "m", "num_speculative_tokens": 2, "attention_backend": "flash_attn"}})",
       A, "/speculative_config/attention_backend", "no effect",
       "config/speculative.py:1331 upper-cased member name"},
      {"speculative_config.draft_load_config",
       R"({"speculative_config": {"method": "eagle", "model": "m", "num_speculative_tokens": 2, "draft_load_config": {}}})",
       A, "/speculative_config/draft_load_config", "no effect", "config/speculative.py:214"},
      {"speculative_config.num_speculative_tokens_per_batch_size",
       R"({"speculative_config": {"method": "eagle", "model": "m", "num_speculative_tokens": 2, "num_speculative_tokens_per_batch_size": [[1, 64, 2]]}})",
       A, "/speculative_config/num_speculative_tokens_per_batch_size", "no effect",
       "config/speculative.py:180 list[tuple[int, int, int]]"},
      {"speculative_config.num_speculative_tokens_per_batch_size",
       R"({"speculative_config": {"method": "eagle", "model": "m", "num_speculative_tokens": 2, "num_speculative_tokens_per_batch_size": [[1, 64]]}})",
       R, "/speculative_config/num_speculative_tokens_per_batch_size/0", "a triple",
       "config/speculative.py:180 tuple[int, int, int]"},
  };
}

TEST(VllmConfigParity, CombinationsAndConfigObjectPostInit) {
  check_rows(combination_rows());
}

TEST(VllmConfigParity, CombinationsOnOtherPools) {
  DeploymentFacts pp2 = deployment();
  pp2.pp = 2;
  check_rows(
      {{"enable_return_routed_experts", R"({"enable_return_routed_experts": true})", R,
        "/enable_return_routed_experts", "pipeline parallelism", "config/vllm.py:1011 pp > 1"}},
      pp2);
  // Decode context parallelism: an MLA model (DeepSeek-V2-Lite) on tp 2, Llama-3.1-8B (8 KV
  // heads) on tp 16.
  DeploymentFacts tp2 = deployment(h100(), mla_model(), 2);
  check_rows({{"cp_kv_cache_interleave_size",
               R"({"decode_context_parallel_size": 2, "cp_kv_cache_interleave_size": 32})", R,
               "/cp_kv_cache_interleave_size", "divisible by cp_kv_cache_interleave_size",
               "config/vllm.py:2402 32 > block_size 16"},
              {"dcp_kv_cache_interleave_size",
               R"({"decode_context_parallel_size": 2, "dcp_kv_cache_interleave_size": 3})", R,
               "/dcp_kv_cache_interleave_size", "divisible by cp_kv_cache_interleave_size",
               "config/vllm.py:2390 dcp's size overrides cp's; 16 % 3"},
              {"cp_kv_cache_interleave_size",
               R"({"decode_context_parallel_size": 2, "cp_kv_cache_interleave_size": 8})", A,
               "/cp_kv_cache_interleave_size", "", "config/vllm.py:2402 16 % 8 == 0"},
              {"cp_kv_cache_interleave_size", R"({"cp_kv_cache_interleave_size": 32})", A,
               "/cp_kv_cache_interleave_size", "", "config/vllm.py:2389 only with dcp > 1"}},
             tp2);
  DeploymentFacts tp16 = deployment(h100(), llama31_8b(), 16);
  check_rows({{"decode_context_parallel_size", R"({"decode_context_parallel_size": 2})", A,
               "/decode_context_parallel_size", "", "config/model.py:1430 dcp 2 <= 16 / 8"},
              {"decode_context_parallel_size", R"({"decode_context_parallel_size": 4})", R,
               "/decode_context_parallel_size", "exceeds the maximum supported value (2)",
               "config/model.py:1431 dcp 4 > 16 / 8"}},
             tp16);
  // A model the catalog does not know (supports_replayssm unknown): the model-independent
  // checks of validate_mamba_cached_kernel.
  DeploymentFacts unknown = deployment();
  unknown.model.known = false;
  check_rows({{"use_replayssm", R"({"use_replayssm": true, "mamba_cache_mode": "all"})", R,
               "/use_replayssm", "only in align mode", "config/vllm.py:2458"},
              {"use_replayssm", R"({"use_replayssm": true, "mamba_backend": "flashinfer"})", R,
               "/use_replayssm", "requires --mamba-backend triton", "config/vllm.py:2464"},
              {"use_replayssm", R"({"use_replayssm": true, "kv_offloading_size": 2})", R,
               "/use_replayssm", "incompatible with KV connectors", "config/vllm.py:2466"},
              {"use_replayssm", R"({"use_replayssm": true, "mamba_cache_mode": "align"})", A,
               "/use_replayssm", "", "config/vllm.py:2446"}},
             unknown);
  // mtp without a draft model drafts with the target's MTP layers.
  DeploymentFacts llama = deployment();
  llama.model.architecture = "LlamaForCausalLM";
  check_rows(
      {{"speculative_config.method",
        R"({"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}})", R,
        "/speculative_config/method", "Unsupported speculative method: 'mtp'",
        "config/speculative.py:948 llama is not mapped by hf_config_override"},
       {"speculative_config.method",
        R"({"speculative_config": {"method": "deepseek_mtp", "num_speculative_tokens": 1}})", R,
        "/speculative_config/method", "has none",
        "config/speculative.py:725 the alias becomes mtp, then l.948"},
       {"speculative_config.method",
        R"({"speculative_config": {"method": "mtp", "model": "org/mtp-head", "num_speculative_tokens": 1}})",
        A, "/speculative_config/model", "does not run a draft model",
        "config/speculative.py:729 a draft model given: its own config decides"}},
      llama);
  DeploymentFacts dsv3 = deployment(h100(), mla_model());
  dsv3.model.architecture = "DeepseekV3ForCausalLM";
  dsv3.model.is_moe = true;
  check_rows({{"speculative_config.method",
               R"({"speculative_config": {"method": "mtp", "num_speculative_tokens": 1}})", A, "",
               "", "config/speculative.py:339 deepseek_v3 -> deepseek_mtp"}},
             dsv3);
  DeploymentFacts mm = deployment();
  mm.model.is_multimodal = true;
  check_rows({{"default_mm_loras", R"({"default_mm_loras": {"image": "/l"}})", A,
               "/default_mm_loras", "", "engine/arg_utils.py:2322 a multimodal model"}},
             mm);
}

}  // namespace
}  // namespace blis::rules::testing

namespace blis::rules::testing {
namespace {

// The values _set_default_max_num_seqs_and_batched_tokens_args fills (arg_utils.py:2739-2826).
TEST(VllmConfigParity, BatchDefaultsAreCappedByEachOther) {
  EXPECT_EQ(resolve("0.32.0", R"({"max_num_batched_tokens": 512})").args.max_num_seqs, 512);
  EXPECT_EQ(resolve("0.32.0", R"({})").args.max_num_seqs, 1024);
  const Resolved small = resolve("0.32.0", R"({"max_num_seqs": 2, "max_model_len": 100})");
  EXPECT_EQ(small.args.max_num_batched_tokens, 200);
  EXPECT_EQ(resolve("0.32.0",
                    R"({"max_num_seqs": 2, "max_model_len": 100, "max_num_batched_tokens": 4096})")
                .args.max_num_batched_tokens,
            4096);
  DeploymentFacts moe = deployment(h100(), mla_model());
  moe.model.is_moe = true;
  moe.dp = 2;
  const char* ep = R"({"enable_expert_parallel": true, "all2all_backend": "deepep_low_latency"})";
  const Resolved dp_moe = resolve("0.32.0", ep, moe);
  EXPECT_EQ(dp_moe.args.max_num_batched_tokens, 256);
  EXPECT_EQ(dp_moe.args.max_num_seqs, 256);
  EXPECT_EQ(
      resolve("0.32.0", R"({"enable_expert_parallel": true})", moe).args.max_num_batched_tokens,
      8192);
}

}  // namespace
}  // namespace blis::rules::testing
