// Replays every golden trace (tests/conformance/data, from vLLM's own scheduler at
// upstream 8d9b52f7) through the engine and compares field by field (FORMAT.md). A failure
// names the case, the step and the first differing field.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "conform/conform.h"
#include "conformance/trace_compare.h"
#include "test_files.h"

namespace blis {
namespace {

using blis::test::read_file;

std::string data_dir() {
  return std::string(BLIS_SOURCE_DIR) + "/tests/conformance/data/";
}

class GoldenTrace : public ::testing::TestWithParam<const char*> {};

TEST_P(GoldenTrace, MatchesVllm) {
  const std::string name = GetParam();
  const std::string input = read_file(data_dir() + name + ".input.json");
  const std::string expected_text = read_file(data_dir() + name + ".expected.json");
  ASSERT_FALSE(input.empty()) << "cannot read " << data_dir() + name + ".input.json";
  ASSERT_FALSE(expected_text.empty()) << "cannot read the expected trace of " << name;
  const vllm::ConformOutcome out = vllm::run_conformance(input);
  ASSERT_TRUE(out.ok) << name << ": input rejected: "
                      << (out.diagnostics.empty() ? "" : format_diagnostic(out.diagnostics[0]));
  const auto expected = nlohmann::json::parse(expected_text);
  const auto actual = nlohmann::json::parse(out.trace_json);
  const auto mismatch = testing::compare_traces(expected, actual);
  if (mismatch) {
    ADD_FAILURE() << "case " << name << ", step " << (mismatch->step.empty() ? "-" : mismatch->step)
                  << ": " << mismatch->pointer << ": " << mismatch->message;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Cases, GoldenTrace,
    ::testing::Values("01-simple", "02-max-num-seqs", "03-tight-budget-chunked",
                      "04-long-prefill-threshold", "05-prefix-cache", "06-kv-pressure-fcfs",
                      "07-priority-preemption", "08-aborts", "09-max-tokens-1",
                      "10-no-prefix-caching", "11-no-chunked-prefill", "12-random-mix-300",
                      "14-max-model-len", "15-no-reserve-full-isl", "16-reserve-full-isl",
                      "17-async-simple", "18-async-prefix", "19-async-pressure",
                      "30-spec-ngram-simple", "31-spec-draft-model-pressure", "32-spec-async-eagle",
                      "33-lora-max-loras", "34-eos-stop-min-tokens", "35-watermark-mnst",
                      "36-async-lora-eos-watermark", "37-async-mix-priority-400",
                      "50-priority-victim-tie"),
    [](const ::testing::TestParamInfo<const char*>& i) {
      std::string n = i.param;
      for (char& ch : n) {
        if (ch == '-') ch = '_';
      }
      return "case_" + n;
    });

TEST(TraceCompare, NamesTheStepAndTheFirstDifferingField) {
  const auto e = nlohmann::json::parse(
      R"({"provenance":1,"steps":[{"step":0,"a":1},{"step":1,"kv":0.5,"b":[1,2]}]})");
  auto a = e;
  a["provenance"] = 2;
  EXPECT_FALSE(testing::compare_traces(e, a));
  a["steps"][1]["kv"] = 0.5 + 1e-13;
  EXPECT_FALSE(testing::compare_traces(e, a));
  a["steps"][1]["kv"] = 0.5 + 1e-9;
  auto m = testing::compare_traces(e, a);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->step, "1");
  EXPECT_EQ(m->pointer, "/steps/1/kv");
  a = e;
  a["steps"][1]["b"] = {1, 3};
  m = testing::compare_traces(e, a);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->pointer, "/steps/1/b/1");
  a = e;
  a["steps"][0]["extra"] = true;
  m = testing::compare_traces(e, a);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->pointer, "/steps/0/extra");
}

TEST(ConformInput, BadInputIsNamedByJsonPointer) {
  const std::string base =
      R"({"config":{"block_size":16,"num_gpu_blocks":64,"max_num_seqs":4,"max_num_batched_tokens":64,)"
      R"("max_model_len":128,"enable_chunked_prefill":true,"long_prefill_token_threshold":0,)"
      R"("enable_prefix_caching":true,"policy":"fcfs","async_scheduling":false},"aborts":[],"max_steps":10,)";
  auto first = [](const std::string& text) {
    const vllm::ConformOutcome o = vllm::run_conformance(text);
    return o.ok ? std::string("ok") : format_diagnostic(o.diagnostics.at(0));
  };
  EXPECT_EQ(
      first(base + R"("requests":[{"id":"a","arrival_step":0,"prompt":[1,2],"max_tokens":2}]})"),
      "ok");
  EXPECT_EQ(first(base + R"("requests":[{"id":"a","arrival_step":0,"prompt":[],"max_tokens":2}]})"),
            "/requests/0/prompt: the prompt cannot be empty");
  EXPECT_EQ(
      first(base + R"("requests":[{"id":"a","arrival_step":-1,"prompt":[1],"max_tokens":2}]})"),
      "/requests/0/arrival_step: -1 is out of range, expected an integer in [0, 2147483647]");
  EXPECT_EQ(
      first(base + R"("requests":[{"id":"a","arrival_step":0,"prompt":[1],"max_tokens":"x"}]})"),
      "/requests/0/max_tokens: \"x\" is a string, expected an integer in [1, 2147483647]");
  EXPECT_EQ(first(base +
                  R"("requests":[{"id":"a","arrival_step":0,"prompt":[1],"max_tokens":1,"x":1}]})"),
            "/requests/0/x: unknown key; did you mean \"id\"? (accepted keys: id, arrival_step, "
            "prompt, max_tokens, priority, arrival_time, lora_id, eos_token_id, eos_at_output, "
            "min_tokens, stop_token_ids, spec_accept, spec_drafts)");
  EXPECT_EQ(first(base + R"("requests":[{"id":"a","arrival_step":0,"prompt":[1],"max_tokens":1},)"
                         R"({"id":"a","arrival_step":0,"prompt":[1],"max_tokens":1}]})"),
            "/requests/1/id: duplicate request id \"a\"");
  // The shared field reader's other messages: a token id at its index, a choice with its
  // hint, null where a value is expected.
  EXPECT_EQ(
      first(base + R"("requests":[{"id":"a","arrival_step":0,"prompt":[1,-2],"max_tokens":2}]})"),
      "/requests/0/prompt/1: -2 is out of range, expected a token id (an integer in [0, "
      "2147483647])");
  EXPECT_EQ(first(base + R"("requests":[{"id":"a","arrival_step":0,"prompt":[1],"max_tokens":2,)"
                         R"("spec_accept":"x"}]})"),
            "/requests/0/spec_accept: \"x\" is a string, expected an array (each element an "
            "integer in [0, 1024])");
  EXPECT_EQ(
      first(base + R"("requests":[{"id":"a","arrival_step":0,"prompt":[1],"max_tokens":null}]})"),
      "/requests/0/max_tokens: null is not accepted, expected an integer in [1, 2147483647]");
  std::string fifo = base;
  fifo.replace(fifo.find("\"fcfs\""), 6, "\"fcfz\"");
  EXPECT_EQ(first(fifo + R"("requests":[]})"),
            "/config/policy: \"fcfz\" is not one of the accepted values (accepted: \"fcfs\", "
            "\"priority\"); did you mean \"fcfs\"?");
  EXPECT_NE(first("{").find("not valid JSON"), std::string::npos);
  EXPECT_EQ(first(R"({"config":{}})").substr(0, 19), "/config/block_size:");
}

}  // namespace
}  // namespace blis
