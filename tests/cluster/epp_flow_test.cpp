// The EPP's flow-control layer on its own (FlowController, the flowControl config) and the
// plugins that read the router's in-flight tokens and the pools' labels: token-load-scorer,
// label-selector-filter, context-length-aware.
#include <gtest/gtest.h>

#include "cluster/epp/flow_config.h"
#include "cluster/epp/labels.h"
#include "cluster/epp/scheduler.h"
#include "test_files.h"

namespace blis::cluster::epp {
namespace {

EppConfig fc_config(const std::string& text) {
  EppConfig c;
  const Diagnostics ds = parse_epp_config(text, "/x", c);
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds[0]));
  return c;
}

std::string fc_first_error(const std::string& text) {
  EppConfig c;
  for (const Diagnostic& d : parse_epp_config(text, "/router/epp_config", c))
    if (d.severity == Severity::kError) return d.pointer + ": " + d.message;
  return "";
}

FlowControlConfig fc_section(const std::string& section) {
  return fc_config(R"({"featureGates": ["flowControl"], "plugins": [{"type": "max-score-picker"}],
                    "flowControl": )" +
                   section + "}")
      .flow;
}

// ---- the controller

TEST(EppFlowControl, CriticalBandDispatchesBeforeTheSheddableOneAndNothingWhileSaturated) {
  FlowController fc(fc_section("{}"));
  // A sheddable request (priority -1) arrives first, then two critical ones (priority 1).
  ASSERT_EQ(fc.enqueue(10, -1, "batch", 100, 0), Enqueued::kQueued);
  ASSERT_EQ(fc.enqueue(20, 1, "chat", 100, 5), Enqueued::kQueued);
  ASSERT_EQ(fc.enqueue(21, 1, "chat", 100, 6), Enqueued::kQueued);
  std::uint64_t key = 0;
  // Saturated (>= the usage limit 1.0): head-of-line blocking, nothing leaves.
  EXPECT_FALSE(fc.dispatch_cycle(1.0, 10, key));
  EXPECT_FALSE(fc.dispatch_cycle(3.5, 11, key));
  EXPECT_EQ(fc.queued(), 3u);
  // Room: one request per cycle, the critical band first (FCFS within it), then the
  // sheddable one.
  ASSERT_TRUE(fc.dispatch_cycle(0.99, 12, key));
  EXPECT_EQ(key, 20u);
  ASSERT_TRUE(fc.dispatch_cycle(0.5, 13, key));
  EXPECT_EQ(key, 21u);
  ASSERT_TRUE(fc.dispatch_cycle(0.5, 14, key));
  EXPECT_EQ(key, 10u);
  EXPECT_FALSE(fc.dispatch_cycle(0.0, 15, key));
  EXPECT_EQ(fc.stats().dispatched, 3u);
  EXPECT_DOUBLE_EQ(fc.stats().wait_ms_max, to_millis(14));
}

TEST(EppFlowControl, UsageLimitThresholdMovesTheCeiling) {
  const EppConfig c = fc_config(R"({"featureGates": ["flowControl"],
    "plugins": [{"type": "static-usage-limit-policy", "name": "half",
                 "parameters": {"threshold": 0.5}}],
    "flowControl": {"usageLimitPolicyPluginRef": "half"}})");
  FlowController fc(c.flow);
  fc.enqueue(1, 0, "a", 1, 0);
  std::uint64_t key = 0;
  EXPECT_FALSE(fc.dispatch_cycle(0.5, 1, key));
  EXPECT_TRUE(fc.dispatch_cycle(0.49, 2, key));
}

