// The ext conformance input's own keys (tests/conformance/data/ext/FORMAT.md section 1:
// `metrics`, `connector`, per-request kv_transfer_params / recv_steps / read_steps) are read
// by the conformance input's field reader (conform/conform_fields.h): every problem names its
// JSON pointer, says what the value is and what was expected, and an unknown key gets the
// "did you mean" hint, exactly as the base reader reports its own keys.
#include <gtest/gtest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "conform/conform_ext.h"
#include "test_files.h"
#include "util/diagnostic.h"

namespace blis {
namespace {

using json = nlohmann::json;

json ext_case(const std::string& name) {
  return json::parse(test::read_file(std::string(BLIS_SOURCE_DIR) + "/tests/conformance/data/ext/" +
                                     name + ".input.json"));
}

// Every diagnostic of the run, one "pointer: message" a line; the run must fail.
std::string problems(const json& doc) {
  const vllm::ConformOutcome out = vllm::run_ext_conformance(doc.dump());
  EXPECT_FALSE(out.ok);
  std::string all;
  for (const Diagnostic& d : out.diagnostics) all += d.pointer + ": " + d.message + "\n";
  return all;
}

void expect_line(const std::string& all, const std::string& line) {
  EXPECT_NE(all.find(line + "\n"), std::string::npos) << "missing `" << line << "` in\n" << all;
}

TEST(ExtInput, BadMetricsKeysAreNamedByPointer) {
  json doc = ext_case("m01-simple");
  doc["metrics"]["step_seconds"] = -1;
  doc["metrics"]["dump_steps"] = {0, "x"};
  doc["metrics"]["colour"] = 1;
  const std::string all = problems(doc);
  expect_line(all,
              "/metrics/step_seconds: -1 is out of range, expected a number of seconds in "
              "(0, 3600]");
  expect_line(all,
              "/metrics/dump_steps/1: \"x\" is a string, expected an integer in [0, "
              "10000000]");
  expect_line(all,
              "/metrics/colour: unknown key (accepted keys: step_seconds, dump_steps, "
              "served_model_name)");
  // The base keys are still checked by the base reader.
  doc = ext_case("m01-simple");
  doc["requests"][0]["max_tokens"] = 0;
  const vllm::ConformOutcome base = vllm::run_ext_conformance(doc.dump());
  ASSERT_FALSE(base.ok);
  EXPECT_EQ(base.diagnostics.at(0).pointer, "/requests/0/max_tokens");
}

TEST(ExtInput, MetricsWrongTypeUnknownKeyAndMissingFieldNameTheirPointer) {
  json doc = ext_case("m01-simple");
  doc["metrics"].erase("step_seconds");
  doc["metrics"]["served_model_name"] = 3;
  doc["metrics"]["dump_step"] = {1};
  const std::string all = problems(doc);
  expect_line(all, "/metrics/step_seconds: missing, expected a number of seconds in (0, 3600]");
  expect_line(all, "/metrics/served_model_name: 3 is an integer, expected a string");
  expect_line(all,
              "/metrics/dump_step: unknown key; did you mean \"dump_steps\"? (accepted "
              "keys: step_seconds, dump_steps, served_model_name)");
  doc["metrics"] = 5;
  expect_line(problems(doc),
              "/metrics: 5 is an integer, expected an object with step_seconds and dump_steps");
  doc["metrics"] = {{"step_seconds", 0.25}, {"dump_steps", "all"}};
  expect_line(problems(doc),
              "/metrics/dump_steps: \"all\" is a string, expected an array (each "
              "element an integer in [0, 10000000])");
}

TEST(ExtInput, BadConnectorKeysAreNamedByPointer) {
  json doc = ext_case("c01-nixl-decode");
  doc["connector"]["kind"] = "lmcache";
  doc["connector"]["recv_steps"] = -1;
  doc["connector"]["extra_config"]["kv_lease_duration"] = 0;
  doc["connector"]["colour"] = 1;
  doc["requests"][0]["kv_transfer_params"]["remote_block_ids"] = "x";
  doc["requests"][1]["read_steps"] = 1.5;
  const std::string all = problems(doc);
  expect_line(all,
              "/connector/kind: \"lmcache\" is not one of the accepted values (accepted: "
              "\"nixl\", \"offloading\")");
  expect_line(all,
              "/connector/recv_steps: -1 is out of range, expected an integer in [0, "
              "100000]");
  expect_line(all,
              "/connector/extra_config/kv_lease_duration: 0 is out of range, expected "
              "seconds in (0, 1000000]");
  EXPECT_NE(all.find("/connector/colour: unknown key (accepted keys: kind, kv_connector, "),
            std::string::npos)
      << all;
  expect_line(all,
              "/requests/0/kv_transfer_params/remote_block_ids: \"x\" is a string, "
              "expected [[block ids]] (one KV group)");
  expect_line(all,
              "/requests/1/read_steps: 1.5 is not a whole number, expected an integer in "
              "[0, 100000]");
}

TEST(ExtInput, ConnectorWrongTypeUnknownKeyAndBadElementNameTheirPointer) {
  json doc = ext_case("c01-nixl-decode");
  doc["connector"].erase("kv_role");
  doc["connector"]["kv_rol"] = "kv_both";
  doc["connector"]["extra_config"]["eviction_policy"] = "fifo";
  doc["connector"]["extra_config"]["blocks_per_chunks"] = 2;
  doc["connector"]["engine_id"] = nullptr;
  doc["requests"][0]["kv_transfer_params"]["remote_block_ids"] = {{1, "a"}};
  doc["requests"][0]["kv_transfer_params"]["remote_port"] = "80";
  doc["requests"][1]["kv_transfer_params"] = {1};
  const std::string all = problems(doc);
  EXPECT_NE(all.find("/connector/kv_rol: unknown key; did you mean \"kv_role\"? (accepted keys: "),
            std::string::npos)
      << all;
  expect_line(all,
              "/connector/extra_config/eviction_policy: \"fifo\" is not accepted by vLLM: "
              "Unknown cache policy: 'fifo'. Supported: ['lru', 'arc']. For an out-of-tree "
              "policy, also set cache_policy_module_path.");
  EXPECT_NE(all.find("/connector/extra_config/blocks_per_chunks: unknown key; did you mean "
                     "\"blocks_per_chunk\"?"),
            std::string::npos)
      << all;
  expect_line(all, "/connector/engine_id: null is not accepted, expected a string");
  // The element of the one KV group: [[1, "a"]] names /remote_block_ids/0/1.
  expect_line(all,
              "/requests/0/kv_transfer_params/remote_block_ids/0/1: \"a\" is a string, "
              "expected a block id (an integer in [0, 100000000])");
  expect_line(all,
              "/requests/0/kv_transfer_params/remote_port: \"80\" is a string, expected an "
              "integer in [0, 65535]");
  expect_line(all, "/requests/1/kv_transfer_params: [1] is an array, expected an object");
  // A misspelt connector request key: the base reader's hint knows the connector's keys.
  doc = ext_case("c01-nixl-decode");
  doc["requests"][2]["recv_step"] = 1;
  EXPECT_NE(problems(doc).find("/requests/2/recv_step: unknown key; did you mean "
                               "\"recv_steps\"? (accepted keys: id, "),
            std::string::npos);
}

TEST(ExtInput, OffloadingPolicyThresholdAndMaxOffloadTokensAreRead) {
  // cpu/spec.py eviction_policy "arc" and store_threshold are accepted; a max_offload_tokens
  // vLLM ignores (not a non-negative int) is a warning naming its pointer, and the run goes on.
  json doc = ext_case("o01-offload-lru");
  doc["connector"]["extra_config"]["eviction_policy"] = "arc";
  doc["connector"]["extra_config"]["store_threshold"] = 2;
  doc["requests"][0]["kv_transfer_params"] = {{"max_offload_tokens", 32}};
  doc["requests"][1]["kv_transfer_params"] = {{"max_offload_tokens", -1}};
  doc["requests"][2]["kv_transfer_params"] = {{"max_offload_tokens", 16.0}};
  doc["requests"][3]["kv_transfer_params"] = {{"max_offload_tokens", true}};
  doc["requests"][4]["kv_transfer_params"] = {{"max_offload_tokens", nullptr}};
  const vllm::ConformOutcome out = vllm::run_ext_conformance(doc.dump());
  std::string all;
  for (const Diagnostic& d : out.diagnostics) {
    EXPECT_EQ(d.severity, Severity::kWarning) << d.pointer << ": " << d.message;
    all += d.pointer + ": " + d.message + "\n";
  }
  ASSERT_TRUE(out.ok) << all;
  EXPECT_EQ(out.diagnostics.size(), 3u) << all;
  for (const char* bad : {"1", "2", "3"}) {
    EXPECT_NE(all.find(std::string("/requests/") + bad +
                       "/kv_transfer_params/max_offload_tokens: max_offload_tokens must be a "
                       "non-negative int, got "),
              std::string::npos)
        << all;
  }
  EXPECT_NE(out.trace_json.find("vllm:kv_offload_stores_skipped_total"), std::string::npos);
  // Any other policy name is vLLM's CachePolicyFactory error; a non-string is a type error.
  doc["connector"]["extra_config"]["eviction_policy"] = "it's";
  expect_line(problems(doc),
              "/connector/extra_config/eviction_policy: \"it's\" is not accepted by vLLM: "
              "Unknown cache policy: \"it's\". Supported: ['lru', 'arc']. For an out-of-tree "
              "policy, also set cache_policy_module_path.");
  doc["connector"]["extra_config"]["eviction_policy"] = 3;
  doc["connector"]["extra_config"]["store_threshold"] = "2";
  doc["connector"]["extra_config"]["max_tracker_size"] = 0;
  const std::string bad = problems(doc);
  expect_line(bad, "/connector/extra_config/eviction_policy: 3 is an integer, expected a string");
  EXPECT_NE(bad.find("/connector/extra_config/store_threshold: "), std::string::npos) << bad;
  EXPECT_NE(bad.find("/connector/extra_config/max_tracker_size: "), std::string::npos) << bad;
}

TEST(ExtInput, ConnectorNullsMeanWhatVllmReadsThemAs) {
  // params.get("do_remote_decode") is None: false; read_steps null: the decoder never reads.
  json doc = ext_case("c01-nixl-decode");
  doc["requests"][0]["kv_transfer_params"]["do_remote_decode"] = nullptr;
  doc["requests"][0]["read_steps"] = nullptr;
  doc["requests"][0]["kv_transfer_params"]["pp_size"] = 1;  // carried, not read
  EXPECT_TRUE(vllm::run_ext_conformance(doc.dump()).ok);
  doc["connector"] = "nixl";
  expect_line(problems(doc), "/connector: \"nixl\" is a string, expected an object");
}

}  // namespace
}  // namespace blis
