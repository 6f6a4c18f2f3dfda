// EPP plugins, one by one, on the Scheduler with hand-set instance signals: each scorer's
// rule, the filters, the pickers, the P/D decider's threshold, saturation admission and the
// precise prefix index fed by KV events.
#include <gtest/gtest.h>

#include <map>

#include "cluster/epp/scheduler.h"
#include "engine/vllm/kv/block_hash.h"

namespace blis::cluster::epp {
namespace {

EppConfig config(const std::string& text) {
  EppConfig c;
  const Diagnostics ds = parse_epp_config(text, "/x", c);
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds[0]));
  return c;
}

// A config with one scorer (weight 1) and the max-score picker.
std::string one_scorer(const std::string& type, const std::string& params = "{}") {
  return R"({"plugins": [{"type": ")" + type + R"(", "parameters": )" + params +
         R"(}, {"type": "max-score-picker"}]})";
}

struct Rig {
  std::size_t n;
  SignalBoard board;
  Scheduler sched;
  Rng rng{7};
  std::vector<std::int32_t> prompt = std::vector<std::int32_t>(64, 5);
  Rig(const std::string& cfg, std::size_t instances = 3)
      : n(instances), board(instances, 0), sched(config(cfg), instances, all(instances), 16, 1, 0) {
    for (std::size_t i = 0; i < n; ++i)
      sched.set_endpoint(static_cast<std::int32_t>(i), Role::kNone, 1000, 2);
  }
  static std::vector<std::int32_t> all(std::size_t n) {
    std::vector<std::int32_t> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(static_cast<std::int32_t>(i));
    return v;
  }
  void signals(std::size_t i, std::int32_t waiting, std::int32_t running, double kv) {
    board.publish(i, 0, InstanceSignals{waiting, running, kv});
  }
  Request req(std::int32_t lora = 0, std::int64_t session = -1, std::int32_t priority = 0) {
    Request r;
    r.prompt = &prompt;
    r.lora = lora;
    r.session = session;
    r.priority = priority;
    return r;
  }
  std::int32_t pick(const Request& r) { return sched.schedule(r, 0, board, rng).target; }
  std::map<std::int32_t, int> histogram(int draws) {
    std::map<std::int32_t, int> h;
    for (int i = 0; i < draws; ++i) {
      const std::int32_t t = pick(req());
      ++h[t];
      sched.on_left(t, 64);
    }
    return h;
  }
};

TEST(EppScorers, QueuePrefersTheShortestQueue) {
  Rig r(one_scorer("queue-scorer"));
  r.signals(0, 5, 0, 0);
  r.signals(1, 1, 0, 0);
  r.signals(2, 3, 0, 0);
  EXPECT_EQ(r.pick(r.req()), 1);
}

TEST(EppScorers, KvUtilizationPrefersTheEmptiestCache) {
  Rig r(one_scorer("kv-cache-utilization-scorer"));
  r.signals(0, 0, 0, 0.9);
  r.signals(1, 0, 0, 0.5);
  r.signals(2, 0, 0, 0.2);
  EXPECT_EQ(r.pick(r.req()), 2);
}

TEST(EppScorers, RunningRequestsSize) {
  Rig r(one_scorer("running-requests-size-scorer"));
  r.signals(0, 0, 9, 0);
  r.signals(1, 0, 2, 0);
  r.signals(2, 0, 4, 0);
  EXPECT_EQ(r.pick(r.req()), 1);
}

TEST(EppScorers, LoadAwareThresholdSaturates) {
  // threshold 4: queues 0 -> 0.5, 2 -> 0.25, 8 -> 0 (capped): with weight 1 and another
  // scorer absent, the empty queue wins; two saturated queues tie.
  Rig r(one_scorer("load-aware-scorer", R"({"threshold": 4})"));
  r.signals(0, 8, 0, 0);
  r.signals(1, 2, 0, 0);
  r.signals(2, 0, 0, 0);
  EXPECT_EQ(r.pick(r.req()), 2);
  r.signals(2, 9, 0, 0);
  EXPECT_EQ(r.pick(r.req()), 1);
}

