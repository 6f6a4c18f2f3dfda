// Every default of every pack, including those that depend on the GPU and on the usage
// context (OPENAI_API_SERVER), and the registry of each release.

#include <gtest/gtest.h>

#include <cmath>

#include "diagnostics_text.h"

#include "facts.h"
#include "resolve_args.h"
#include "rules/json_fields.h"
#include "rules/rules.h"

namespace blis::rules {
namespace {

using nlohmann::json;
using testing::deployment;

using testing::resolve;

using ::blis::testing::all_diagnostics;

TEST(Registry, FindsPacksByRelease) {
  ASSERT_NE(find_pack("0.32.0"), nullptr);
  EXPECT_EQ(find_pack("0.32.0")->release, "0.32.0");
  EXPECT_EQ(find_pack("0.31.0")->release, "0.31.0");
  EXPECT_EQ(find_pack("0.29.x")->release, "0.29.x");
  EXPECT_EQ(find_pack("0.29.0")->release, "0.29.x");
  EXPECT_EQ(find_pack("0.29.3")->release, "0.29.x");
  EXPECT_EQ(find_pack("0.30.0"), nullptr);
  EXPECT_EQ(find_pack("0.29.x1"), nullptr);
  EXPECT_EQ(find_pack(""), nullptr);
  EXPECT_EQ(find_pack("0.31.2"), nullptr);  // the 0.31.0 pack answers for 0.31.0 only
  EXPECT_EQ(find_pack("0.032"), nullptr);
  // Every release string a pack lists (docs/rules.md) finds that pack.
  for (const std::string& name : known_releases()) {
    for (const std::string& accepted : find_pack(name)->accepts)
      EXPECT_EQ(find_pack(accepted), find_pack(name)) << accepted;
  }
  EXPECT_EQ(known_releases(), (std::vector<std::string>{"0.29.x", "0.31.0", "0.32.0"}));
}

class EveryRelease : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryRelease, StaticDefaults) {
  const Resolved r = resolve(GetParam(), "{}");
  ASSERT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
  const auto& a = r.args;
  EXPECT_EQ(a.block_size, 16);
  EXPECT_DOUBLE_EQ(a.gpu_memory_utilization, 0.92);
  EXPECT_EQ(a.max_model_len, 131072);  // the model's derived maximum
  EXPECT_TRUE(a.enable_chunked_prefill);
  EXPECT_TRUE(a.enable_prefix_caching);
  EXPECT_TRUE(a.async_scheduling);  // None -> True: nothing incompatible
  EXPECT_EQ(a.kv_cache_dtype, "auto");
  EXPECT_EQ(a.dtype, "auto");
  EXPECT_EQ(a.scheduling_policy, "fcfs");
  EXPECT_EQ(a.prefix_caching_hash_algo, "sha256");
  EXPECT_EQ(a.long_prefill_token_threshold, 0);
  EXPECT_EQ(a.max_num_partial_prefills, 1);
  EXPECT_EQ(a.max_long_partial_prefills, 1);
  EXPECT_FALSE(a.enable_lora);
  EXPECT_EQ(a.max_loras, 1);
  EXPECT_EQ(a.max_lora_rank, 16);
  EXPECT_EQ(a.max_cpu_loras, 1);
  EXPECT_EQ(a.performance_mode, "balanced");
  EXPECT_FALSE(a.kv_transfer_config.has_value());
  EXPECT_FALSE(a.speculative_config.has_value());
  EXPECT_FALSE(a.kv_offloading_size_gib.has_value());
}

// EngineArgs.get_batch_defaults, OPENAI_API_SERVER column (spec §E.29).
TEST_P(EveryRelease, BatchDefaultsByGpu) {
  struct Row {
    HardwareFacts hw;
    int mnbt, mns;
  };
  const Row rows[] = {{testing::h100(), 8192, 1024}, {testing::a100_80(), 2048, 256},
                      {testing::b200(), 8192, 1024}, {testing::mi300x(), 8192, 1024},
                      {testing::l40s(), 2048, 256},  {HardwareFacts{}, 2048, 256}};
  for (const auto& row : rows) {
    const Resolved r = resolve(GetParam(), "{}", deployment(row.hw));
    EXPECT_EQ(r.args.max_num_batched_tokens, row.mnbt) << row.hw.name;
    EXPECT_EQ(r.args.max_num_seqs, row.mns) << row.hw.name;
  }
}

TEST_P(EveryRelease, ThroughputModeDoublesUnsetDefaults) {
  Resolved r = resolve(GetParam(), R"({"performance_mode": "throughput"})");
  EXPECT_EQ(r.args.max_num_batched_tokens, 16384);
  EXPECT_EQ(r.args.max_num_seqs, 2048);
  r = resolve(GetParam(), R"({"performance_mode": "throughput", "max_num_seqs": 100})");
  EXPECT_EQ(r.args.max_num_batched_tokens, 16384);
  EXPECT_EQ(r.args.max_num_seqs, 100);  // an explicit value is never doubled
}

// Spec §E.30: chunked prefill off and the budget unset -> max(max_model_len, default).
TEST_P(EveryRelease, UnchunkedBudgetHoldsAPrompt) {
  const Resolved r =
      resolve(GetParam(), R"({"max_model_len": 32768, "enable_chunked_prefill": false})");
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.args.max_num_batched_tokens, 32768);
}

