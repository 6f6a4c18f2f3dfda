// Replays the ext golden cases (tests/conformance/data/ext, vLLM's real PrometheusStatLogger
// on a simulated clock at upstream 8d9b52f7) through `blis conform`'s ext driver and
// compares as ext FORMAT.md section 6 says: the Prometheus text of every snapshot and of the
// end (prom_compare.h), the family registry, and the step traces. A failure names the case,
// the snapshot or step, the family and the sample.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "conform/conform_ext.h"
#include "conform/conform_ext_connector_input.h"
#include "conformance/prom_compare.h"
#include "conformance/trace_compare.h"
#include "test_files.h"

namespace blis {
namespace {

using json = nlohmann::json;

using blis::test::read_file;

std::string ext_dir() {
  return std::string(BLIS_SOURCE_DIR) + "/tests/conformance/data/ext/";
}

std::string describe(const std::string& name, const std::string& where,
                     const testing::PromMismatch& m) {
  std::string s = "case " + name + ", " + where;
  if (!m.family.empty()) s += ", family " + m.family;
  if (!m.sample.empty()) s += ", sample `" + m.sample + "`";
  return s + ": " + m.message;
}

// Records are diagnostic (section 6): every expected field the driver also writes must
// agree, numbers to a relative 1e-9. Returns the first differing pointer.
std::string first_record_difference(const json& e, const json& a, const std::string& ptr) {
  if (e.is_number() && a.is_number()) {
    const double x = e.get<double>(), y = a.get<double>();
    return std::fabs(x - y) <= 1e-9 * std::max({1.0, std::fabs(x), std::fabs(y)}) ? "" : ptr;
  }
  if (e.is_object() && a.is_object()) {
    for (auto it = e.begin(); it != e.end(); ++it) {
      if (!a.contains(it.key())) continue;
      const std::string d = first_record_difference(it.value(), a[it.key()], ptr + "/" + it.key());
      if (!d.empty()) return d;
    }
    return "";
  }
  if (e.is_array() && a.is_array()) {
    if (e.size() != a.size()) return ptr + " (length)";
    for (std::size_t i = 0; i < e.size(); ++i) {
      const std::string d = first_record_difference(e[i], a[i], ptr + "/" + std::to_string(i));
      if (!d.empty()) return d;
    }
    return "";
  }
  return e == a ? "" : ptr;
}

// The fields of the ext output compared besides the text (section 5): the run's length, the
// registry (vllm:cache_config_info is never registered in these traces) and the steps.
void compare_structure(const std::string& name, const json& e, const json& a) {
  EXPECT_EQ(e["num_steps"], a["num_steps"]) << "case " << name << ": num_steps";
  EXPECT_EQ(e["completed"], a["completed"]) << "case " << name << ": completed";
  ASSERT_TRUE(a.contains("families")) << "case " << name << ": no families";
  const json& fe = e["families"];
  const json& fa = a["families"];
  for (std::size_t i = 0; i < fe.size(); ++i) {
    ASSERT_LT(i, fa.size()) << "case " << name << ", families: " << fe[i]["name"] << " missing";
    EXPECT_EQ(fe[i], fa[i]) << "case " << name << ", families/" << i << " (" << fe[i]["name"]
                            << ")";
  }
  EXPECT_EQ(fe.size(), fa.size()) << "case " << name << ": number of families";
  const std::string d = first_record_difference(e["records"], a["records"], "/records");
  EXPECT_EQ(d, "") << "case " << name << ": " << d;
  const json steps_e = {{"steps", e["steps"]}};
  const json steps_a = {{"steps", a["steps"]}};
  if (const auto m = testing::compare_traces(steps_e, steps_a)) {
    ADD_FAILURE() << "case " << name << ", step " << (m->step.empty() ? "-" : m->step) << ": "
                  << m->pointer << ": " << m->message;
  }
}

class ExtGoldenTrace : public ::testing::TestWithParam<const char*> {};

TEST_P(ExtGoldenTrace, MatchesVllm) {
  const std::string name = GetParam();
  const std::string input = read_file(ext_dir() + name + ".input.json");
  const std::string expected_text = read_file(ext_dir() + name + ".expected.json");
  ASSERT_FALSE(input.empty()) << "cannot read " << ext_dir() + name + ".input.json";
  ASSERT_FALSE(expected_text.empty()) << "cannot read the expected trace of " << name;
  ASSERT_TRUE(vllm::is_ext_input(input)) << name << ": not an ext input";
  const vllm::ConformOutcome out = vllm::run_ext_conformance(input);
  ASSERT_TRUE(out.ok) << name << ": input rejected: "
                      << (out.diagnostics.empty() ? "" : format_diagnostic(out.diagnostics[0]));
  const json expected = json::parse(expected_text);
  const json actual = json::parse(out.trace_json);

  const json& snaps_e = expected["snapshots"];
  const json& snaps_a = actual["snapshots"];
  ASSERT_EQ(snaps_e.size(), snaps_a.size()) << "case " << name << ": number of snapshots";
  for (std::size_t i = 0; i < snaps_e.size(); ++i) {
    const std::string where = "snapshot after step " + snaps_e[i]["step"].dump();
    EXPECT_EQ(snaps_e[i]["step"], snaps_a[i]["step"]) << "case " << name << ", " << where;
    if (const auto m = testing::compare_expositions(snaps_e[i]["prom"], snaps_a[i]["prom"]))
      ADD_FAILURE() << describe(name, where, *m);
  }
  if (const auto m = testing::compare_expositions(expected["final"], actual["final"]))
    ADD_FAILURE() << describe(name, "final", *m);
  compare_structure(name, expected, actual);
}

// c01, c02 and c05 run the real NixlPullConnectorScheduler (decode, prefill, async decode),
// o01 the OffloadingConnector with the CPU LRU manager; the worker is mocked (section 4).
INSTANTIATE_TEST_SUITE_P(Cases, ExtGoldenTrace,
                         ::testing::Values("m01-simple", "m02-prefix-pressure",
                                           "m03-priority-aborts", "m04-async", "c01-nixl-decode",
                                           "c02-nixl-prefill", "c05-nixl-decode-async",
                                           "o01-offload-lru"),
                         [](const ::testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return "case_" + n;
                         });

// Hostile-corpus finding: a megabyte served_model_name labelled every sample of every dump
// (1.8 GB of RSS); it is bounded as a client's name is.
TEST(ExtInput, ServedModelNameIsABoundedLabel) {
  json doc = json::parse(read_file(ext_dir() + "m01-simple.input.json"));
  doc["metrics"]["served_model_name"] = std::string(1 << 20, 'x');
  const vllm::ConformOutcome out = vllm::run_ext_conformance(doc.dump());
  ASSERT_FALSE(out.ok);
  ASSERT_FALSE(out.diagnostics.empty());
  EXPECT_EQ(out.diagnostics.front().pointer, "/metrics/served_model_name");
}

// Hostile-corpus finding: 20,000 NIXL requests (within the 100,000 a scheduler trace may hold)
// took minutes, the connector trace recording every in-flight transfer at every step.
TEST(ExtInput, ConnectorInputsHoldBoundedRequests) {
  json doc = json::parse(read_file(ext_dir() + "c02-nixl-prefill.input.json"));
  const json first = doc["requests"][0];
  doc["requests"] = json::array();
  for (std::size_t i = 0; i <= vllm::conform::kMaxConnectorRequests; ++i) {
    json r = first;
    r["id"] = "p" + std::to_string(i);
    doc["requests"].push_back(r);
  }
  const vllm::ConformOutcome out = vllm::run_ext_conformance(doc.dump());
  ASSERT_FALSE(out.ok);
  ASSERT_FALSE(out.diagnostics.empty());
  EXPECT_EQ(out.diagnostics.front().pointer, "/requests");
  EXPECT_EQ(out.diagnostics.front().message, "at most 10000 requests with a connector, got 10001");
}

// The heartbeat_by_engine of every step that sent one, as {step, compact JSON}, engines in
// their output order.
std::vector<std::pair<int, std::string>> heartbeats(const json& input) {
  const vllm::ConformOutcome out = vllm::run_ext_conformance(input.dump());
  EXPECT_TRUE(out.ok);
  std::vector<std::pair<int, std::string>> sent;
  if (!out.ok) return sent;
  const nlohmann::ordered_json trace = nlohmann::ordered_json::parse(out.trace_json);
  for (const auto& s : trace["steps"]) {
    if (!s.contains("connector_meta")) continue;
    const auto& meta = s["connector_meta"];
    if (meta.contains("heartbeat_by_engine"))
      sent.emplace_back(s["step"].get<int>(), meta["heartbeat_by_engine"].dump());
  }
  return sent;
}

// nixl/base_scheduler.py build_connector_meta: heartbeats go out when the clock is
// kv_lease_duration // 6 (= 5 s) past the last ones. c01 with 2 s steps: T = 6 s and 12 s.
TEST(ExtConnector, NixlHeartbeatsAreThrottled) {
  json doc = json::parse(read_file(ext_dir() + "c01-nixl-decode.input.json"));
  doc["metrics"]["step_seconds"] = 2.0;
  doc["metrics"]["dump_steps"] = json::array();
  doc["connector"]["recv_steps"] = 4;
  for (auto& r : doc["requests"]) {
    if (r["id"] == "d1" || r["id"] == "d3") r["kv_transfer_params"]["remote_engine_id"] = "P1";
  }
  const auto sent = heartbeats(doc);
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[0].first, 3);
  EXPECT_EQ(sent[0].second, R"({"P0":["prefill-0","prefill-2"],"P1":["prefill-1"]})");
  EXPECT_EQ(sent[1].first, 6);
  EXPECT_EQ(sent[1].second, R"({"P0":["prefill-4"],"P1":["prefill-3"]})");
}

// on_new_request / _stop_heartbeat: heartbeat_by_engine is a dict of remote engine -> a set
// of remote request ids (written sorted); an engine stays where it was inserted while any of
// its requests waits, and is deleted when its set empties. kv_lease_duration 1 s makes the
// interval 0 (every step). d0 (P0) finishes receiving at step 1 while d2 (P0, later than d1
// of P1) still waits: P0 stays first.
TEST(ExtConnector, NixlHeartbeatsFollowTheEngineDict) {
  json doc = json::parse(read_file(ext_dir() + "c01-nixl-decode.input.json"));
  doc["metrics"]["dump_steps"] = json::array();
  doc["connector"]["extra_config"] = {{"kv_lease_duration", 1}};
  const std::map<std::string, int> recv_steps = {{"d0", 1}, {"d1", 12}, {"d2", 8}};
  for (auto& r : doc["requests"]) {
    const std::string id = r["id"];
    if (id == "d1") r["kv_transfer_params"]["remote_engine_id"] = "P1";
    if (recv_steps.count(id) > 0) r["recv_steps"] = recv_steps.at(id);
  }
  const auto sent = heartbeats(doc);
  ASSERT_GE(sent.size(), 13u);
  EXPECT_EQ(sent[2].second, R"({"P0":["prefill-2"],"P1":["prefill-1"]})");
  EXPECT_EQ(sent[5].second, R"({"P0":["prefill-2","prefill-3","prefill-4"],"P1":["prefill-1"]})");
  EXPECT_EQ(sent[10].second, R"({"P1":["prefill-1"]})");  // P0's last receive reported at 9
  EXPECT_EQ(sent.back().first, 12);                       // d1's receive ends the heartbeats
}

// nixl/base_scheduler.py on_new_request: a request is tracked for heartbeats only when its
// kv_transfer_params carry do_remote_prefill and every one of remote_engine_id,
// remote_request_id, remote_host, remote_port and tp_size ("Only track if all required remote
// fields are present"); pp_size is optional. d0 lacks tp_size, d1 remote_host, d2 remote_port:
// only the others' remote ids are ever sent. kv_lease_duration 6 s: interval 6 // 6 = 1 s.
TEST(ExtConnector, NixlHeartbeatsNeedTheWholeRemoteEndpoint) {
  json doc = json::parse(read_file(ext_dir() + "c01-nixl-decode.input.json"));
  doc["metrics"]["step_seconds"] = 0.5;
  doc["metrics"]["dump_steps"] = json::array();
  doc["connector"]["extra_config"] = {{"kv_lease_duration", 6}};
  doc["connector"]["recv_steps"] = 6;
  for (auto& r : doc["requests"]) {
    const std::string id = r["id"];
    if (id == "d0") r["kv_transfer_params"].erase("tp_size");
    if (id == "d1") r["kv_transfer_params"].erase("remote_host");
    if (id == "d2") r["kv_transfer_params"].erase("remote_port");
  }
  const auto sent = heartbeats(doc);
  ASSERT_FALSE(sent.empty());
  for (const auto& [step, hb] : sent) {
    EXPECT_EQ(hb.find("prefill-0"), std::string::npos) << step << " " << hb;
    EXPECT_EQ(hb.find("prefill-1"), std::string::npos) << step << " " << hb;
    EXPECT_EQ(hb.find("prefill-2"), std::string::npos) << step << " " << hb;
  }
  // d3 (arrives at step 4, T = 2 s, past one interval from _last_heartbeat_time = 0.0) is the
  // first tracked request: the first heartbeat carries it alone.
  EXPECT_EQ(sent.front().first, 4);
  EXPECT_EQ(sent.front().second, R"({"P0":["prefill-3"]})");
}

// The comparison itself: what each rule of section 6 accepts and what it names.
const char* kText =
    "# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n"
    "# TYPE vllm:kv_cache_usage_perc gauge\n"
    "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"m\"} 0.5\n"
    "# HELP vllm:prompt_tokens_total Number of prefill tokens processed.\n"
    "# TYPE vllm:prompt_tokens_total counter\n"
    "vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 10.0\n"
    "# HELP vllm:e2e_request_latency_seconds Histogram of e2e request latency in seconds.\n"
    "# TYPE vllm:e2e_request_latency_seconds histogram\n"
    "vllm:e2e_request_latency_seconds_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\"} 1.0\n"
    "vllm:e2e_request_latency_seconds_count{engine=\"0\",model_name=\"m\"} 1.0\n"
    "vllm:e2e_request_latency_seconds_sum{engine=\"0\",model_name=\"m\"} 0.3\n";

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  s.replace(s.find(from), from.size(), to);
  return s;
}