TEST(EppScorers, ActiveRequestCountsTheRoutersInFlight) {
  Rig r(one_scorer("active-request-scorer"));
  // Nothing in flight: all idle (score 1), ties at random; then each pick loads its target,
  // so three picks spread over the three instances.
  std::map<std::int32_t, int> seen;
  for (int i = 0; i < 3; ++i) ++seen[r.pick(r.req())];
  EXPECT_EQ(seen.size(), 3u);
  r.sched.on_left(1, 64);
  EXPECT_EQ(r.pick(r.req()), 1);  // the one with the fewest in flight
}

TEST(EppScorers, SessionAffinityFollowsTheLastResponse) {
  Rig r(one_scorer("session-affinity-scorer"));
  const Request s = r.req(0, 42);
  r.sched.on_done(2, s, true);  // session 42's last response came from instance 2
  for (int i = 0; i < 5; ++i) EXPECT_EQ(r.pick(s), 2);
  r.sched.on_done(0, s, true);
  EXPECT_EQ(r.pick(s), 0);
}

TEST(EppScorers, LoraAffinityTiers) {
  Rig r(one_scorer("lora-affinity-scorer"));
  // Instance 0 has adapter 7 resident; 1 has a free slot; 2 is full with other adapters.
  std::vector<std::vector<std::int32_t>> active = {{7}, {3}, {3, 4}};
  r.sched.set_lora_probe(
      [&active](std::int32_t i) { return &active[static_cast<std::size_t>(i)]; });
  EXPECT_EQ(r.pick(r.req(7)), 0);  // 1.0 active
  active[0] = {1, 2};
  EXPECT_EQ(r.pick(r.req(7)), 1);  // 0.8 has a slot
}

TEST(EppFilters, LoraAffinityFilterKeepsTheAffinityGroup) {
  Rig r(R"({"plugins": [{"type": "lora-affinity-filter", "parameters": {"threshold": 1.0}},
            {"type": "random-picker"}]})");
  std::vector<std::vector<std::int32_t>> active = {{}, {9}, {}};
  r.sched.set_lora_probe(
      [&active](std::int32_t i) { return &active[static_cast<std::size_t>(i)]; });
  for (int i = 0; i < 10; ++i) EXPECT_EQ(r.pick(r.req(9)), 1);
}

TEST(EppFilters, DecodeAndPrefillByRole) {
  const std::string cfg = R"({"plugins": [{"type": "decode-filter"}, {"type": "random-picker"}]})";
  Rig r(cfg);
  r.sched.set_endpoint(0, Role::kPrefill, 1000, 0);
  r.sched.set_endpoint(1, Role::kDecode, 1000, 0);
  r.sched.set_endpoint(2, Role::kNone, 1000, 0);
  const auto h = r.histogram(200);
  EXPECT_EQ(h.count(0), 0u);  // prefill never
  EXPECT_GT(h.at(1), 0);
  EXPECT_GT(h.at(2), 0);  // unlabelled passes decode-filter

  Rig p(R"({"plugins": [{"type": "prefill-filter"}, {"type": "random-picker"}]})");
  p.sched.set_endpoint(0, Role::kPrefill, 1000, 0);
  p.sched.set_endpoint(1, Role::kDecode, 1000, 0);
  p.sched.set_endpoint(2, Role::kNone, 1000, 0);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(p.pick(p.req()), 0);
}

TEST(EppPickers, RandomIsUniformAndDeterministic) {
  Rig a(R"({"plugins": [{"type": "random-picker"}]})", 4);
  Rig b(R"({"plugins": [{"type": "random-picker"}]})", 4);
  const auto ha = a.histogram(4000);
  EXPECT_EQ(ha, b.histogram(4000));  // same seed, same draws
  for (const auto& [inst, n] : ha) EXPECT_NEAR(n, 1000, 120) << inst;
}

TEST(EppPickers, WeightedRandomIsProportionalToScore) {
  // kv-cache-utilization scores 0.75 / 0.25 / 0 -> picks about 3:1, never the zero.
  Rig r(
      R"({"plugins": [{"type": "kv-cache-utilization-scorer"}, {"type": "weighted-random-picker"}]})");
  r.signals(0, 0, 0, 0.25);
  r.signals(1, 0, 0, 0.75);
  r.signals(2, 0, 0, 1.0);
  const auto h = r.histogram(4000);
  EXPECT_EQ(h.count(2), 0u);
  // A-Res with one pick: P(0) = 0.75 / (0.75 + 0.25).
  EXPECT_NEAR(static_cast<double>(h.at(0)) / 4000, 0.75, 0.03);
}