TEST(EppFlowControl, CapacityOverflowRejects) {
  FlowController fc(fc_section(R"({"maxRequests": 3, "priorityBands": [
      {"priority": 0, "maxRequests": 2}, {"priority": -1, "maxBytes": "1k"}]})"));
  EXPECT_EQ(fc.enqueue(1, 0, "a", 10, 0), Enqueued::kQueued);
  EXPECT_EQ(fc.enqueue(2, 0, "a", 10, 0), Enqueued::kQueued);
  EXPECT_EQ(fc.enqueue(3, 0, "a", 10, 0), Enqueued::kRejectedCapacity);     // band maxRequests
  EXPECT_EQ(fc.enqueue(4, -1, "b", 1001, 0), Enqueued::kRejectedCapacity);  // band maxBytes
  EXPECT_EQ(fc.enqueue(5, -1, "b", 1000, 0), Enqueued::kQueued);
  EXPECT_EQ(fc.enqueue(6, 5, "c", 1, 0), Enqueued::kRejectedCapacity);  // global maxRequests
  EXPECT_EQ(fc.stats().rejected_capacity, 3u);
  // A dispatch frees the band's room.
  std::uint64_t key = 0;
  ASSERT_TRUE(fc.dispatch_cycle(0, 1, key));
  EXPECT_EQ(fc.queued_in(0), 1u);
  EXPECT_EQ(fc.enqueue(7, 0, "a", 10, 1), Enqueued::kQueued);
}

TEST(EppFlowControl, DefaultBandTemplateAndItsByteLimit) {
  // An unlisted priority gets a band from defaultPriorityBand; the default band holds 1 GB.
  FlowController fc(fc_section(R"({"defaultPriorityBand": {"maxRequests": 1}})"));
  EXPECT_EQ(fc.enqueue(1, 7, "a", 10, 0), Enqueued::kQueued);
  EXPECT_EQ(fc.enqueue(2, 7, "a", 10, 0), Enqueued::kRejectedCapacity);
  EXPECT_EQ(fc.enqueue(3, 8, "a", 10, 0), Enqueued::kQueued);
  FlowController plain(fc_section("{}"));
  EXPECT_EQ(plain.enqueue(1, 0, "a", kDefaultBandMaxBytes + 1, 0), Enqueued::kRejectedCapacity);
}

TEST(EppFlowControl, TtlEvictsOnlyAtTheDeadline) {
  FlowController fc(fc_section(R"({"defaultRequestTTL": "2s"})"));
  fc.enqueue(1, 0, "a", 1, 1000);
  EXPECT_EQ(fc.deadline(1000), 1000 + 2'000'000);
  EXPECT_FALSE(fc.expire(1, 1000 + 1'999'999));
  EXPECT_TRUE(fc.expire(1, 1000 + 2'000'000));
  EXPECT_EQ(fc.queued(), 0u);
  EXPECT_EQ(fc.stats().evicted_ttl, 1u);
  EXPECT_FALSE(fc.expire(1, 1000 + 2'000'000));  // gone already
  FlowController none(fc_section("{}"));
  EXPECT_EQ(none.deadline(5), kSimTimeNever);
}

TEST(EppFlowControl, GlobalStrictIsFcfsAcrossFlowsRoundRobinTakesTurns) {
  FlowController strict(fc_section("{}"));
  strict.enqueue(1, 0, "b", 1, 0);
  strict.enqueue(2, 0, "b", 1, 1);
  strict.enqueue(3, 0, "a", 1, 2);
  std::uint64_t k = 0;
  std::vector<std::uint64_t> order;
  while (strict.dispatch_cycle(0, 3, k)) order.push_back(k);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{1, 2, 3}));

  // A band names a configured policy plugin (only the defaults exist unconfigured).
  FlowController rr(fc_config(R"({"featureGates": ["flowControl"],
      "plugins": [{"type": "round-robin-fairness-policy", "name": "rr"}],
      "flowControl": {"priorityBands": [{"priority": 0, "fairnessPolicyRef": "rr"}]}})")
                        .flow);
  rr.enqueue(1, 0, "b", 1, 0);
  rr.enqueue(2, 0, "b", 1, 1);
  rr.enqueue(3, 0, "a", 1, 2);
  rr.enqueue(4, 0, "a", 1, 3);
  order.clear();
  while (rr.dispatch_cycle(0, 4, k)) order.push_back(k);
  // Flows sorted by ID ("a" before "b"), alternating.
  EXPECT_EQ(order, (std::vector<std::uint64_t>{3, 1, 4, 2}));
}

