// Parity with vLLM's own config classes at upstream 8d9b52f7 (release 0.32.0), argument by
// argument: for each engine argument the packs read, the values just inside and just outside
// every bound, every Literal choice and a wrong one, null where vLLM allows None, and the
// conversions of pydantic's lax mode (vLLM's config classes are pydantic dataclasses,
// vllm/config/utils.py config). Every value vLLM refuses is an error at its JSON pointer;
// every value it accepts resolves without an error (a warning is fine: lax conversions are one,
// naming the value read). Rows of kind kBlisRefuses are the deliberate differences: vLLM
// accepts the value, BLIS Playground refuses it because it does not model its effect.
// Each row cites the vLLM line that decides it (files under vllm/ at 8d9b52f7).

#include <gtest/gtest.h>

#include <iostream>
#include <set>

#include "parity_rows.h"

namespace blis::rules::testing {

std::vector<Row> parity_rows_core() {
  return {
      // --- ModelConfig.max_model_len: int, Field(ge=-1); -1 / "auto" fit it to memory.
      {"max_model_len", R"({"max_model_len": 1})", A, "", "", "config/model.py:210 Field(ge=-1)"},
      {"max_model_len", R"({"max_model_len": 131072})", A, "", "",
       "config/model.py _get_and_verify_max_len (<= derived)"},
      {"max_model_len", R"({"max_model_len": -1})", A, "", "", "config/model.py:210 ge=-1"},
      {"max_model_len", R"({"max_model_len": "auto"})", A, "", "",
       "utils/argparse_utils.py human_readable_int_or_auto"},
      {"max_model_len", R"({"max_model_len": "4k"})", A, "", "",
       "utils/argparse_utils.py human_readable_int"},
      {"max_model_len", R"({"max_model_len": "4096"})", A, "/max_model_len", kReadAs,
       "pydantic-core shared.rs str_as_int"},
      {"max_model_len", R"({"max_model_len": 4096.0})", A, "/max_model_len", kReadAs,
       "pydantic-core shared.rs float_as_int"},
      {"max_model_len", R"({"max_model_len": null})", A, "", "",
       "config/model.py:210 default None (derived)"},
      {"max_model_len", R"({"max_model_len": 0})", R, "/max_model_len", "positive integer",
       "config/model.py:929 validate_model_config_after"},
      {"max_model_len", R"({"max_model_len": -2})", R, "/max_model_len", "Field(ge=-1)",
       "config/model.py:210 Field(ge=-1)"},
      {"max_model_len", R"({"max_model_len": 131073})", R, "/max_model_len", "derived",
       "config/model.py _get_and_verify_max_len"},
      {"max_model_len", R"({"max_model_len": 4096.5})", R, "/max_model_len", "whole number",
       "pydantic-core shared.rs float_as_int (int_from_float)"},
      {"max_model_len", R"({"max_model_len": "4096.5"})", R, "/max_model_len", "",
       "pydantic-core shared.rs str_as_int (int_parsing)"},
      {"max_model_len", R"({"max_model_len": "fit"})", R, "/max_model_len", "",
       "utils/argparse_utils.py human_readable_int_or_auto"},

      // --- SchedulerConfig.max_num_seqs: int, Field(ge=1).
      {"max_num_seqs", R"({"max_num_seqs": 1})", A, "", "", "config/scheduler.py:63 Field(ge=1)"},
      {"max_num_seqs", R"({"max_num_seqs": "64"})", A, "/max_num_seqs", kReadAs,
       "pydantic-core shared.rs str_as_int"},
      {"max_num_seqs", R"({"max_num_seqs": 64.0})", A, "/max_num_seqs", kReadAs,
       "pydantic-core shared.rs float_as_int"},
      {"max_num_seqs", R"({"max_num_seqs": "1_024"})", A, "/max_num_seqs", kReadAs,
       "pydantic-core shared.rs strip_underscores"},
      {"max_num_seqs", R"({"max_num_seqs": true})", A, "/max_num_seqs", kReadAs,
       "pydantic-core input_python.rs lax int (True -> 1)"},
      {"max_num_seqs", R"({"max_num_seqs": 0})", R, "/max_num_seqs", "Field(ge=1)",
       "config/scheduler.py:63 Field(ge=1)"},
      {"max_num_seqs", R"({"max_num_seqs": false})", R, "/max_num_seqs", "out of range",
       "config/scheduler.py:63 Field(ge=1) (False -> 0)"},
      {"max_num_seqs", R"({"max_num_seqs": 1.5})", R, "/max_num_seqs", "whole number",
       "pydantic-core float_as_int"},
      {"max_num_seqs", R"({"max_num_seqs": "1k"})", R, "/max_num_seqs", "not a valid integer",
       "engine/arg_utils.py (not a human_readable_int arg); str_as_int"},
      {"max_num_seqs", R"({"max_num_seqs": "abc"})", R, "/max_num_seqs", "not a valid integer",
       "pydantic-core str_as_int"},
      {"max_num_seqs", R"({"max_num_seqs": [1]})", R, "/max_num_seqs", "is an array",
       "pydantic int_type"},

      // --- SchedulerConfig.max_num_batched_tokens: int, Field(ge=1); verify_max_model_len.
      {"max_num_batched_tokens", R"({"max_num_seqs": 256, "max_num_batched_tokens": 256})", A, "",
       "", "config/scheduler.py:264 (>= max_num_seqs)"},
      {"max_num_batched_tokens", R"({"max_num_batched_tokens": "8k"})", A, "", "",
       "engine/arg_utils.py human_readable_int"},
      {"max_num_batched_tokens",
       R"({"enable_chunked_prefill": false, "max_model_len": 4096, "max_num_batched_tokens": 4096})",
       A, "", "", "config/scheduler.py:250 (mnbt >= max_model_len without chunked prefill)"},
      {"max_num_batched_tokens", R"({"max_num_batched_tokens": 0})", R, "/max_num_batched_tokens",
       "Field(ge=1)", "config/scheduler.py:49 Field(ge=1)"},
      {"max_num_batched_tokens", R"({"max_num_seqs": 256, "max_num_batched_tokens": 255})", R,
       "/max_num_batched_tokens", "greater than or equal to max_num_seqs",
       "config/scheduler.py:264 verify_max_model_len"},
      {"max_num_batched_tokens",
       R"({"enable_chunked_prefill": false, "max_model_len": 4096, "max_num_batched_tokens": 4095})",
       R, "/max_num_batched_tokens", "smaller than max_model_len",
       "config/scheduler.py:254 verify_max_model_len"},

      // --- SchedulerConfig.max_num_scheduled_tokens: int | None, Field(ge=0).
      {"max_num_scheduled_tokens", R"({"max_num_scheduled_tokens": 0})", A,
       "/max_num_scheduled_tokens", "never schedules a token",
       "config/scheduler.py:56 Field(ge=0); config/vllm.py:1755 checks only with spec decode"},
      {"max_num_scheduled_tokens", R"({"max_num_scheduled_tokens": 1})", A, "", "",
       "config/scheduler.py:56 Field(ge=0)"},
      {"max_num_scheduled_tokens", R"({"max_num_scheduled_tokens": null})", A, "", "",
       "config/scheduler.py:56 default None"},
      {"max_num_scheduled_tokens", R"({"max_num_scheduled_tokens": false})", A,
       "/max_num_scheduled_tokens", kReadAs, "pydantic lax int (False -> 0), Field(ge=0)"},
      {"max_num_scheduled_tokens", R"({"max_num_scheduled_tokens": -1})", R,
       "/max_num_scheduled_tokens", "out of range", "config/scheduler.py:56 Field(ge=0)"},
      {"max_num_scheduled_tokens",
       R"({"max_num_scheduled_tokens": 0, "speculative_config": {"method": "ngram", "num_speculative_tokens": 2}})",
       R, "/max_num_scheduled_tokens", "does not allow any tokens to be scheduled",
       "config/vllm.py:1774 _set_max_num_scheduled_tokens"},

      // --- Booleans (pydantic lax bool): enable_chunked_prefill, enable_prefix_caching, ...
      {"enable_chunked_prefill", R"({"enable_chunked_prefill": false})", A, "", "",
       "config/scheduler.py:74 bool"},
      {"enable_chunked_prefill", R"({"enable_chunked_prefill": null})", A, "", "",
       "engine/arg_utils.py:622 bool | None"},
      {"enable_chunked_prefill", R"({"enable_chunked_prefill": "yes"})", A,
       "/enable_chunked_prefill", kReadAs, "pydantic-core shared.rs str_as_bool"},
      {"enable_chunked_prefill", R"({"enable_chunked_prefill": 1})", A, "/enable_chunked_prefill",
       kReadAs, "pydantic-core shared.rs int_as_bool"},
      {"enable_chunked_prefill", R"({"enable_chunked_prefill": "maybe"})", R,
       "/enable_chunked_prefill", "not a valid boolean", "pydantic-core str_as_bool"},
      {"enable_chunked_prefill", R"({"enable_chunked_prefill": 2})", R, "/enable_chunked_prefill",
       "not a valid boolean", "pydantic-core int_as_bool"},
      {"enable_prefix_caching", R"({"enable_prefix_caching": "OFF"})", A, "/enable_prefix_caching",
       kReadAs, "config/cache.py:93 bool; str_as_bool (any case)"},
      {"enable_prefix_caching", R"({"enable_prefix_caching": 0.0})", A, "/enable_prefix_caching",
       kReadAs, "pydantic-core input_python.rs lax_bool (0.0)"},
      {"enable_prefix_caching", R"({"enable_prefix_caching": []})", R, "/enable_prefix_caching",
       "not a valid boolean", "pydantic bool_type"},
      {"enforce_eager", R"({"enforce_eager": "t"})", A, "/enforce_eager", kReadAs,
       "config/model.py:237 bool; str_as_bool"},
      {"enforce_eager", R"({"enforce_eager": "on "})", R, "/enforce_eager", "not a valid boolean",
       "pydantic-core str_as_bool (no stripping)"},
      {"scheduler_reserve_full_isl", R"({"scheduler_reserve_full_isl": "n"})", A,
       "/scheduler_reserve_full_isl", kReadAs, "config/scheduler.py:130 bool"},
      {"scheduler_reserve_full_isl", R"({"scheduler_reserve_full_isl": 3})", R,
       "/scheduler_reserve_full_isl", "not a valid boolean", "pydantic-core int_as_bool"},

      // --- CacheConfig.block_size: int, Field(gt=0); FLASH_ATTN MultipleOf(16).
      {"block_size", R"({"block_size": 16})", A, "", "", "config/cache.py:49 Field(gt=0)"},
      {"block_size", R"({"block_size": 48})", A, "", "",
       "v1/attention/backends/flash_attn.py MultipleOf(16)"},
      {"block_size", R"({"block_size": "32"})", A, "/block_size", kReadAs,
       "pydantic-core str_as_int"},
      {"block_size", R"({"block_size": 32.0})", A, "/block_size", kReadAs,
       "pydantic-core float_as_int"},
      {"block_size", R"({"block_size": 0})", R, "/block_size", "Field(gt=0)",
       "config/cache.py:49 Field(gt=0)"},
      {"block_size", R"({"block_size": -16})", R, "/block_size", "Field(gt=0)",
       "config/cache.py:49 Field(gt=0)"},
      {"block_size", R"({"block_size": 24})", R, "/block_size", "multiples of 16",
       "v1/attention/backends/flash_attn.py supports_block_size"},
      {"block_size", R"({"block_size": 16.5})", R, "/block_size", "whole number",
       "pydantic-core float_as_int"},
      {"block_size", R"({"block_size": true})", R, "/block_size", "multiples of 16",
       "lax int True -> 1, then flash_attn.py MultipleOf(16)"},

      // --- CacheConfig.gpu_memory_utilization: float, Field(gt=0, le=1).
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": 1})", A, "", "",
       "config/cache.py:68 le=1 (an int is a float)"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": 0.0001})", A, "", "",
       "config/cache.py:68 gt=0"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": "0.5"})", A,
       "/gpu_memory_utilization", kReadAs, "pydantic-core shared.rs str_as_float"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": true})", A,
       "/gpu_memory_utilization", kReadAs, "pydantic lax float (True -> 1.0), le=1"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": 0})", R, "/gpu_memory_utilization",
       "Field(gt=0, le=1)", "config/cache.py:68 gt=0"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": 1.0001})", R,
       "/gpu_memory_utilization", "Field(gt=0, le=1)", "config/cache.py:68 le=1"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": -0.5})", R,
       "/gpu_memory_utilization", "Field(gt=0, le=1)", "config/cache.py:68 gt=0"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": false})", R,
       "/gpu_memory_utilization", "out of range", "lax float False -> 0.0, gt=0"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": "nan"})", R,
       "/gpu_memory_utilization", "out of range", "str_as_float nan; gt=0 fails on nan"},
      {"gpu_memory_utilization", R"({"gpu_memory_utilization": "most"})", R,
       "/gpu_memory_utilization", "not a valid number", "pydantic-core str_as_float"},

      {"gpu_memory_utilization", R"({"gpu_memory_utilization": null})", R,
       "/gpu_memory_utilization", "is not Optional",
       "engine/arg_utils.py:532 float (None reaches CacheConfig: float_type)"},

      // --- CacheConfig.kv_cache_memory_bytes: int | None (0 is unset).
      {"kv_cache_memory_bytes", R"({"kv_cache_memory_bytes": 0})", A, "", "",
       "v1/worker/gpu_worker.py determine_available_memory (falsy = unset)"},
      {"kv_cache_memory_bytes", R"({"kv_cache_memory_bytes": "8G"})", A, "", "",
       "engine/arg_utils.py human_readable_int"},
      {"kv_cache_memory_bytes", R"({"kv_cache_memory_bytes": null})", A, "", "",
       "config/cache.py:177 default None"},
      {"kv_cache_memory_bytes", R"({"kv_cache_memory_bytes": -1})", R, "/kv_cache_memory_bytes",
       "out of range", "v1/worker/gpu_worker.py: no memory for the cache blocks"},
      {"kv_cache_memory_bytes", R"({"kv_cache_memory_bytes": 1.5})", R, "/kv_cache_memory_bytes",
       "whole number", "pydantic-core float_as_int"},

      // --- CacheConfig.num_gpu_blocks_override: int | None.
      {"num_gpu_blocks_override", R"({"num_gpu_blocks_override": 1})", A, "", "",
       "config/cache.py:87 int | None"},
      {"num_gpu_blocks_override", R"({"num_gpu_blocks_override": null})", A, "", "",
       "config/cache.py:87 default None"},
      {"num_gpu_blocks_override", R"({"num_gpu_blocks_override": 0})", R,
       "/num_gpu_blocks_override", "", "v1/core/kv_cache_utils.py _check_enough_kv_cache_memory"},

      // --- CacheConfig.cache_dtype: CacheDType Literal (config/cache.py:19-36).
      {"kv_cache_dtype", R"({"kv_cache_dtype": "auto"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "float16"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "bfloat16"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "fp8"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "fp8_e4m3"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "fp8_e5m2"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "fp8_inc"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "fp8_ds_mla"})", A, "", "", "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "turboquant_k8v4"})", A, "", "",
       "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "turboquant_4bit_nc"})", A, "", "",
       "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "turboquant_k3v4_nc"})", A, "", "",
       "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "turboquant_3bit_nc"})", A, "", "",
       "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "int4_per_token_head"})", A, "", "",
       "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "int8_per_token_head"})", A, "", "",
       "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "fp8_per_token_head"})", A, "", "",
       "config/cache.py:19"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "nvfp4"})", A, "", "",
       "config/cache.py:19 (a non-MLA model)"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "fp8_e4m3fn"})", R, "/kv_cache_dtype",
       "is not accepted", "config/cache.py:19 CacheDType"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": "FP8"})", R, "/kv_cache_dtype", "is not accepted",
       "config/cache.py:19 (Literal is case-sensitive)"},
      {"kv_cache_dtype", R"({"kv_cache_dtype": 8})", R, "/kv_cache_dtype", "is an integer",
       "pydantic literal_error"},

      // --- CacheConfig.prefix_caching_hash_algo: PrefixCachingHashAlgo (config/cache.py:39).
      {"prefix_caching_hash_algo", R"({"prefix_caching_hash_algo": "sha256"})", A, "", "",
       "config/cache.py:39"},
      {"prefix_caching_hash_algo", R"({"prefix_caching_hash_algo": "sha256_cbor"})", A, "", "",
       "config/cache.py:39"},
      {"prefix_caching_hash_algo", R"({"prefix_caching_hash_algo": "xxhash"})", A, "", "",
       "config/cache.py:39"},
      {"prefix_caching_hash_algo", R"({"prefix_caching_hash_algo": "xxhash_cbor"})", A, "", "",
       "config/cache.py:39"},
      {"prefix_caching_hash_algo", R"({"prefix_caching_hash_algo": "md5"})", R,
       "/prefix_caching_hash_algo", "is not accepted", "config/cache.py:39"},
      {"prefix_caching_hash_algo", R"({"prefix_caching_hash_algo": "builtin"})", R,
       "/prefix_caching_hash_algo", "is not accepted", "config/cache.py:39 (no builtin)"},

      // --- SchedulerConfig.policy (engine arg scheduling_policy): SchedulerPolicy.
      {"scheduling_policy", R"({"scheduling_policy": "fcfs"})", A, "", "",
       "config/scheduler.py:22"},
      {"scheduling_policy", R"({"scheduling_policy": "priority"})", A, "", "",
       "config/scheduler.py:22"},
      {"scheduling_policy", R"({"scheduling_policy": "FCFS"})", R, "/scheduling_policy",
       "is not accepted", "config/scheduler.py:22 (case-sensitive)"},
      {"scheduling_policy", R"({"scheduling_policy": "sjf"})", R, "/scheduling_policy",
       "is not accepted", "config/scheduler.py:22"},

      // --- SchedulerConfig.async_scheduling: bool | None; VllmConfig.__post_init__.
      {"async_scheduling", R"({"async_scheduling": null})", A, "", "",
       "config/scheduler.py:148 bool | None"},
      {"async_scheduling", R"({"async_scheduling": "false"})", A, "/async_scheduling", kReadAs,
       "config/scheduler.py:148; str_as_bool"},
      {"async_scheduling",
       R"({"async_scheduling": true, "speculative_config": {"method": "ngram_gpu", "num_speculative_tokens": 2}})",
       A, "", "", "config/vllm.py:1093 NgramGPUTypes"},
      {"async_scheduling",
       R"({"async_scheduling": true, "speculative_config": {"method": "ngram", "num_speculative_tokens": 2}})",
       R, "/async_scheduling", "only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark",
       "config/vllm.py:1099 __post_init__"},
      {"async_scheduling",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2}})", A, "", "",
       "config/vllm.py __post_init__ (None -> False with a warning)"},
      {"async_scheduling", R"({"async_scheduling": "sometimes"})", R, "/async_scheduling",
       "not a valid boolean", "str_as_bool"},

      {"watermark", R"({"watermark": null})", R, "/watermark", "is not Optional",
       "engine/arg_utils.py:628 float"},
      // --- SchedulerConfig.watermark: float, Field(ge=0.0, lt=1.0).
      {"watermark", R"({"watermark": 0})", A, "", "", "config/scheduler.py:136 ge=0.0"},
      {"watermark", R"({"watermark": 0.999})", A, "", "", "config/scheduler.py:136 lt=1.0"},
      {"watermark", R"({"watermark": "0.25"})", A, "/watermark", kReadAs, "str_as_float"},
      {"watermark", R"({"watermark": false})", A, "/watermark", kReadAs, "lax float False -> 0.0"},
      {"watermark", R"({"watermark": 1})", R, "/watermark", "Field(ge=0.0, lt=1.0)",
       "config/scheduler.py:136 lt=1.0"},
      {"watermark", R"({"watermark": true})", R, "/watermark", "out of range",
       "lax float True -> 1.0, lt=1.0"},
      {"watermark", R"({"watermark": -0.01})", R, "/watermark", "Field(ge=0.0, lt=1.0)",
       "config/scheduler.py:136 ge=0.0"},

      // --- SchedulerConfig.long_prefill_token_threshold: int, Field(ge=0); <= max_model_len.
      {"long_prefill_token_threshold", R"({"long_prefill_token_threshold": 0})", A, "", "",
       "config/scheduler.py:70 ge=0"},
      {"long_prefill_token_threshold",
       R"({"long_prefill_token_threshold": 8192, "max_model_len": 8192})", A, "", "",
       "config/scheduler.py:279 (<= max_model_len)"},
      {"long_prefill_token_threshold", R"({"long_prefill_token_threshold": "512"})", A,
       "/long_prefill_token_threshold", kReadAs, "str_as_int"},
      {"long_prefill_token_threshold", R"({"long_prefill_token_threshold": -1})", R,
       "/long_prefill_token_threshold", "Field(ge=0)", "config/scheduler.py:70 ge=0"},
      {"long_prefill_token_threshold",
       R"({"long_prefill_token_threshold": 8193, "max_model_len": 8192})", R,
       "/long_prefill_token_threshold", "cannot be greater than the max_model_len",
       "config/scheduler.py:279 verify_max_model_len"},
      {"long_prefill_token_threshold", R"({"long_prefill_token_threshold": 0.5})", R,
       "/long_prefill_token_threshold", "whole number", "float_as_int"},

      // --- Removed and unknown arguments.
      {"max_num_partial_prefills", R"({"max_num_partial_prefills": 1})", R,
       "/max_num_partial_prefills", "removed upstream",
       "config/scheduler.py: no such field at 8d9b52f7 (PR #49244)"},
      {"max_long_partial_prefills", R"({"max_long_partial_prefills": 1})", R,
       "/max_long_partial_prefills", "removed upstream",
       "config/scheduler.py: no such field at 8d9b52f7 (PR #49244)"},
      {"swap_space", R"({"swap_space": 4})", R, "/swap_space", "unknown key",
       "engine/arg_utils.py EngineArgs: no swap_space field at 8d9b52f7"},
      {"cuda_graph_sizes", R"({"cuda_graph_sizes": [1, 2]})", R, "/cuda_graph_sizes", "unknown key",
       "engine/arg_utils.py: no cuda_graph_sizes field at 8d9b52f7"},

      {"max_logprobs", R"({"max_logprobs": null})", R, "/max_logprobs", "is not Optional",
       "engine/arg_utils.py:538 int"},
      // --- ModelConfig.max_logprobs: int, Field(ge=-1).
      {"max_logprobs", R"({"max_logprobs": -1})", A, "", "", "config/model.py:244 ge=-1"},
      {"max_logprobs", R"({"max_logprobs": 0})", A, "", "", "config/model.py:244"},
      {"max_logprobs", R"({"max_logprobs": "5"})", A, "/max_logprobs", kReadAs, "str_as_int"},
      {"max_logprobs", R"({"max_logprobs": -2})", R, "/max_logprobs", "Field(ge=-1)",
       "config/model.py:244 ge=-1"},
      {"max_logprobs", R"({"max_logprobs": 1.5})", R, "/max_logprobs", "whole number",
       "float_as_int"},

      // --- ModelConfig.dtype: ModelDType (config/model.py:100).
      {"dtype", R"({"dtype": "auto"})", A, "", "", "config/model.py:100"},
      {"dtype", R"({"dtype": "half"})", A, "", "", "config/model.py:100"},
      {"dtype", R"({"dtype": "float16"})", A, "", "", "config/model.py:100"},
      {"dtype", R"({"dtype": "bfloat16"})", A, "", "", "config/model.py:100"},
      {"dtype", R"({"dtype": "bf16"})", R, "/dtype", "is not accepted", "config/model.py:100"},

      // --- ModelConfig.seed: int (ignored, still typed).
      {"seed", R"({"seed": -1})", A, "", "", "config/model.py:179 int"},
      {"seed", R"({"seed": "7"})", A, "/seed", kReadAs, "str_as_int"},
      {"seed", R"({"seed": 1.5})", R, "/seed", "whole number", "float_as_int"},

  };
}