TEST(EppPickers, MaxScoreBreaksTiesAtRandom) {
  Rig r(R"({"plugins": [{"type": "queue-scorer"}, {"type": "max-score-picker"}]})");
  const auto h = r.histogram(3000);  // all queues equal: every score 1
  for (const auto& [inst, n] : h) EXPECT_NEAR(n, 1000, 120) << inst;
}

TEST(EppScorers, ApproximatePrefixFollowsWhatWasRouted) {
  Rig r(R"({"plugins": [{"type": "prefix-cache-scorer"}, {"type": "queue-scorer"}]})");
  r.signals(0, 0, 0, 0);
  r.signals(1, 9, 0, 0);
  r.signals(2, 9, 0, 0);
  EXPECT_EQ(r.pick(r.req()), 0);  // the queue decides the first
  r.signals(0, 9, 0, 0);
  r.signals(1, 0, 0, 0);
  // Now 1 has the shortest queue (score 1 + prefix 0) but 0 holds the prefix (1 + 0): a tie
  // broken at random; with weight 2 on the prefix scorer 0 would win. Use the same prompt:
  Rig w(R"({"plugins": [{"type": "prefix-cache-scorer"}, {"type": "queue-scorer"}],
            "schedulingProfiles": [{"name": "d", "plugins": [
              {"pluginRef": "prefix-cache-scorer", "weight": 2}, {"pluginRef": "queue-scorer"}]}]})");
  w.signals(0, 0, 0, 0);
  w.signals(1, 9, 0, 0);
  w.signals(2, 9, 0, 0);
  EXPECT_EQ(w.pick(w.req()), 0);
  w.signals(0, 9, 0, 0);
  w.signals(1, 0, 0, 0);
  EXPECT_EQ(w.pick(w.req()), 0);  // 2 x 1.0 + 0 beats 0 + 1
}

TEST(EppScorers, NoHitLruSpreadsColdRequests) {
  // No prefix plugin named: every request is cold; the LRU sends each to the endpoint used
  // least recently (never-used first).
  Rig r(R"({"plugins": [{"type": "no-hit-lru-scorer"}, {"type": "max-score-picker"}]})");
  std::vector<std::int32_t> order;
  for (int i = 0; i < 6; ++i) order.push_back(r.pick(r.req()));
  EXPECT_EQ(order[0], 0);  // all never used: candidate order
  EXPECT_EQ(order[1], 1);
  EXPECT_EQ(order[2], 2);
  EXPECT_EQ(order[3], 0);  // then the least recently used
  EXPECT_EQ(order[4], 1);
  EXPECT_EQ(order[5], 2);
}

TEST(EppDecider, PrefixBasedThresholdOnNonCachedTokens) {
  const std::string cfg = R"({"plugins": [
      {"type": "prefix-cache-scorer"}, {"type": "decode-filter"}, {"type": "prefill-filter"},
      {"type": "prefix-based-pd-decider", "parameters": {"nonCachedTokens": 32}},
      {"type": "disagg-profile-handler", "parameters": {"deciders": {"prefill": "prefix-based-pd-decider"}}}],
    "schedulingProfiles": [
      {"name": "prefill", "plugins": [{"pluginRef": "prefill-filter"}, {"pluginRef": "prefix-cache-scorer"}]},
      {"name": "decode", "plugins": [{"pluginRef": "decode-filter"}, {"pluginRef": "prefix-cache-scorer"}]}]})";
  Rig r(cfg, 2);
  r.sched.set_endpoint(0, Role::kPrefill, 1000, 0);
  r.sched.set_endpoint(1, Role::kDecode, 1000, 0);
  r.prompt.assign(16, 1);  // 16 < 32 tokens: decode only
  Decision d = r.sched.schedule(r.req(), 0, r.board, r.rng);
  EXPECT_EQ(d.target, 1);
  EXPECT_EQ(d.prefill, -1);
  r.prompt.assign(64, 2);  // 64 uncached tokens >= 32: disaggregate
  d = r.sched.schedule(r.req(), 0, r.board, r.rng);
  EXPECT_EQ(d.target, 1);
  EXPECT_EQ(d.prefill, 0);
  // The same prompt again: its 4 blocks are now believed cached on the decode endpoint, so
  // 0 tokens are uncached: no prefill.
  d = r.sched.schedule(r.req(), 0, r.board, r.rng);
  EXPECT_EQ(d.prefill, -1);
  // 48 new tokens after the cached 64: 48 >= 32 uncached -> disaggregate.
  r.prompt.resize(112, 3);
  d = r.sched.schedule(r.req(), 0, r.board, r.rng);
  EXPECT_EQ(d.prefill, 0);
}