TEST(EppFlowControl, CancelRemovesAQueuedRequest) {
  FlowController fc(fc_section("{}"));
  fc.enqueue(1, 0, "a", 1, 0);
  EXPECT_TRUE(fc.cancel(1));
  EXPECT_FALSE(fc.cancel(1));
  EXPECT_EQ(fc.stats().cancelled, 1u);
  std::uint64_t k = 0;
  EXPECT_FALSE(fc.dispatch_cycle(0, 1, k));
}

// ---- the config

TEST(EppFlowConfig, GateSectionDefaultsAndQuantities) {
  const FlowControlConfig f = fc_section(R"({"maxBytes": "1Gi", "maxRequests": "1k",
      "defaultRequestTTL": "1m30s", "priorityBands": [{"priority": 1}]})");
  EXPECT_TRUE(f.enabled);
  EXPECT_EQ(f.max_bytes, 1073741824u);
  EXPECT_EQ(f.max_requests, 1000u);
  EXPECT_EQ(f.default_ttl, from_millis(90'000));
  ASSERT_EQ(f.bands.size(), 1u);
  EXPECT_EQ(f.bands[0].max_bytes, kDefaultBandMaxBytes);  // registry default
  EXPECT_EQ(f.bands[0].max_requests, 0u);
  EXPECT_DOUBLE_EQ(f.usage_limit, 1.0);
  // No gate: flowControl loads with a warning and is off (legacy admission).
  EppConfig c;
  const Diagnostics ds = parse_epp_config(
      R"({"plugins": [{"type": "max-score-picker"}], "flowControl": {"maxRequests": 5}})", "/x", c);
  EXPECT_FALSE(has_errors(ds));
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_NE(ds[0].message.find("feature gate"), std::string::npos);
  EXPECT_FALSE(c.flow.enabled);
}

TEST(EppFlowConfig, ErrorsNameThePointer) {
  const std::string pre =
      R"({"featureGates": ["flowControl"], "plugins": [{"type": "max-score-picker"}, {"type": "fcfs-ordering-policy", "name": "fifo"}], "flowControl": )";
  EXPECT_EQ(fc_first_error(pre + R"({"maxRequest": 5}})"),
            "/router/epp_config/flowControl/maxRequest: unknown key \"maxRequest\" (did you "
            "mean \"maxRequests\"?) (expected \"maxBytes\", \"maxRequests\", "
            "\"defaultRequestTTL\", \"defaultPriorityBand\", \"priorityBands\" or "
            "\"usageLimitPolicyPluginRef\")");
  EXPECT_EQ(fc_first_error(pre + R"({"maxBytes": "-5"}})"),
            "/router/epp_config/flowControl/maxBytes: must be non-negative");
  EXPECT_NE(
      fc_first_error(pre + R"({"maxBytes": "12Xi"}})").find("/flowControl/maxBytes: expected"),
      std::string::npos);
  EXPECT_NE(fc_first_error(pre + R"({"defaultRequestTTL": "soon"}})").find("defaultRequestTTL"),
            std::string::npos);
  EXPECT_NE(fc_first_error(pre + R"({"priorityBands": [{"priority": 1}, {"priority": 1}]}})")
                .find("/flowControl/priorityBands/1/priority: duplicate priority level 1"),
            std::string::npos);
  EXPECT_NE(fc_first_error(pre + R"({"priorityBands": [{"orderingPolicyRef": "fifoo"}]}})")
                .find("/priorityBands/0/orderingPolicyRef: no plugin named \"fifoo\" (did you "
                      "mean \"fifo\""),
            std::string::npos);
  EXPECT_NE(fc_first_error(pre + R"({"priorityBands": [{"fairnessPolicyRef": "fifo"}]}})")
                .find("not a fairness plugin"),
            std::string::npos);
  EXPECT_EQ(fc_first_error(pre + R"({"priorityBands": [{"orderingPolicyRef": "fifo"}]}})"), "");
  EXPECT_NE(fc_first_error(R"({"featureGates": ["flowcontrol"], "plugins": []})")
                .find("/featureGates/0: unknown feature gate \"flowcontrol\" (did you mean "
                      "\"flowControl\"?)"),
            std::string::npos);
}

TEST(EppFlowConfig, YamlConfigLoads) {
  EppConfig c = fc_config(R"(apiVersion: llm-d.ai/v1alpha1
kind: EndpointPickerConfig
featureGates:
- flowControl
plugins:
- type: queue-scorer
flowControl:
  maxRequests: 100
  defaultRequestTTL: 30s
  priorityBands:
  - priority: 100
    maxRequests: 50
  - priority: -10
    maxBytes: 10M
)");
  EXPECT_TRUE(c.flow.enabled);
  ASSERT_EQ(c.flow.bands.size(), 2u);
  EXPECT_EQ(c.flow.bands[1].priority, -10);
  EXPECT_EQ(c.flow.bands[1].max_bytes, 10'000'000u);
  EXPECT_EQ(c.flow.default_ttl, from_millis(30'000));
}

// Upstream's own loader test configs (pkg/epp/config/loader/testdata_test.go, verbatim in
// tests/cluster/data/epp): they load, or fail, as upstream's loader tests expect.
std::string upstream(const std::string& name) {
  return blis::test::read_file(std::string(BLIS_SOURCE_DIR) + "/tests/cluster/data/epp/" + name);
}

TEST(EppFlowConfig, UpstreamLoaderTestConfigs) {
  EppConfig c;
  ASSERT_FALSE(has_errors(parse_epp_config(upstream("fc-success.yaml"), "/x", c)));
  EXPECT_TRUE(c.flow.enabled);
  EXPECT_EQ(c.flow.max_bytes, 1024u);
  EXPECT_EQ(c.flow.default_ttl, from_millis(60'000));

  ASSERT_FALSE(has_errors(parse_epp_config(upstream("fc-success-complex.yaml"), "/x", c)));
  ASSERT_EQ(c.flow.bands.size(), 1u);
  EXPECT_EQ(c.flow.bands[0].priority, 100);
  EXPECT_EQ(c.flow.bands[0].fairness, Fairness::kGlobalStrict);

  // featureGates: [] — the section is not respected (a warning here).
  const Diagnostics off = parse_epp_config(upstream("fc-disabled.yaml"), "/x", c);
  EXPECT_FALSE(has_errors(off));
  EXPECT_FALSE(c.flow.enabled);

  const Diagnostics bad = parse_epp_config(upstream("fc-error-missing-plugin.yaml"), "/x", c);
  ASSERT_TRUE(has_errors(bad));
  EXPECT_NE(bad[0].message.find("no plugin named \"non-existent-policy\""), std::string::npos)
      << bad[0].message;
}

// ---- plugins that read in-flight tokens and labels

struct LabelRig {
  SignalBoard board{3, 0};
  Scheduler sched;
  Rng rng{3};
  std::vector<std::int32_t> prompt = std::vector<std::int32_t>(1000, 5);
  explicit LabelRig(const std::string& cfg) : sched(fc_config(cfg), 3, {0, 1, 2}, 16, 1, 0) {
    for (std::int32_t i = 0; i < 3; ++i) sched.set_endpoint(i, Role::kNone, 1000, 0);
  }
  std::int32_t pick() {
    Request r;
    r.prompt = &prompt;
    return sched.schedule(r, 0, board, rng).target;
  }
};

TEST(EppTokenLoad, PrefersTheEndpointWithFewerTokensInFlight) {
  LabelRig r(R"({"plugins": [{"type": "token-load-scorer"}, {"type": "max-score-picker"}]})");
  EXPECT_EQ(Scheduler::token_estimate(1000), 2500);  // 1000 + round(1.5 x 1000)
  EXPECT_EQ(Scheduler::token_estimate(3), 8);        // 3 + round(4.5)
  r.sched.count_in(0, 4000);                         // 10000 tokens
  r.sched.count_in(1, 1000);                         // 2500
  r.sched.count_in(2, 2000);                         // 5000
  EXPECT_EQ(r.sched.in_flight_tokens(0), 10000);
  EXPECT_EQ(r.pick(), 1);
  EXPECT_EQ(r.sched.in_flight_tokens(1), 5000);  // the pick added its 2500
  r.sched.on_left(0, 4000);
  EXPECT_EQ(r.sched.in_flight_tokens(0), 0);
  EXPECT_EQ(r.pick(), 0);  // nothing in flight: score 1
}

TEST(EppTokenLoad, ThresholdCapsTheScore) {
  // queueThresholdTokens 2500: 2500 and 5000 tokens both score 0 and tie.
  LabelRig r(
      R"({"plugins": [{"type": "token-load-scorer", "parameters": {"queueThresholdTokens": 2500}},
                        {"type": "max-score-picker"}]})");
  r.sched.count_in(0, 1000);
  r.sched.count_in(1, 2000);
  r.sched.count_in(2, 200);  // 500 tokens: 0.8
  EXPECT_EQ(r.pick(), 2);
}

TEST(EppTokenLoad, ConcurrencyDetectorInTokensMode) {
  // 3 endpoints x 5000 tokens of capacity; 2500 + 5000 in flight: saturation 0.5.
  LabelRig r(R"({"plugins": [{"type": "concurrency-detector", "parameters": {
      "concurrencyMode": "tokens", "maxTokenConcurrency": 5000}}, {"type": "max-score-picker"}],
      "saturationDetector": {"pluginRef": "concurrency-detector"}})");
  r.sched.count_in(0, 1000);
  r.sched.count_in(1, 2000);
  EXPECT_DOUBLE_EQ(r.sched.saturation(0, r.board), 7500.0 / 15000.0);
  EXPECT_NE(fc_first_error(R"({"plugins": [{"type": "concurrency-detector", "parameters": {
      "concurrencyMode": "bytes"}}]})")
                .find("expected \"requests\" or \"tokens\""),
            std::string::npos);
  // detector config.go validateConfig: limits strictly positive.
  EXPECT_EQ(fc_first_error(R"({"plugins": [{"type": "concurrency-detector", "parameters": {
      "maxConcurrency": 0}}]})"),
            "/router/epp_config/plugins/0/parameters/maxConcurrency: must be > 0");
  EXPECT_EQ(fc_first_error(R"({"plugins": [{"type": "utilization-detector", "parameters": {
      "kvCacheUtilThreshold": 1.5}}]})"),
            "/router/epp_config/plugins/0/parameters/kvCacheUtilThreshold: must be in (0, 1]");
}

