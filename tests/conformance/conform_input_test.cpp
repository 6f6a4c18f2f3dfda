// The conformance input reader and driver on bad or oversized input: every problem is a
// diagnostic naming the JSON pointer (FORMAT.md "Additions ..." keys, the vLLM rejections,
// and the size bounds that keep a small input from allocating without limit).
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "conform/conform.h"
#include "conform/conform_input.h"

namespace blis {
namespace {

using json = nlohmann::json;

json base_case() {
  return json::parse(R"({"config":{"block_size":16,"num_gpu_blocks":64,"max_num_seqs":4,
    "max_num_batched_tokens":64,"max_model_len":128,"enable_chunked_prefill":true,
    "long_prefill_token_threshold":0,"enable_prefix_caching":true,"policy":"fcfs",
    "async_scheduling":false},"aborts":[],"max_steps":50,
    "requests":[{"id":"a","arrival_step":0,"prompt":[1,2,3],"max_tokens":4}]})");
}

// The first diagnostic as "pointer: message", or "ok".
std::string first(const json& doc) {
  const vllm::ConformOutcome o = vllm::run_conformance(doc.dump());
  return o.ok ? std::string("ok") : format_diagnostic(o.diagnostics.at(0));
}

std::string pointer_of(const json& doc) {
  const vllm::ConformOutcome o = vllm::run_conformance(doc.dump());
  return o.ok ? std::string("ok") : o.diagnostics.at(0).pointer;
}

TEST(ConformInput, NewKeysAreReadAndChecked) {
  json d = base_case();
  d["config"]["num_speculative_tokens"] = 2;
  d["config"]["speculative_method"] = "eagle";
  d["requests"][0]["spec_accept"] = {1, 0};
  d["requests"][0]["spec_drafts"] = {2};
  d["requests"][0]["eos_token_id"] = 7;
  d["requests"][0]["eos_at_output"] = 2;
  d["requests"][0]["min_tokens"] = 1;
  d["requests"][0]["stop_token_ids"] = {1003};
  EXPECT_EQ(first(d), "ok");

  json m = d;
  m["config"]["speculative_method"] = "medusa";
  EXPECT_EQ(pointer_of(m), "/config/speculative_method");
  m = d;
  m["requests"][0]["spec_accept"] = {1, -1};
  EXPECT_EQ(pointer_of(m), "/requests/0/spec_accept/1");
  m = d;
  m["requests"][0]["stop_token_ids"] = "x";
  EXPECT_EQ(pointer_of(m), "/requests/0/stop_token_ids");
  m = d;
  m["requests"][0].erase("eos_token_id");
  EXPECT_EQ(pointer_of(m), "/requests/0/eos_at_output");  // the mock needs the EOS value
}

TEST(ConformInput, RejectsWhatVllmRejects) {
  // VllmConfig.__post_init__: async scheduling refuses the CPU n-gram proposer, also when
  // the method is left at its default.
  json d = base_case();
  d["config"]["async_scheduling"] = true;
  d["config"]["num_speculative_tokens"] = 2;
  EXPECT_EQ(pointer_of(d), "/config/speculative_method");
  d["config"]["speculative_method"] = "ngram";
  EXPECT_EQ(pointer_of(d), "/config/speculative_method");
  d["config"]["speculative_method"] = "ngram_gpu";
  EXPECT_EQ(first(d), "ok");
  // SamplingParams._verify_args: min_tokens <= max_tokens.
  json t = base_case();
  t["requests"][0]["min_tokens"] = 5;  // max_tokens 4
  EXPECT_EQ(pointer_of(t), "/requests/0/min_tokens");
  // A LoRA request without LoRA enabled.
  json l = base_case();
  l["requests"][0]["lora_id"] = 3;
  EXPECT_EQ(pointer_of(l), "/requests/0/lora_id");
  l["config"]["max_loras"] = 1;
  EXPECT_EQ(first(l), "ok");
  l["config"]["max_loras"] = 0;  // LoRAConfig.max_loras: Field(ge=1)
  EXPECT_EQ(pointer_of(l), "/config/max_loras");
  // _set_max_num_scheduled_tokens: a draft model's slots can leave no token budget.
  json s = base_case();
  s["config"]["num_speculative_tokens"] = 2;
  s["config"]["speculative_method"] = "draft_model";
  s["config"]["max_num_batched_tokens"] = 4;  // 4 - 1 x max_num_seqs 4 = 0
  s["config"]["max_model_len"] = 4;
  s["requests"][0]["prompt"] = {1};
  EXPECT_EQ(pointer_of(s), "/config/max_num_batched_tokens");
}

TEST(ConformInput, SpecDecodeOutputAppearsOnlyWhenOn) {
  json d = base_case();
  const json off = json::parse(vllm::run_conformance(d.dump()).trace_json);
  EXPECT_FALSE(off.contains("spec_decode"));
  EXPECT_FALSE(off["steps"][0].contains("scheduled_spec_decode_tokens"));
  EXPECT_FALSE(off["steps"][0].contains("delivered"));
  EXPECT_FALSE(off["steps"][0]["after_schedule"].contains("skipped_waiting"));
  EXPECT_FALSE(off["config"].contains("num_speculative_tokens"));
  d["config"]["num_speculative_tokens"] = 2;
  d["config"]["speculative_method"] = "draft_model";
  const json on = json::parse(vllm::run_conformance(d.dump()).trace_json);
  // max_num_batched_tokens 64 - 1 slot x max_num_seqs 4.
  EXPECT_EQ(on["spec_decode"]["max_num_scheduled_tokens"], 60);
  EXPECT_EQ(on["spec_decode"]["num_lookahead_tokens"], 2);
  EXPECT_TRUE(on["steps"][0].contains("scheduled_spec_decode_tokens"));
  EXPECT_TRUE(on["steps"][0].contains("spec_decoding_stats"));
  EXPECT_EQ(on["config"]["num_speculative_tokens"], 2);
}