TEST(EppAdmission, SheddableRequestsRejectedWhenSaturated) {
  Rig r(R"({"plugins": [{"type": "queue-scorer"}, {"type": "utilization-detector",
            "parameters": {"queueDepthThreshold": 4, "kvCacheUtilThreshold": 0.5}}],
            "saturationDetector": {"pluginRef": "utilization-detector"}})");
  r.signals(0, 4, 0, 0.1);  // max(4/4, 0.2) = 1
  r.signals(1, 0, 0, 0.5);  // max(0, 1) = 1
  r.signals(2, 2, 0, 0.6);  // max(0.5, 1.2) = 1.2
  EXPECT_NEAR(r.sched.saturation(0, r.board), (1 + 1 + 1.2) / 3, 1e-12);
  EXPECT_TRUE(r.sched.schedule(r.req(0, -1, 1), 0, r.board, r.rng).rejected);  // sheddable
  EXPECT_FALSE(r.sched.schedule(r.req(0, -1, 0), 0, r.board, r.rng).rejected);
  r.signals(2, 0, 0, 0.0);  // (1 + 1 + 0) / 3 < 1
  EXPECT_FALSE(r.sched.schedule(r.req(0, -1, 1), 0, r.board, r.rng).rejected);
}

TEST(EppAdmission, DefaultDetectorAndStaleMetrics) {
  // No saturationDetector: utilization-detector defaults (5 queued, 80% KV, 200 ms).
  EppConfig c = config(R"({"plugins": [{"type": "queue-scorer"}]})");
  SignalBoard board(2, 0);
  Scheduler fresh(c, 2, {0, 1}, 16, 1, 0);
  board.publish(0, 0, {5, 0, 0});
  board.publish(1, 0, {0, 0, 0.8});
  EXPECT_DOUBLE_EQ(fresh.saturation(0, board), 1.0);
  board.publish(0, 0, {0, 0, 0});
  board.publish(1, 0, {0, 0, 0});
  EXPECT_DOUBLE_EQ(fresh.saturation(0, board), 0.0);
  // Metrics 300 ms old (signal_staleness_ms) exceed the 200 ms threshold: saturated.
  Scheduler stale(c, 2, {0, 1}, 16, 1, from_millis(300));
  EXPECT_DOUBLE_EQ(stale.saturation(0, board), 1.0);
}

TEST(EppPrecise, IndexFollowsKvEvents) {
  Rig r(R"({"plugins": [{"type": "precise-prefix-cache-scorer"}, {"type": "max-score-picker"}]})");
  // The engine of instance 2 caches the prompt's first two blocks: it reports BlockStored
  // with the engine's own hashes.
  vllm::BlockExtraKeys none;
  const vllm::BlockHash b0 = vllm::hash_block_tokens(nullptr, r.prompt.data(), 16, none);
  const vllm::BlockHash b1 = vllm::hash_block_tokens(&b0, r.prompt.data() + 16, 16, none);
  engine::KvEventListener* l2 = r.sched.kv_listener(2);
  ASSERT_NE(l2, nullptr);
  l2->block_stored(b0.hi, b0.lo);
  l2->block_stored(b1.hi, b1.lo);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(r.pick(r.req()), 2);
  // Instance 1 caches only the first block; then 2 evicts its first block: its match drops
  // to 0 (a prefix must start at block 0) and 1 wins.
  r.sched.kv_listener(1)->block_stored(b0.hi, b0.lo);
  l2->block_removed(b0.hi, b0.lo);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(r.pick(r.req()), 1);
  // A LoRA request's blocks hash differently: no match anywhere.
  const auto h = [&] {
    std::map<std::int32_t, int> m;
    for (int i = 0; i < 300; ++i) ++m[r.pick(r.req(5))];
    return m;
  }();
  EXPECT_EQ(h.size(), 3u);
}