// Spec §E.26: max_num_partial_prefills > 1 and threshold 0 -> int(0.04 * max_model_len), in
// the releases that still have partial prefills (0.32.0 removed them: arg_constraints_test).
TEST_P(EveryRelease, LongPrefillThresholdDefault) {
  if (!find_pack(GetParam())->partial_prefills) GTEST_SKIP() << "removed in this release";
  const Resolved r =
      resolve(GetParam(), R"({"max_num_partial_prefills": 4, "max_model_len": 10000})");
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.args.long_prefill_token_threshold, 400);
}

TEST_P(EveryRelease, ExplicitValuesAreKept) {
  const Resolved r = resolve(GetParam(), R"({"max_model_len": "4k", "max_num_batched_tokens": "2K",
      "max_num_seqs": 64, "block_size": 32, "gpu_memory_utilization": 1.0, "enable_prefix_caching": false,
      "kv_cache_dtype": "fp8_e4m3", "prefix_caching_hash_algo": "xxhash_cbor", "scheduling_policy": "priority",
      "async_scheduling": false, "enable_lora": true, "max_loras": 4, "max_lora_rank": 320,
      "num_gpu_blocks_override": 1000})");
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
  const auto& a = r.args;
  EXPECT_EQ(a.max_model_len, 4000);           // lowercase k is decimal
  EXPECT_EQ(a.max_num_batched_tokens, 2048);  // uppercase K is binary
  EXPECT_EQ(a.max_num_seqs, 64);
  EXPECT_EQ(a.block_size, 32);
  EXPECT_DOUBLE_EQ(a.gpu_memory_utilization, 1.0);
  EXPECT_FALSE(a.enable_prefix_caching);
  EXPECT_EQ(a.kv_cache_dtype, "fp8_e4m3");
  EXPECT_EQ(a.prefix_caching_hash_algo, "xxhash_cbor");
  EXPECT_EQ(a.scheduling_policy, "priority");
  EXPECT_FALSE(a.async_scheduling);
  EXPECT_EQ(a.max_loras, 4);
  EXPECT_EQ(a.max_cpu_loras, 4);  // None -> max_loras
  EXPECT_EQ(a.max_lora_rank, 320);
  EXPECT_EQ(a.num_gpu_blocks_override, 1000);
  const Resolved k = resolve(GetParam(), R"({"kv_cache_memory_bytes": "16G"})");
  EXPECT_TRUE(k.diagnostics.empty()) << all_diagnostics(k.diagnostics);
  EXPECT_EQ(k.args.kv_cache_memory_bytes, 16LL << 30);
}

TEST_P(EveryRelease, AsyncStaysOnWithEagle) {
  const Resolved r = resolve(GetParam(), R"({"speculative_config": {"method": "eagle3",
      "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B", "num_speculative_tokens": 3}})");
  EXPECT_FALSE(has_errors(r.diagnostics)) << all_diagnostics(r.diagnostics);
  EXPECT_TRUE(r.args.async_scheduling);
  ASSERT_TRUE(r.args.speculative_config);
  EXPECT_EQ(r.args.speculative_config->num_speculative_tokens, 3);
  EXPECT_DOUBLE_EQ(r.args.speculative_config->acceptance_rate, 0.7);
}

TEST_P(EveryRelease, AsyncTurnsOffWithSuffixDecoding) {
  const Resolved r = resolve(
      GetParam(), R"({"speculative_config": {"method": "suffix", "num_speculative_tokens": 4}})");
  EXPECT_FALSE(has_errors(r.diagnostics)) << all_diagnostics(r.diagnostics);
  EXPECT_FALSE(r.args.async_scheduling);
}