TEST(EppLabels, SelectorFilterMatchesLabelsAndExpressions) {
  LabelRig r(R"({"plugins": [{"type": "label-selector-filter", "parameters": {
      "matchLabels": {"tier": "gold"},
      "matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["b"]}]}},
      {"type": "max-score-picker"}]})");
  r.sched.set_labels(0, {{"tier", "gold"}, {"zone", "b"}});
  r.sched.set_labels(1, {{"tier", "silver"}});
  r.sched.set_labels(2, {{"tier", "gold"}});
  for (int i = 0; i < 5; ++i) EXPECT_EQ(r.pick(), 2);
  // Nothing matches: no endpoint (the request is rejected).
  r.sched.set_labels(2, {{"tier", "gold"}, {"zone", "b"}});
  EXPECT_EQ(r.pick(), -1);
}

TEST(EppLabels, SelectorSemantics) {
  PluginSpec s;
  s.selector = {{"gpu", "Exists", {}}, {"spot", "DoesNotExist", {}}, {"pool", "In", {"a", "c"}}};
  EXPECT_TRUE(selector_matches(s, {{"gpu", "h100"}, {"pool", "c"}}));
  EXPECT_FALSE(selector_matches(s, {{"gpu", "h100"}, {"pool", "b"}}));
  EXPECT_FALSE(selector_matches(s, {{"gpu", "h100"}, {"pool", "a"}, {"spot", "1"}}));
  EXPECT_FALSE(selector_matches(s, {{"pool", "a"}}));
  EXPECT_TRUE(selector_matches(PluginSpec{}, {}));  // empty selector: everything
}

