// Same scenario and seed -> the same request stream, natively and in WASM; clients' random
// streams are independent of each other.

#include <gtest/gtest.h>

#include "cluster/workload/workload.h"
#include "util/digest.h"
#include "workload_test_util.h"

namespace blis::cluster {
namespace {

using namespace testing;
using AK = scenario::ArrivalProcess::Kind;
using LK = scenario::LengthDist::Kind;

scenario::Client chat_client() {
  scenario::SharedPrefix sp;
  sp.system_prompts = 3;
  sp.users_per_prompt = 2;
  sp.system_prompt_tokens = 40;
  sp.question_tokens = 30;
  sp.output_tokens = 20;
  sp.multi_turn = true;
  return shared_prefix_client("chat", stages_load({{2, 20}, {4, 20}}, AK::kConstant), sp);
}

// Every kind of client at once.
scenario::Scenario golden_scenario(std::uint64_t seed) {
  auto poisson = lengths_client("poisson", rate_load(3), dist(LK::kLognormal, 200, 80),
                                dist(LK::kExponential, 50));
  poisson.prefix = scenario::PrefixGroups{3, 16};
  auto gamma = lengths_client("gamma", rate_load(2, AK::kGamma, 2.5), dist(LK::kNormal, 100, 30),
                              uniform_len(5, 15));
  auto closed =
      lengths_client("closed", concurrency_load(3, 0.25), constant_len(64), constant_len(8));
  scenario::Client replay;
  replay.name = "replay";
  replay.trace = scenario::Trace{"",
                                 "arrival_s,prompt_tokens,output_tokens,session_id\n"
                                 "0.5,30,5,1\n1.5,60,5,1\n7.25,12,3,\n"};
  return scenario_with({poisson, gamma, closed, chat_client(), replay}, 40.0, std::nullopt, seed);
}

std::uint64_t stream_digest(const scenario::Scenario& s) {
  auto w = make_workload(s);
  const auto res = drive(*w, [](const GeneratedRequest& r) {
    return 300000 + static_cast<SimTime>(r.prompt_token_ids.size()) * 500 + r.output_tokens * 10000;
  });
  Digest d;
  for (const auto& r : res.requests) add_to_digest(r, d);
  d.add_u64(w->generated());
  return d.value();
}

// Asserted by the native and the WASM test binaries alike.
constexpr std::uint64_t kGoldenDigest = 0x7aef6e344203f0eeULL;

TEST(Determinism, SameSeedSameStreamAndTheGoldenDigest) {
  const std::uint64_t a = stream_digest(golden_scenario(11));
  EXPECT_EQ(a, stream_digest(golden_scenario(11)));
  EXPECT_NE(a, stream_digest(golden_scenario(12)));
  EXPECT_EQ(a, kGoldenDigest) << std::hex << "0x" << a;
}

// A client's requests with the fields other clients cannot change (seq and client index can).
std::vector<GeneratedRequest> client_requests(const scenario::Scenario& s,
                                              const std::string& name) {
  std::int32_t index = -1;
  for (std::size_t i = 0; i < s.workload.clients.size(); ++i)
    if (s.workload.clients[i].name == name) index = static_cast<std::int32_t>(i);
  auto w = make_workload(s);
  const auto res = drive(*w, [](const GeneratedRequest&) { return 700000; });
  std::vector<GeneratedRequest> out;
  for (auto r : res.requests) {
    if (r.client != index) continue;
    r.seq = 0;
    r.client = 0;
    out.push_back(r);
  }
  return out;
}

bool same_requests(const std::vector<GeneratedRequest>& a, const std::vector<GeneratedRequest>& b) {
  Digest da, db;
  for (const auto& r : a) add_to_digest(r, da);
  for (const auto& r : b) add_to_digest(r, db);
  return a.size() == b.size() && da.value() == db.value();
}

TEST(Determinism, AddingAClientLeavesAnotherClientsStreamUnchanged) {
  auto base = golden_scenario(5);
  auto more = base;
  // A new client in front shifts every index; the others' numbers must not move.
  more.workload.clients.insert(
      more.workload.clients.begin(),
      lengths_client("newcomer", rate_load(9), dist(LK::kExponential, 40), constant_len(4)));
  for (const char* name : {"poisson", "gamma", "chat", "replay"}) {
    const auto a = client_requests(base, name);
    ASSERT_FALSE(a.empty()) << name;
    EXPECT_TRUE(same_requests(a, client_requests(more, name))) << name;
  }
  // Renaming a client changes its own stream.
  auto renamed = base;
  renamed.workload.clients[0].name = "poisson2";
  EXPECT_FALSE(
      same_requests(client_requests(base, "poisson"), client_requests(renamed, "poisson2")));
}

TEST(Determinism, OpenLoopStreamsIgnoreFeedback) {
  // Open-loop clients without sessions produce the same requests whether or not (and
  // whenever) the caller reports finishes.
  auto s = golden_scenario(3);
  s.workload.clients.erase(s.workload.clients.begin() + 2, s.workload.clients.end());
  auto quiet = make_workload(s);
  Digest a;
  for (const auto& r : pop_all(*quiet)) add_to_digest(r, a);
  auto told = make_workload(s);
  const auto res = drive(*told, [](const GeneratedRequest& r) { return r.output_tokens * 50000; });
  Digest b;
  for (const auto& r : res.requests) add_to_digest(r, b);
  EXPECT_GT(res.requests.size(), 100u);
  EXPECT_EQ(a.value(), b.value());
}

}  // namespace
}  // namespace blis::cluster
