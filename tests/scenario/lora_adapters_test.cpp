// LoRA adapters per client (workload.clients[].adapters): decoding, ids, errors with their
// JSON pointers, and deterministic per-request draws.

#include <gtest/gtest.h>

#include <map>

#include "cluster/workload/workload.h"
#include "diagnostics_text.h"
#include "documents.h"
#include "scenario/scenario_decode.h"
#include "scenario/scenario_encode.h"

namespace blis::scenario {
namespace {

using ::blis::testing::all_diagnostics;

// Two clients, LoRA on the pool; `adapters_a` / `adapters_b` are the clients' arrays.
std::string lora_doc(const std::string& adapters_a, const std::string& adapters_b,
                     const std::string& args = R"({"enable_lora": true, "max_loras": 2})") {
  return testing::patched(testing::base_unified(), R"([
    {"op": "replace", "path": "/pools/0/engine/args", "value": )" +
                                                       args + R"(},
    {"op": "add", "path": "/pools/0/engine/args/max_model_len", "value": 8192},
    {"op": "add", "path": "/workload/clients/0/adapters", "value": )" +
                                                       adapters_a + R"(},
    {"op": "add", "path": "/workload/clients/-", "value": {"name": "b", "load": {"rate": 5},
       "prompt_tokens": {"dist": "constant", "value": 100},
       "output_tokens": {"dist": "constant", "value": 10}, "adapters": )" +
                                                       adapters_b + R"(}}
  ])");
}

const char* kTwo =
    R"([{"name": "sql", "rank": 8, "share": 0.5}, {"name": "chat", "rank": 16, "share": 0.25}])";

TEST(LoraAdapters, DecodeGivesIdsByFirstUse) {
  const DecodeResult r =
      decode_scenario(lora_doc(kTwo, R"([{"name": "chat", "rank": 16, "share": 1}])"));
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  const auto& a = r.scenario->workload.clients[0].adapters;
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].name, "sql");
  EXPECT_EQ(a[0].rank, 8);
  EXPECT_DOUBLE_EQ(a[0].share, 0.5);
  EXPECT_EQ(a[0].id, 1);
  EXPECT_EQ(a[1].id, 2);
  EXPECT_EQ(r.scenario->workload.clients[1].adapters[0].id, 2);  // same name, same adapter
  EXPECT_EQ(r.scenario->pools[0].engine.args.max_loras, 2);
  EXPECT_EQ(r.scenario->pools[0].engine.args.max_cpu_loras, 2);  // unset -> max_loras
}

struct BadAdapter {
  std::string a, b, args, pointer, message;
};

TEST(LoraAdapters, BadValuesNameTheirPointer) {
  const std::string on = R"({"enable_lora": true, "max_loras": 2})";
  const std::string ok = R"([{"name": "x", "rank": 8, "share": 0.1}])";
  const std::vector<BadAdapter> cases = {
      {R"([{"name": "sql", "rank": 32, "share": 0.5}])", ok, on,
       "/workload/clients/0/adapters/0/rank", "32 is above max_lora_rank 16 of pool"},
      {R"([{"name": "a", "rank": 8, "share": 0.7}, {"name": "b", "rank": 8, "share": 0.4}])", ok,
       on, "/workload/clients/0/adapters", "shares sum to 1.1"},
      {R"([{"name": "a", "rank": 8, "share": 1.5}])", ok, on,
       "/workload/clients/0/adapters/0/share", "1.5"},
      {R"([{"name": "a", "rank": 0, "share": 0.5}])", ok, on, "/workload/clients/0/adapters/0/rank",
       "an integer >= 1"},
      {R"([{"rank": 8, "share": 0.5}])", ok, on, "/workload/clients/0/adapters/0/name", "missing"},
      {R"([{"name": "a", "rank": 8, "share": 0.5, "weight": 1}])", ok, on,
       "/workload/clients/0/adapters/0/weight", ""},
      {R"([{"name": "a", "rank": 8, "share": 0.2}, {"name": "a", "rank": 8, "share": 0.2}])", ok,
       on, "/workload/clients/0/adapters/1/name", "listed twice"},
      {R"([])", ok, on, "/workload/clients/0/adapters", "empty"},
      {R"({"name": "a"})", ok, on, "/workload/clients/0/adapters", "expected a non-empty array"},
      {R"([{"name": "x", "rank": 16, "share": 0.1}])", ok, on,
       "/workload/clients/1/adapters/0/rank", "one adapter has one rank"},
      {ok, ok, R"({"enable_lora": false})", "/workload/clients/0/adapters",
       "no pool sets engine.args.enable_lora"},
      {ok, ok, R"({"enable_lora": true, "max_lora_rank": 8, "max_loras": 1, "max_cpu_loras": 1})",
       "", ""},  // valid
  };
  for (const auto& c : cases) {
    const DecodeResult r = decode_scenario(lora_doc(c.a, c.b, c.args));
    if (c.pointer.empty()) {
      EXPECT_FALSE(has_errors(r.diagnostics)) << all_diagnostics(r.diagnostics);
      continue;
    }
    bool found = false;
    for (const auto& d : r.diagnostics)
      found = found || (d.pointer == c.pointer && d.message.find(c.message) != std::string::npos &&
                        d.severity == Severity::kError);
    EXPECT_TRUE(found) << c.a << " -> expected " << c.pointer << ": " << c.message << "\ngot "
                       << all_diagnostics(r.diagnostics);
    EXPECT_FALSE(r.scenario);
  }
}

