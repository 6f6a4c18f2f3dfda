// The engine's own start-up checks run in the decoder, so `blis validate` and `blis run`
// agree: max_model_len -1 / "auto" is fitted to the KV cache as vLLM's
// _auto_fit_max_model_len does, and num_gpu_blocks_override must hold one max_model_len
// request (_check_enough_kv_cache_memory) before the run, not half-way through it.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "documents.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

using ::blis::testing::all_diagnostics;

// The base document (H100, Llama-3.1-8B: 131072 derived, 16-token blocks) with `args`.
DecodeResult decode_args(const std::string& args) {
  nlohmann::json doc = testing::base_unified();
  doc["pools"][0]["engine"]["args"] = nlohmann::json::parse(args);
  doc["workload"]["clients"][0]["prompt_tokens"]["value"] = 64;
  doc["workload"]["clients"][0]["output_tokens"]["value"] = 16;
  return decode_scenario(doc.dump());
}

std::int32_t fitted_len(const std::string& args) {
  const DecodeResult r = decode_args(args);
  EXPECT_TRUE(r.scenario) << args << "\n" << all_diagnostics(r.diagnostics);
  return r.scenario ? r.scenario->pools[0].engine.args.max_model_len : 0;
}

bool has_error_at(const DecodeResult& r, const std::string& pointer, const std::string& text) {
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::kError && d.pointer == pointer &&
        d.message.find(text) != std::string::npos) {
      return true;
    }
  }
  return false;
}

const std::string kArgs = "/pools/0/engine/args";

TEST(AutoFit, TheWholeContextWhenItFits) {
  EXPECT_EQ(fitted_len(R"({"max_model_len": "auto"})"), 131072);
  EXPECT_EQ(fitted_len(R"({"max_model_len": -1})"), 131072);
}

TEST(AutoFit, TheLongestLengthWhoseOneRequestFits) {
  // Little memory left after the weights: the context shrinks to what one request fits.
  const std::int32_t fitted =
      fitted_len(R"({"max_model_len": "auto", "gpu_memory_utilization": 0.3})");
  ASSERT_GT(fitted, 0);
  ASSERT_LT(fitted, 131072);
  // It is the bisection's answer: that length starts, one more token does not.
  const std::string at =
      R"({"gpu_memory_utilization": 0.3, "max_model_len": )" + std::to_string(fitted) + "}";
  const DecodeResult ok = decode_args(at);
  EXPECT_TRUE(ok.scenario) << all_diagnostics(ok.diagnostics);
  const DecodeResult over = decode_args(R"({"gpu_memory_utilization": 0.3, "max_model_len": )" +
                                        std::to_string(fitted + 1) + "}");
  EXPECT_TRUE(has_error_at(over, kArgs + "/max_model_len", "cannot hold one request"))
      << all_diagnostics(over.diagnostics);
}

TEST(AutoFit, AgainstTheOverriddenBlocks) {
  // 700 blocks of 16 tokens, one of them the null block, hold one request of 699 * 16 = 11184
  // tokens (Llama-3.1-8B, full attention).
  EXPECT_EQ(fitted_len(R"({"max_model_len": "auto", "num_gpu_blocks_override": 700})"), 11184);
}

TEST(AutoFit, RefusedWhenNotOneTokenFits) {
  const DecodeResult r = decode_args(R"({"max_model_len": "auto", "kv_cache_memory_bytes": 1})");
  EXPECT_FALSE(r.scenario);
  EXPECT_TRUE(has_error_at(r, kArgs + "/max_model_len", "Cannot auto-fit max_model_len"))
      << all_diagnostics(r.diagnostics);
}

TEST(BlocksOverride, MustHoldOneMaxModelLenRequest) {
  // 8192 tokens need 512 blocks of 16, plus the null block.
  const DecodeResult fits =
      decode_args(R"({"max_model_len": 8192, "num_gpu_blocks_override": 513})");
  EXPECT_TRUE(fits.scenario) << all_diagnostics(fits.diagnostics);
  const DecodeResult null_block =
      decode_args(R"({"max_model_len": 8192, "num_gpu_blocks_override": 512})");
  EXPECT_TRUE(has_error_at(null_block, kArgs + "/num_gpu_blocks_override",
                           "511 usable KV blocks of 16 tokens (block 0 is the null block)"))
      << all_diagnostics(null_block.diagnostics);
  const DecodeResult below =
      decode_args(R"({"max_model_len": 8192, "num_gpu_blocks_override": 511})");
  EXPECT_FALSE(below.scenario);
  EXPECT_TRUE(has_error_at(below, kArgs + "/num_gpu_blocks_override",
                           "512 KV blocks are needed, more than the 511"))
      << all_diagnostics(below.diagnostics);
}

TEST(BlocksOverride, OneBlockIsRefusedByValidate) {
  // The finding of issue 12: `validate` said ok and `run` failed without a pointer.
  const DecodeResult r = decode_args(R"({"max_model_len": 8192, "num_gpu_blocks_override": 1})");
  EXPECT_FALSE(r.scenario);
  EXPECT_TRUE(has_error_at(r, kArgs + "/num_gpu_blocks_override", "KV blocks are needed"))
      << all_diagnostics(r.diagnostics);
  // Even when one block would hold a whole request, block 0 is the null block.
  const DecodeResult tiny = decode_args(
      R"({"max_model_len": 16, "max_num_seqs": 16, "max_num_batched_tokens": 16, "num_gpu_blocks_override": 1})");
  EXPECT_TRUE(has_error_at(tiny, kArgs + "/num_gpu_blocks_override", "null block"))
      << all_diagnostics(tiny.diagnostics);
}

TEST(EngineArgs, RemovedArgumentsAreUnknownIn032) {
  const DecodeResult r = decode_args(R"({"max_num_partial_prefills": 2})");
  EXPECT_TRUE(has_error_at(r, kArgs + "/max_num_partial_prefills", "PR #49244"))
      << all_diagnostics(r.diagnostics);
}

}  // namespace
}  // namespace blis::scenario