TEST_P(EveryRelease, OffloadingSizeConfiguresOffloadingConnector) {
  const Resolved r = resolve(GetParam(), R"({"kv_offloading_size": 8})");
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
  ASSERT_TRUE(r.args.kv_transfer_config);
  EXPECT_EQ(r.args.kv_transfer_config->kv_connector, "OffloadingConnector");
  EXPECT_EQ(r.args.kv_transfer_config->kv_role, "kv_both");
  EXPECT_EQ(r.args.kv_transfer_config->cpu_bytes_to_use, 8LL << 30);
  EXPECT_EQ(r.args.kv_transfer_config->offload_block_size, 16);
  EXPECT_EQ(r.args.kv_offloading_size_gib, 8.0);
}

TEST_P(EveryRelease, PdPoolsDefaultToNixl) {
  for (const char* role : {"prefill", "decode"}) {
    const Resolved r =
        resolve(GetParam(), "{}", deployment(testing::h100(), testing::llama31_8b(), 1, role));
    EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
    ASSERT_TRUE(r.args.kv_transfer_config) << role;
    EXPECT_EQ(r.args.kv_transfer_config->kv_connector, "NixlConnector");
    EXPECT_EQ(r.args.kv_transfer_config->kv_role, "kv_both");
  }
}

TEST_P(EveryRelease, RegistryHoldsModelledAndUnmodelledConnectors) {
  const Pack& p = *find_pack(GetParam());
  std::vector<std::string> modelled;
  for (const auto& c : p.connectors) {
    if (c.modelled) modelled.push_back(c.name);
  }
  EXPECT_EQ(modelled, (std::vector<std::string>{"NixlConnector", "OffloadingConnector"}));
  EXPECT_GE(p.connectors.size(), 10u);
  for (const auto& rule : p.rules) {
    EXPECT_NE(std::string(rule.source), "") << rule.id;
    EXPECT_TRUE(rule.severity == "error" || rule.severity == "warning" ||
                rule.severity == "default")
        << rule.id;
  }
}

TEST_P(EveryRelease, NullArgsAreEmpty) {
  const Resolved r = resolve(GetParam(), "null");
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.args.max_num_seqs, 1024);
}

INSTANTIATE_TEST_SUITE_P(Packs, EveryRelease, ::testing::Values("0.29.x", "0.31.0", "0.32.0"),
                         [](const ::testing::TestParamInfo<std::string>& i) {
                           std::string s = "v" + i.param;
                           for (auto& ch : s) {
                             if (ch == '.') ch = '_';
                           }
                           return s;
                         });

TEST(ReleaseDifferences, OnlineFp8) {
  EXPECT_EQ(find_pack("0.29.x")->fp8_online, Fp8Online::kWarnAlias);
  EXPECT_EQ(find_pack("0.31.0")->fp8_online, Fp8Online::kRefuse);
  // 8d9b52f7: Fp8Config without a serialized checkpoint quantizes online, per tensor.
  EXPECT_EQ(find_pack("0.32.0")->fp8_online, Fp8Online::kAccept);
  const Resolved r = resolve("0.29.x", R"({"quantization": "fp8"})");
  EXPECT_EQ(r.args.quantization, "fp8_per_tensor");  // the deprecated alias resolves
  const Resolved a = resolve("0.32.0", R"({"quantization": "FP8"})");
  EXPECT_FALSE(has_errors(a.diagnostics)) << all_diagnostics(a.diagnostics);
  EXPECT_EQ(a.args.quantization, "fp8_per_tensor");
  const Resolved q = resolve("0.32.0", R"({"quantization": "fp8_per_tensor"})");
  EXPECT_TRUE(q.diagnostics.empty()) << all_diagnostics(q.diagnostics);
}

TEST(HumanReadable, MatchesVllm) {
  EXPECT_EQ(parse_human_readable_int("2k"), 2000);
  EXPECT_EQ(parse_human_readable_int("2K"), 2048);
  EXPECT_EQ(parse_human_readable_int("1.5k"), 1500);
  EXPECT_EQ(parse_human_readable_int("25.6k"), 25600);
  EXPECT_EQ(parse_human_readable_int("1M"), 1 << 20);
  EXPECT_EQ(parse_human_readable_int(" 4096 "), 4096);
  EXPECT_EQ(parse_human_readable_int("-1"), -1);
  EXPECT_FALSE(parse_human_readable_int("1.5K"));  // no decimals with binary suffixes
  EXPECT_FALSE(parse_human_readable_int("k"));
  EXPECT_FALSE(parse_human_readable_int("12x"));
  EXPECT_FALSE(parse_human_readable_int("99999999999999999999999"));
}