TEST(LoraAdapters, LoraAndAdaptersAreExclusive) {
  std::string doc = lora_doc(kTwo, R"([{"name": "x", "rank": 8, "share": 1}])");
  auto j = nlohmann::json::parse(doc);
  j["workload"]["clients"][0]["lora"] = 3;
  const DecodeResult r = decode_scenario(j.dump());
  ASSERT_FALSE(r.scenario);
  EXPECT_NE(all_diagnostics(r.diagnostics).find("/workload/clients/0/adapters: goes with lora 3"),
            std::string::npos)
      << all_diagnostics(r.diagnostics);
}

// Per-request draws: deterministic for a seed, close to the shares, different per seed.
std::vector<std::int32_t> draws(std::uint64_t seed, int n) {
  auto j = nlohmann::json::parse(lora_doc(kTwo, R"([{"name": "x", "rank": 8, "share": 1}])"));
  j["seed"] = seed;
  j["horizon"] = {{"max_requests", n}};
  j["workload"]["clients"].erase(1);
  const DecodeResult r = decode_scenario(j.dump());
  EXPECT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  std::vector<std::int32_t> out;
  if (!r.scenario) return out;
  auto w = cluster::make_workload(*r.scenario);
  cluster::GeneratedRequest g;
  while (w->next_arrival() != kSimTimeNever) {
    w->pop(g);
    out.push_back(g.lora);
  }
  return out;
}

TEST(LoraAdapters, DrawsAreDeterministicAndFollowShares) {
  const auto a = draws(7, 4000), b = draws(7, 4000), c = draws(8, 4000);
  ASSERT_EQ(a.size(), 4000u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::map<std::int32_t, int> n;
  for (auto id : a) ++n[id];
  EXPECT_NEAR(n[1] / 4000.0, 0.5, 0.03);
  EXPECT_NEAR(n[2] / 4000.0, 0.25, 0.03);
  EXPECT_NEAR(n[0] / 4000.0, 0.25, 0.03);
}

TEST(LoraAdapters, RoundTripsThroughTheEncoder) {
  const DecodeResult r =
      decode_scenario(lora_doc(kTwo, R"([{"name": "x", "rank": 8, "share": 1}])"));
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  const DecodeResult again = decode_scenario(encode_scenario(*r.scenario));
  ASSERT_TRUE(again.scenario) << all_diagnostics(again.diagnostics);
  EXPECT_EQ(again.scenario->workload.clients[0].adapters.size(), 2u);
  EXPECT_EQ(again.scenario->workload.clients[1].adapters[0].id, 3);
}

}  // namespace
}  // namespace blis::scenario