TEST(ConformInput, StopTokenEndsTheRequestWithItsReason) {
  json d = base_case();
  d["requests"][0]["stop_token_ids"] = {1002};  // output 2 (token_fn index)
  const json t = json::parse(vllm::run_conformance(d.dump()).trace_json);
  EXPECT_EQ(t["requests"]["a"]["finish_reason"], "stop");
  EXPECT_EQ(t["requests"]["a"]["stop_reason"], 1002);
  EXPECT_EQ(t["requests"]["a"]["num_output_tokens"], 3);
}

TEST(ConformBounds, ArrivalsMustFallInsideTheRun) {
  json d = base_case();
  d["requests"][0]["arrival_step"] = 50;  // max_steps 50: steps 0..49
  EXPECT_EQ(pointer_of(d), "/requests/0/arrival_step");
  d["requests"][0]["arrival_step"] = 49;
  EXPECT_EQ(first(d), "ok");
}

TEST(ConformBounds, SizesAreBounded) {
  json d = base_case();
  d["config"]["num_gpu_blocks"] = vllm::conform::kMaxGpuBlocks + 1;
  EXPECT_EQ(pointer_of(d), "/config/num_gpu_blocks");
  d = base_case();
  d["config"]["max_num_seqs"] = 2000000000;
  d["config"]["max_num_batched_tokens"] = 2000000000;
  EXPECT_EQ(pointer_of(d), "/config/max_num_seqs");
  d = base_case();
  d["max_steps"] = vllm::conform::kMaxSteps + 1;
  EXPECT_EQ(pointer_of(d), "/max_steps");
  d = base_case();
  d["config"]["max_model_len"] = vllm::conform::kMaxModelLen + 1;
  EXPECT_EQ(pointer_of(d), "/config/max_model_len");
  // More requests than the bound: refused before any is decoded.
  d = base_case();
  json one = d["requests"][0];
  d["requests"] = json::array();
  for (std::size_t i = 0; i <= vllm::conform::kMaxRequests; ++i) d["requests"].push_back(one);
  EXPECT_EQ(pointer_of(d), "/requests");
  // Long sequences for many requests: the token ids they could hold at once are bounded.
  d = base_case();
  d["config"]["max_model_len"] = vllm::conform::kMaxModelLen;
  d["config"]["max_num_batched_tokens"] = 4096;
  d["requests"] = json::array();
  for (int i = 0; i < 20; ++i) {
    json r = one;
    r["id"] = "r" + std::to_string(i);
    r["max_tokens"] = 2000000000;
    d["requests"].push_back(r);
  }
  EXPECT_EQ(pointer_of(d), "/requests");
}

TEST(ConformBounds, PerRequestTokenIdsFitAnInt32) {
  // Issue 12: token_fn "per_request" computed 1000 + 100000 x position in int32, so the
  // request at position 21475 overflowed (undefined behaviour; UBSan aborts). The decoder
  // now refuses inputs whose ids would not fit, naming token_fn, and accepts the most that do.
  json d = base_case();
  d["config"]["token_fn"] = "per_request";
  json one = d["requests"][0];
  d["requests"] = json::array();
  for (int i = 0; i < 21476; ++i) {
    json r = one;
    r["id"] = "r" + std::to_string(i);
    r["arrival_step"] = 49;
    d["requests"].push_back(r);
  }
  // The decoder alone (running 21,475 requests would only slow the test down).
  auto decode = [](const json& doc) {
    vllm::conform::Case c;
    Diagnostics ds;
    vllm::conform::decode_case(doc.dump(), c, ds);
    return ds.empty() ? std::string("ok") : ds.front().pointer;
  };
  EXPECT_EQ(decode(d), "/config/token_fn");
  d["requests"].erase(d["requests"].size() - 1);
  EXPECT_EQ(decode(d), "ok");
}

TEST(ConformInput, ANumberBeyondADoubleIsADiagnosticNotAnException) {
  // Found by the conform fuzzer: nlohmann's out_of_range (406) escaped run_conformance.
  const vllm::ConformOutcome o = vllm::run_conformance(R"({"max_steps": 1e4020})");
  ASSERT_FALSE(o.ok);
  EXPECT_NE(o.diagnostics.at(0).message.find("not valid JSON"), std::string::npos);
}

TEST(ConformBounds, ATinyInputCannotGrowAHugeTrace) {
  // One request that decodes for millions of steps: the run stops at the trace bound with a
  // diagnostic instead of building gigabytes of JSON.
  json d = base_case();
  d["config"]["max_model_len"] = vllm::conform::kMaxModelLen;
  d["config"]["num_gpu_blocks"] = 1 << 18;
  d["requests"][0]["max_tokens"] = 2000000000;
  d["max_steps"] = vllm::conform::kMaxSteps;
  ASSERT_LT(d.dump().size(), 1024u);
  const vllm::ConformOutcome o = vllm::run_conformance(d.dump());
  ASSERT_FALSE(o.ok);
  EXPECT_EQ(o.diagnostics.at(0).pointer, "/max_steps");
  EXPECT_TRUE(o.trace_json.empty());
}

}  // namespace
}  // namespace blis