// pydantic-core src/input/shared.rs str_as_int and str_as_float, as vLLM's config classes
// apply them to strings.
TEST(PydanticLax, StringsAsNumbers) {
  EXPECT_EQ(blis::pydantic_str_int("128"), 128);
  EXPECT_EQ(blis::pydantic_str_int("+5"), 5);
  EXPECT_EQ(blis::pydantic_str_int("-3"), -3);
  EXPECT_EQ(blis::pydantic_str_int("128.0"), 128);     // strip_decimal_zeros
  EXPECT_FALSE(blis::pydantic_str_int("128."));        // clean_int_str: an empty fraction stays
  EXPECT_EQ(blis::pydantic_str_int("1_000"), 1000);    // strip_underscores
  EXPECT_EQ(blis::pydantic_str_int("1_000.0"), 1000);  // the zeros, then the underscores
  EXPECT_EQ(blis::pydantic_str_int(" 128 "), 128);     // trimmed (Rust's str::trim)
  EXPECT_EQ(blis::pydantic_str_int("\t\n64\r"), 64);
  EXPECT_EQ(blis::pydantic_str_int("\xc2\xa0"
                                   "8"),
            8);                                 // U+00A0 is Unicode whitespace
  EXPECT_EQ(blis::pydantic_str_int("007"), 7);  // strip_leading_zeros
  EXPECT_EQ(blis::pydantic_str_int("-007"), -7);
  EXPECT_EQ(blis::pydantic_str_int("000"), 0);
  EXPECT_EQ(blis::pydantic_str_int("0_1"), 1);
  EXPECT_EQ(blis::pydantic_str_int(" +5 "), 5);
  EXPECT_FALSE(blis::pydantic_str_int("+-1"));
  EXPECT_FALSE(blis::pydantic_str_int("--1"));
  EXPECT_FALSE(blis::pydantic_str_int("-+1"));
  EXPECT_FALSE(blis::pydantic_str_int("1 000"));
  EXPECT_FALSE(blis::pydantic_str_int(".0"));
  EXPECT_FALSE(blis::pydantic_str_int("0x10"));
  EXPECT_FALSE(blis::pydantic_str_int("128.5"));
  EXPECT_FALSE(blis::pydantic_str_int("1__000"));
  EXPECT_FALSE(blis::pydantic_str_int("_1"));
  EXPECT_FALSE(blis::pydantic_str_int("1_"));
  EXPECT_FALSE(blis::pydantic_str_int("1e3 "));
  EXPECT_FALSE(blis::pydantic_str_int("1e3"));
  EXPECT_FALSE(blis::pydantic_str_int("abc"));
  EXPECT_FALSE(blis::pydantic_str_int(""));
  EXPECT_EQ(blis::pydantic_str_float("0.5"), 0.5);
  EXPECT_EQ(blis::pydantic_str_float(" 0.5\n"), 0.5);  // the trimmed text parses
  EXPECT_EQ(blis::pydantic_str_float("5."), 5.0);
  EXPECT_EQ(blis::pydantic_str_float("1_0.5"), 10.5);
  EXPECT_FALSE(blis::pydantic_str_float(" 1_0.5"));  // underscores only on the untrimmed text
  EXPECT_FALSE(blis::pydantic_str_float("1 0"));
  EXPECT_EQ(blis::pydantic_str_float(".5"), 0.5);
  EXPECT_EQ(blis::pydantic_str_float("1e-2"), 0.01);
  EXPECT_EQ(blis::pydantic_str_float("2"), 2.0);
  EXPECT_EQ(blis::pydantic_str_float("1_0.5"), 10.5);
  EXPECT_TRUE(std::isinf(*blis::pydantic_str_float("inf")));
  EXPECT_TRUE(std::isnan(*blis::pydantic_str_float("NaN")));
  EXPECT_FALSE(blis::pydantic_str_float("0x10"));
  EXPECT_FALSE(blis::pydantic_str_float("1e"));
  EXPECT_FALSE(blis::pydantic_str_float("."));
  EXPECT_FALSE(blis::pydantic_str_float("half"));
}

}  // namespace
}  // namespace blis::rules