TEST(EppFilters, ByLabelAndEncode) {
  // bylabel/filter.go: the role label from the pool's role, other labels from pools[].labels.
  Rig r(R"({"plugins": [{"type": "by-label", "parameters": {"label": "llm-d.ai/role",
      "validValues": ["prefill", "decode"]}}, {"type": "random-picker"}]})");
  r.sched.set_endpoint(0, Role::kPrefill, 1000, 0);
  r.sched.set_endpoint(1, Role::kDecode, 1000, 0);
  r.sched.set_endpoint(2, Role::kNone, 1000, 0);
  auto h = r.histogram(200);
  EXPECT_EQ(h.count(2), 0u);  // unlabelled: allowsNoLabel is false
  EXPECT_GT(h.at(0), 0);
  EXPECT_GT(h.at(1), 0);

  Rig t(R"({"plugins": [{"type": "by-label", "parameters": {"label": "tier",
      "validValues": ["gold"], "allowsNoLabel": true}}, {"type": "random-picker"}]})");
  t.sched.set_labels(0, {{"tier", "gold"}});
  t.sched.set_labels(1, {{"tier", "silver"}});
  h = t.histogram(200);
  EXPECT_EQ(h.count(1), 0u);
  EXPECT_GT(h.at(0), 0);
  EXPECT_GT(h.at(2), 0);  // no tier label: allowed

  // roles.go NewEncodeRole: no simulated pool is an encode pool, so nothing passes.
  Rig e(R"({"plugins": [{"type": "encode-filter"}, {"type": "random-picker"}]})");
  e.sched.set_endpoint(0, Role::kPrefill, 1000, 0);
  e.sched.set_endpoint(1, Role::kDecode, 1000, 0);
  EXPECT_TRUE(e.sched.schedule(e.req(), 0, e.board, e.rng).rejected);
}

TEST(EppAdmission, ProbabilisticAdmitterShedsBySaturation) {
  const std::string cfg = R"({"plugins": [{"type": "probabilistic-admitter"},
      {"type": "random-picker"}]})";
  // probabilisticadmitter/plugin.go: p = min(sat^5 x 300, 1), sat = mean max(q / 5, kv / 0.8).
  auto rejected = [&cfg](double kv, std::int32_t priority) {
    Rig r(cfg);
    for (std::size_t i = 0; i < 3; ++i) r.signals(i, 0, 0, kv);
    int n = 0;
    for (int i = 0; i < 2000; ++i) {
      const Decision d = r.sched.schedule(r.req(0, -1, priority), 0, r.board, r.rng);
      if (d.rejected)
        ++n;
      else
        r.sched.on_left(d.target, 64);
    }
    return n;
  };
  EXPECT_EQ(rejected(0.0, 1), 0);     // idle: never
  EXPECT_EQ(rejected(0.8, 1), 2000);  // saturation 1: always
  EXPECT_EQ(rejected(0.8, 0), 0);     // not sheddable: always admitted
  const int mid = rejected(0.24, 1);  // saturation 0.3: p = 0.3^5 x 300 = 0.729
  EXPECT_GT(mid, 1380);
  EXPECT_LT(mid, 1540);
}

TEST(EppPrefix, TheProducerSetsTheIndexNotTheScorer) {
  // With an LRU of one block per server the index keeps only the prompt's last block, so a
  // repeated prompt matches nowhere and the picker spreads it; the scorer's own parameters
  // are ignored (scorer/prefix/plugin.go), so there the default index keeps it on one server.
  Rig small(R"({"plugins": [{"type": "prefix-cache-scorer"}, {"type": "max-score-picker"},
      {"type": "approx-prefix-cache-producer",
       "parameters": {"autoTune": false, "lruCapacityPerServer": 1}}]})");
  EXPECT_EQ(small.histogram(300).size(), 3u);
  Rig ignored(R"({"plugins": [{"type": "prefix-cache-scorer",
      "parameters": {"autoTune": false, "lruCapacityPerServer": 1}},
      {"type": "max-score-picker"}]})");
  EXPECT_EQ(ignored.histogram(300).size(), 1u);
}

}  // namespace
}  // namespace blis::cluster::epp