TEST(EppLabels, SelectorErrors) {
  const std::string pre = R"({"plugins": [{"type": "label-selector-filter", "parameters": )";
  EXPECT_NE(
      fc_first_error(
          pre + R"({"matchExpressions": [{"key": "a", "operator": "Inn", "values": ["x"]}]}}]})")
          .find("/plugins/0/parameters/matchExpressions/0/operator: unknown operator "
                "\"Inn\" (did you mean \"In\""),
      std::string::npos);
  EXPECT_NE(fc_first_error(pre + R"({"matchExpressions": [{"key": "a", "operator": "In"}]}}]})")
                .find("needs at least one value"),
            std::string::npos);
  EXPECT_NE(fc_first_error(pre + R"({"matchLabels": {"a": 1}}}]})")
                .find("/plugins/0/parameters/matchLabels/a: expected a string"),
            std::string::npos);
}

TEST(EppLabels, ContextLengthAwareScoresRanges) {
  // upstream calculateRangeScore: in range 0.3 + 0.7 x (0.7 x widthScore + 0.3 x position).
  EXPECT_DOUBLE_EQ(context_range_score(1000, 0, 2048),
                   0.3 + 0.7 * (0.7 / (1 + 2048 / 10000.0) + 0.3 * (1048.0 / 2048)));
  EXPECT_DOUBLE_EQ(context_range_score(5, 5, 5), 1.0);
  EXPECT_DOUBLE_EQ(context_range_score(3048, 0, 2048), 0.3 / 2.0);  // 1000 over
  std::int64_t lo = 0, hi = 0;
  EXPECT_TRUE(parse_context_range(" 0 - 2048", lo, hi));
  EXPECT_EQ(hi, 2048);
  EXPECT_FALSE(parse_context_range("10-5", lo, hi));
  EXPECT_FALSE(parse_context_range("1-2-3", lo, hi));
  EXPECT_FALSE(parse_context_range("x-5", lo, hi));

  // A 1000-token prompt: the 0-2048 endpoint beats an unlabelled one (0.5) and the long one.
  LabelRig r(R"({"plugins": [{"type": "context-length-aware"}, {"type": "max-score-picker"}]})");
  r.sched.set_labels(0, {{"llm-d.ai/context-length-range", "0-2048"}});
  r.sched.set_labels(2, {{"llm-d.ai/context-length-range", "4096-131072"}});
  EXPECT_EQ(r.pick(), 0);
  // Filtering mode drops the out-of-range endpoint, keeps the unlabelled one.
  LabelRig f(
      R"({"plugins": [{"type": "context-length-aware", "parameters": {"enableFiltering": true}},
                        {"type": "random-picker"}]})");
  f.sched.set_labels(0, {{"llm-d.ai/context-length-range", "4096-8192"}});
  f.sched.set_labels(2, {{"llm-d.ai/context-length-range", "0-512"}});
  for (int i = 0; i < 10; ++i) EXPECT_EQ(f.pick(), 1);
}

TEST(EppLabels, RoleIsALabel) {
  LabelRig r(R"({"plugins": [{"type": "label-selector-filter", "parameters": {
      "matchLabels": {"llm-d.ai/role": "decode"}}}, {"type": "max-score-picker"}]})");
  r.sched.set_endpoint(1, Role::kDecode, 1000, 0);
  EXPECT_EQ(r.pick(), 1);
}

}  // namespace
}  // namespace blis::cluster::epp
