// Every refusal and warning of the rules packs, table-driven: each case names the release,
// the raw engine.args, the deployment, and the pointer + message vLLM's rule produces.

#include <gtest/gtest.h>

#include "facts.h"
#include "rules/rules.h"

namespace blis::rules {
namespace {

using testing::deployment;

struct BadCase {
  const char* name;
  const char* release;
  const char* args;  // engine.args as JSON
  DeploymentFacts facts;
  const char* pointer;
  const char* message;  // substring of the diagnostic at `pointer`
  Severity severity = Severity::kError;
};

void PrintTo(const BadCase& c, std::ostream* os) {
  *os << c.name;
}

std::vector<BadCase> cases() {
  const auto h = deployment();
  const char* P = "/pools/0/engine/args";
  (void)P;
  return {
      // --- literal and range checks (pydantic Field / Literal) ---
      {"block_size_17", "0.32.0", R"({"block_size": 17})", h, "/pools/0/engine/args/block_size",
       "17 is not accepted by vLLM 0.32.0 (accepted: 16, 32, 48, 64, ...: multiples of 16"},
      {"block_size_8", "0.31.0", R"({"block_size": 8})", h, "/pools/0/engine/args/block_size",
       "8 is not accepted by vLLM 0.31.0"},
      {"block_size_zero", "0.32.0", R"({"block_size": 0})", h, "/pools/0/engine/args/block_size",
       "0 is out of range, expected an integer > 0"},
      {"block_size_word", "0.32.0", R"({"block_size": "sixteen"})", h,
       "/pools/0/engine/args/block_size",
       "\"sixteen\" is not a valid integer, expected an integer > 0"},
      {"gpu_util_zero", "0.32.0", R"({"gpu_memory_utilization": 0})", h,
       "/pools/0/engine/args/gpu_memory_utilization",
       "0 is out of range, expected a fraction in (0, 1]"},
      {"gpu_util_above_one", "0.29.x", R"({"gpu_memory_utilization": 1.01})", h,
       "/pools/0/engine/args/gpu_memory_utilization", "1.01 is out of range"},
      {"kv_cache_dtype_int8", "0.32.0", R"({"kv_cache_dtype": "int8"})", h,
       "/pools/0/engine/args/kv_cache_dtype",
       "\"int8\" is not accepted by vLLM 0.32.0 (accepted: \"auto\""},
      {"hash_algo_md5", "0.32.0", R"({"prefix_caching_hash_algo": "md5"})", h,
       "/pools/0/engine/args/prefix_caching_hash_algo", "\"md5\" is not accepted by vLLM 0.32.0"},
      {"policy_lifo", "0.31.0", R"({"scheduling_policy": "lifo"})", h,
       "/pools/0/engine/args/scheduling_policy",
       "\"lifo\" is not accepted by vLLM 0.31.0 (accepted: \"fcfs\", \"priority\")"},
      {"dtype_int4", "0.32.0", R"({"dtype": "int4"})", h, "/pools/0/engine/args/dtype",
       "\"int4\" is not accepted by vLLM 0.32.0"},
      {"quantization_unknown", "0.32.0", R"({"quantization": "q4_k_m"})", h,
       "/pools/0/engine/args/quantization", "\"q4_k_m\" is not accepted by vLLM 0.32.0"},
      {"lora_rank_24", "0.32.0", R"({"enable_lora": true, "max_lora_rank": 24})", h,
       "/pools/0/engine/args/max_lora_rank",
       "24 is not accepted by vLLM 0.32.0 (accepted: 1, 8, 16, 32, 64, 128, 256, 320, 512)"},
      {"max_loras_zero", "0.32.0", R"({"enable_lora": true, "max_loras": 0})", h,
       "/pools/0/engine/args/max_loras", "0 is out of range, expected an integer >= 1"},
      {"max_num_seqs_zero", "0.32.0", R"({"max_num_seqs": 0})", h,
       "/pools/0/engine/args/max_num_seqs", "0 is out of range, expected an integer >= 1"},
      {"mnbt_negative", "0.32.0", R"({"max_num_batched_tokens": -5})", h,
       "/pools/0/engine/args/max_num_batched_tokens", "-5 is out of range"},
      {"mnbt_bad_human", "0.32.0", R"({"max_num_batched_tokens": "2.5K"})", h,
       "/pools/0/engine/args/max_num_batched_tokens", "\"2.5K\" is not an integer"},
      {"mml_float", "0.32.0", R"({"max_model_len": 4096.5})", h,
       "/pools/0/engine/args/max_model_len", "4096.5 is not a whole number"},
      {"mml_zero", "0.32.0", R"({"max_model_len": 0})", h, "/pools/0/engine/args/max_model_len",
       "max_model_len must be a positive integer, got int: 0"},
      {"mml_minus_two", "0.32.0", R"({"max_model_len": -2})", h,
       "/pools/0/engine/args/max_model_len", "-2 is out of range"},
      {"mml_huge_int", "0.32.0", R"({"max_model_len": 99999999999999999999})", h,
       "/pools/0/engine/args/max_model_len", "out of range"},
      // pydantic's lax bool takes "yes"; "maybe" it refuses.
      {"chunked_string", "0.32.0", R"({"enable_chunked_prefill": "maybe"})", h,
       "/pools/0/engine/args/enable_chunked_prefill", "\"maybe\" is not a valid boolean"},
      {"performance_mode_fast", "0.32.0", R"({"performance_mode": "fast"})", h,
       "/pools/0/engine/args/performance_mode", "\"fast\" is not accepted by vLLM 0.32.0"},
      {"blocks_override_zero", "0.32.0", R"({"num_gpu_blocks_override": 0})", h,
       "/pools/0/engine/args/num_gpu_blocks_override", "0 is out of range"},
      {"args_not_object", "0.32.0", R"([1, 2])", h, "/pools/0/engine/args",
       "is an array, expected an object"},
      // --- keys ---
      {"unknown_key", "0.32.0", R"({"max_num_seq": 8})", h, "/pools/0/engine/args/max_num_seq",
       "unknown key: not an engine argument of vLLM 0.32.0 that BLIS Playground knows; did you "
       "mean \"max_num_seqs\"?"},
      {"misplaced_tp", "0.32.0", R"({"tensor_parallel_size": 2})", h,
       "/pools/0/engine/args/tensor_parallel_size", "set /pools/0/parallelism/tp instead"},
      {"unmodelled_arg", "0.32.0", R"({"cpu_offload_gb": -1})", h,
       "/pools/0/engine/args/cpu_offload_gb", "is out of range, expected a size in GiB >= 0"},
      {"unmodelled_arg_choice", "0.32.0", R"({"attention_backend": "FLASH_ATTENTION"})", h,
       "/pools/0/engine/args/attention_backend",
       "\"FLASH_ATTENTION\" is not accepted by vLLM 0.32.0 (AttentionBackendEnum"},
      {"never_an_arg", "0.32.0", R"({"max_num_queued_reqs": 8})", h,
       "/pools/0/engine/args/max_num_queued_reqs",
       "not an engine argument of vLLM 0.32.0 (max_num_queued_reqs was never an EngineArgs field "
       "at upstream 8d9b52f7)"},
      {"ignored_arg", "0.32.0", R"({"served_model_name": "x"})", h,
       "/pools/0/engine/args/served_model_name", "has no effect on what BLIS Playground simulates",
       Severity::kWarning},
      // --- SchedulerConfig.verify_max_model_len (spec §C.3, §E.22-28) ---
      {"c3_rule1_no_chunking", "0.32.0",
       R"({"max_model_len": 8192, "max_num_batched_tokens": 4096, "enable_chunked_prefill": false})",
       h, "/pools/0/engine/args/max_num_batched_tokens",
       "max_num_batched_tokens (4096) is smaller than max_model_len (8192)"},
      {"c3_rule2_below_seqs", "0.31.0", R"({"max_num_batched_tokens": 64, "max_num_seqs": 128})", h,
       "/pools/0/engine/args/max_num_batched_tokens",
       "max_num_batched_tokens (64) must be greater than or equal to max_num_seqs (128)"},
      {"c3_rule3_warning", "0.29.x",
       R"({"max_num_seqs": 2, "max_model_len": 1024, "max_num_batched_tokens": 4096})", h,
       "/pools/0/engine/args/max_num_batched_tokens", "exceeds max_num_seqs * max_model_len (2048)",
       Severity::kWarning},
      {"c3_rule4_partial_no_chunking", "0.31.0",
       R"({"max_num_partial_prefills": 2, "enable_chunked_prefill": false, "max_model_len": 2048})",
       h, "/pools/0/engine/args/max_num_partial_prefills",
       "chunked prefill must be enabled to set max_num_partial_prefills > 1"},
      {"c3_rule5_threshold", "0.29.x",
       R"({"max_num_partial_prefills": 2, "long_prefill_token_threshold": 9000, "max_model_len": 8192})",
       h, "/pools/0/engine/args/long_prefill_token_threshold",
       "long_prefill_token_threshold (9000) cannot be greater than the max_model_len (8192)"},
      {"c3_rule6_long_above_partial", "0.31.0",
       R"({"max_long_partial_prefills": 3, "max_num_partial_prefills": 2})", h,
       "/pools/0/engine/args/max_long_partial_prefills",
       "max_long_partial_prefills (3) must be less than or equal to max_num_partial_prefills (2)"},
      {"negative_threshold_0_31", "0.31.0", R"({"long_prefill_token_threshold": -1})", h,
       "/pools/0/engine/args/long_prefill_token_threshold", "caps nothing", Severity::kWarning},
      {"kv_bytes_and_util", "0.32.0",
       R"({"kv_cache_memory_bytes": "8G", "gpu_memory_utilization": 0.5})", h,
       "/pools/0/engine/args/gpu_memory_utilization", "ignored: kv_cache_memory_bytes is set",
       Severity::kWarning},
      // --- model checks ---
      {"mml_above_model", "0.32.0", R"({"max_model_len": 200000})", h,
       "/pools/0/engine/args/max_model_len",
       "200000 is above the model's derived max_model_len (131072)"},
      {"tp_not_dividing_heads", "0.32.0", R"({})",
       deployment(testing::h100(), testing::llama31_70b(), 3), "/pools/0/parallelism/tp",
       "total number of attention heads (64) must be divisible by tensor parallel size (3)"},
      // --- quantization per release ---
      {"fp8_online_0_31", "0.31.0", R"({"quantization": "fp8"})", h,
       "/pools/0/engine/args/quantization",
       "\"fp8\" is not accepted by vLLM 0.31.0 for an unquantized checkpoint"},
      {"fp8_online_0_29_warns", "0.29.x", R"({"quantization": "fp8"})", h,
       "/pools/0/engine/args/quantization",
       "--quantization fp8 is deprecated for online quantization", Severity::kWarning},
      {"quantization_mismatch", "0.32.0", R"({"quantization": "awq"})",
       deployment(testing::h100(), testing::gptq_model()), "/pools/0/engine/args/quantization",
       "quantization method specified in the model config (gptq) does not match"},
      // --- LoRA ---
      {"lora_cpu_below", "0.32.0", R"({"enable_lora": true, "max_loras": 4, "max_cpu_loras": 2})",
       h, "/pools/0/engine/args/max_cpu_loras", "max_cpu_loras (2) must be >= max_loras (4)"},
      {"lora_without_enable", "0.31.0", R"({"max_loras": 4})", h, "/pools/0/engine/args/max_loras",
       "has no effect without enable_lora", Severity::kWarning},
      // --- speculative decoding and async scheduling ---
      {"spec_tokens_zero", "0.32.0",
       R"({"speculative_config": {"method": "eagle3", "num_speculative_tokens": 0}})", h,
       "/pools/0/engine/args/speculative_config/num_speculative_tokens",
       "0 is out of range, expected an integer > 0"},
      {"spec_tokens_missing", "0.32.0", R"({"speculative_config": {"method": "mtp"}})", h,
       "/pools/0/engine/args/speculative_config/num_speculative_tokens", "missing"},
      {"spec_method_unknown", "0.32.0",
       R"({"speculative_config": {"method": "lookahead", "num_speculative_tokens": 2}})", h,
       "/pools/0/engine/args/speculative_config/method",
       "\"lookahead\" is not a speculative method of vLLM 0.32.0"},
      {"spec_acceptance_range", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "acceptance_rate": 1.5}})",
       h, "/pools/0/engine/args/speculative_config/acceptance_rate", "1.5 is out of range"},
      {"spec_unknown_key", "0.32.0",
       R"({"speculative_config": {"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_maxx": 4}})",
       h, "/pools/0/engine/args/speculative_config/prompt_lookup_maxx", "unknown key"},
      {"async_explicit_ngram", "0.32.0",
       R"({"async_scheduling": true, "speculative_config": {"method": "ngram", "num_speculative_tokens": 3}})",
       h, "/pools/0/engine/args/async_scheduling",
       "async scheduling is only supported with EAGLE/MTP/Draft Model/NGram GPU/DSpark"},
      {"async_auto_off_medusa", "0.31.0",
       R"({"speculative_config": {"method": "medusa", "model": "FasterDecoding/medusa-vicuna-7b-v1.3", "num_speculative_tokens": 3}})",
       h, "/pools/0/engine/args/speculative_config/method",
       "async scheduling not supported with medusa-based speculative decoding and will be disabled",
       Severity::kWarning},
      // --- kv_transfer_config (spec §E.19-21) and connectors ---
      {"connector_unknown", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "FooConnector", "kv_role": "kv_both"}})", h,
       "/pools/0/engine/args/kv_transfer_config/kv_connector",
       "Unsupported connector type: FooConnector"},
      {"connector_p2p_removed", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "P2pNcclConnector", "kv_role": "kv_both"}})", h,
       "/pools/0/engine/args/kv_transfer_config/kv_connector",
       "removed P2pNcclConnector in PR #44854"},
      {"connector_lmcache", "0.31.0",
       R"({"kv_transfer_config": {"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}})", h,
       "/pools/0/engine/args/kv_transfer_config/kv_connector",
       "\"LMCacheConnectorV1\" exists in vLLM 0.31.0 but is not modelled by BLIS Playground "
       "(modelled: NixlConnector, OffloadingConnector)"},
      {"connector_multi", "0.29.x",
       R"({"kv_transfer_config": {"kv_connector": "MultiConnector", "kv_role": "kv_both"}})", h,
       "/pools/0/engine/args/kv_transfer_config/kv_connector",
       "exists in vLLM 0.29.x but is not modelled"},
      {"role_missing", "0.32.0", R"({"kv_transfer_config": {"kv_connector": "NixlConnector"}})", h,
       "/pools/0/engine/args/kv_transfer_config/kv_role",
       "kv_role is required when kv_connector is set"},
      {"role_invalid", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "producer"}})", h,
       "/pools/0/engine/args/kv_transfer_config/kv_role",
       "Unsupported kv_role: producer. Supported roles are ('kv_producer', 'kv_consumer', "
       "'kv_both')"},
      {"module_path", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "Mine", "kv_role": "kv_both", "kv_connector_module_path": "my.mod"}})",
       h, "/pools/0/engine/args/kv_transfer_config/kv_connector_module_path",
       "out-of-tree connectors"},
      {"buffer_cpu", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both", "kv_buffer_device": "cpu"}})",
       h, "/pools/0/engine/args/kv_transfer_config/kv_buffer_device",
       "host-side KV buffer is not modelled"},
      {"offload_block_size", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "OffloadingConnector", "kv_role": "kv_both",
           "kv_connector_extra_config": {"cpu_bytes_to_use": 1000000000, "block_size": 40}}})",
       h, "/pools/0/engine/args/kv_transfer_config/kv_connector_extra_config/block_size",
       "40: the offloaded block size must be a multiple of the GPU block_size (16)"},
      {"offload_eviction_policy", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "OffloadingConnector", "kv_role": "kv_both",
           "kv_connector_extra_config": {"cpu_bytes_to_use": 1000000000, "eviction_policy": "lfu"}}})",
       h, "/pools/0/engine/args/kv_transfer_config/kv_connector_extra_config/eviction_policy",
       "\"lfu\" is not accepted by vLLM 0.32.0: Unknown cache policy: 'lfu'. Supported: ['lru', "
       "'arc']. For an out-of-tree policy, also set cache_policy_module_path."},
      {"offload_store_threshold_type", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "OffloadingConnector", "kv_role": "kv_both",
           "kv_connector_extra_config": {"cpu_bytes_to_use": 1000000000, "store_threshold": "x"}}})",
       h, "/pools/0/engine/args/kv_transfer_config/kv_connector_extra_config/store_threshold",
       "expected an integer (store_threshold"},
      {"offload_size_missing", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "OffloadingConnector", "kv_role": "kv_both"}})",
       h, "/pools/0/engine/args/kv_transfer_config/kv_connector_extra_config/cpu_bytes_to_use",
       "OffloadingConnector needs the CPU KV buffer size"},
      {"offload_lmcache_backend", "0.32.0",
       R"({"kv_offloading_size": 8, "kv_offloading_backend": "lmcache"})", h,
       "/pools/0/engine/args/kv_offloading_backend", "selects LMCacheMPConnector"},
      {"offload_replaces_nixl", "0.32.0",
       R"({"kv_offloading_size": 8, "kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}})",
       h, "/pools/0/engine/args/kv_offloading_size",
       "replaces kv_transfer_config.kv_connector \"NixlConnector\"", Severity::kWarning},
      {"offload_size_zero", "0.32.0", R"({"kv_offloading_size": 0})", h,
       "/pools/0/engine/args/kv_offloading_size", "0 is out of range, expected a size in GiB > 0"},
      {"extra_config_unknown", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both",
           "kv_connector_extra_config": {"backends": ["UCX"]}}})",
       h, "/pools/0/engine/args/kv_transfer_config/kv_connector_extra_config/backends",
       "not modelled", Severity::kWarning},
      {"nixl_unified_warns", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_both"}})", h,
       "/pools/0/engine/args/kv_transfer_config/kv_connector",
       "NixlConnector on a unified pool transfers nothing", Severity::kWarning},
      {"prefill_consumer", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_consumer"}})",
       deployment(testing::h100(), testing::llama31_8b(), 1, "prefill"),
       "/pools/0/engine/args/kv_transfer_config/kv_role", "a prefill pool produces KV"},
      {"decode_producer", "0.32.0",
       R"({"kv_transfer_config": {"kv_connector": "NixlConnector", "kv_role": "kv_producer"}})",
       deployment(testing::h100(), testing::llama31_8b(), 1, "decode"),
       "/pools/0/engine/args/kv_transfer_config/kv_role", "a decode pool consumes KV"},
      {"decode_offloading_only", "0.32.0", R"({"kv_offloading_size": 4})",
       deployment(testing::h100(), testing::llama31_8b(), 1, "decode"),
       "/pools/0/engine/args/kv_offloading_size", "a decode pool hands KV over with NixlConnector"},
  };
}

class ResolveBad : public ::testing::TestWithParam<BadCase> {};

TEST_P(ResolveBad, ReportsPointerAndMessage) {
  const BadCase& c = GetParam();
  const Pack* pack = find_pack(c.release);
  ASSERT_NE(pack, nullptr) << c.release;
  const auto args = nlohmann::json::parse(c.args);
  const Resolved r = resolve_engine_args(*pack, args, "/pools/0/engine/args", c.facts);
  bool found = false;
  std::string all;
  for (const auto& d : r.diagnostics) {
    all += format_diagnostic(d) + "\n";
    if (d.pointer == c.pointer && d.message.find(c.message) != std::string::npos &&
        d.severity == c.severity) {
      found = true;
    }
  }
  EXPECT_TRUE(found) << "expected " << (c.severity == Severity::kError ? "error" : "warning")
                     << " at " << c.pointer << " containing: " << c.message << "\ngot:\n"
                     << all;
  if (c.severity == Severity::kWarning) {
    EXPECT_FALSE(has_errors(r.diagnostics)) << all;
  }
}

INSTANTIATE_TEST_SUITE_P(AllPacks, ResolveBad, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<BadCase>& i) {
                           return std::string(i.param.name);
                         });

}  // namespace
}  // namespace blis::rules