namespace {

TEST(VllmConfigParity, ModelSchedulerAndCacheArguments) {
  check_rows(parity_rows_core());
}

// The table's size, for the report: arguments x values. It covers every argument the 0.32.0
// pack describes with a bound or a Literal (the rows' first column).
TEST(VllmConfigParity, CoversEveryBoundedArgument) {
  std::set<std::string> args;
  std::vector<Row> all = parity_rows_core();
  for (const Row& row : parity_rows_more()) all.push_back(row);
  for (const Row& row : parity_rows_graphs()) all.push_back(row);
  for (const Row& row : parity_rows_multimodal()) all.push_back(row);
  for (const Row& row : all) args.insert(row.arg);
  for (const char* key : {"max_model_len",
                          "max_num_seqs",
                          "max_num_batched_tokens",
                          "max_num_scheduled_tokens",
                          "block_size",
                          "gpu_memory_utilization",
                          "kv_cache_memory_bytes",
                          "num_gpu_blocks_override",
                          "kv_cache_dtype",
                          "prefix_caching_hash_algo",
                          "scheduling_policy",
                          "async_scheduling",
                          "watermark",
                          "long_prefill_token_threshold",
                          "max_logprobs",
                          "dtype",
                          "max_loras",
                          "max_lora_rank",
                          "max_cpu_loras",
                          "performance_mode",
                          "num_speculative_tokens",
                          "tensor_parallel_size",
                          "pipeline_parallel_size",
                          "data_parallel_size",
                          "stream_interval",
                          "cpu_offload_gb",
                          "kv_offloading_size",
                          "kv_offloading_backend",
                          "kv_cache_metrics_sample",
                          "cudagraph_capture_sizes",
                          "max_cudagraph_capture_size",
                          "optimization_level",
                          "attention_backend",
                          "all2all_backend",
                          "prefix_match_unit",
                          "mm_processor_cache_gb",
                          "lora_dtype",
                          "logprobs_mode",
                          "collect_detailed_traces"}) {
    EXPECT_TRUE(args.count(key)) << key;
  }
  std::cout << "vllm_config_parity: " << args.size() << " arguments, " << all.size() << " values\n";
}

}  // namespace
}  // namespace blis::rules::testing