TEST(PromCompare, AcceptsTheToleranceOfEachRule) {
  EXPECT_FALSE(testing::compare_expositions(kText, kText));
  EXPECT_FALSE(
      testing::compare_expositions(kText, replaced(kText, "} 0.5\n", "} 0.5000000000001\n")));
  EXPECT_FALSE(
      testing::compare_expositions(kText, replaced(kText, "} 0.3\n", "} 0.30000000000001\n")));
  // Label order inside the braces does not matter; the set does.
  EXPECT_FALSE(
      testing::compare_expositions(kText, replaced(kText, "{engine=\"0\",model_name=\"m\"} 10.0",
                                                   "{model_name=\"m\",engine=\"0\"} 10.0")));
  // cache_config_info is excluded.
  EXPECT_FALSE(testing::compare_expositions(
      kText, std::string(kText) + "# HELP vllm:cache_config_info Information\n"
                                  "# TYPE vllm:cache_config_info gauge\n"
                                  "vllm:cache_config_info{engine=\"0\"} 1.0\n"));
}

TEST(PromCompare, NamesTheFamilyAndTheSample) {
  auto m = testing::compare_expositions(kText, replaced(kText, "} 10.0\n", "} 10.000001\n"));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->family, "vllm:prompt_tokens_total");
  EXPECT_NE(m->sample.find("vllm:prompt_tokens_total{"), std::string::npos);
  // Counters are exact, including their text ("10" is not floatToGoString's "10.0").
  EXPECT_TRUE(testing::compare_expositions(kText, replaced(kText, "} 10.0\n", "} 10\n")));
  EXPECT_TRUE(testing::compare_expositions(kText, replaced(kText, "} 0.5\n", "} 0.50000000001\n")));
  EXPECT_TRUE(testing::compare_expositions(kText, replaced(kText, "} 0.3\n", "} 0.3000001\n")));
  m = testing::compare_expositions(kText, replaced(kText, "KV-cache usage.", "KV usage."));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->family, "vllm:kv_cache_usage_perc");
  EXPECT_NE(m->message.find("HELP"), std::string::npos);
  // Family order.
  const std::string swapped = std::string(kText).substr(std::string(kText).find("# HELP vllm:p"));
  m = testing::compare_expositions(kText, swapped);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->family, "vllm:kv_cache_usage_perc");
}

}  // namespace
}  // namespace blis
