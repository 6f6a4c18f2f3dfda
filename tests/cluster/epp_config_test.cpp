// EPP configuration: the YAML subset reader, the EndpointPickerConfig loader (names,
// parameters, defaults, errors with did-you-mean) and the generated parity matrix.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "cluster/epp/config.h"
#include "cluster/epp/plugins.h"
#include "cluster/epp/yaml_subset.h"
#include "test_files.h"

namespace blis::cluster::epp {
namespace {

using blis::test::read_file;

std::string data(const std::string& name) {
  return read_file(std::string(BLIS_SOURCE_DIR) + "/tests/cluster/data/epp/" + name);
}

std::string all(const Diagnostics& ds) {
  std::string o;
  for (const auto& d : ds) o += format_diagnostic(d) + "\n";
  return o;
}

TEST(EppYaml, MappingsSequencesScalarsAndComments) {
  const YamlResult r = parse_yaml_subset(R"(# a comment
apiVersion: llm-d.ai/v1alpha1   # trailing comment
list:
- type: a
  parameters:
    n: 16
    f: 0.5
    b: true
    s: "quoted # not a comment"
    q: 'it''s'
    nothing:
- plain
empty: []
inline: [1, two, "3"]
obj: {}
)");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value["apiVersion"], "llm-d.ai/v1alpha1");
  const auto& p = r.value["list"][0]["parameters"];
  EXPECT_EQ(p["n"], 16);
  EXPECT_TRUE(p["n"].is_number_integer());
  EXPECT_DOUBLE_EQ(p["f"].get<double>(), 0.5);
  EXPECT_EQ(p["b"], true);
  EXPECT_EQ(p["s"], "quoted # not a comment");
  EXPECT_EQ(p["q"], "it's");
  EXPECT_TRUE(p["nothing"].is_null());
  EXPECT_EQ(r.value["list"][1], "plain");
  EXPECT_TRUE(r.value["empty"].is_array() && r.value["empty"].empty());
  EXPECT_EQ(r.value["inline"][1], "two");
  EXPECT_EQ(r.value["inline"][2], "3");
  EXPECT_TRUE(r.value["obj"].is_object());
  EXPECT_EQ(r.positions.at("/list/0/parameters/n").line, 6);
  EXPECT_EQ(r.positions.at("/list/0/parameters/n").column, 5);
}

TEST(EppYaml, SequenceIndentedUnderItsKeyOrNot) {
  const YamlResult a = parse_yaml_subset("k:\n- 1\n- 2\n");
  const YamlResult b = parse_yaml_subset("k:\n  - 1\n  - 2\n");
  ASSERT_TRUE(a.ok && b.ok);
  EXPECT_EQ(a.value, b.value);
  EXPECT_EQ(a.value["k"].size(), 2u);
}

TEST(EppYaml, ErrorsNameLineAndColumn) {
  struct Case {
    const char* text;
    const char* want;
  };
  const Case cases[] = {
      {"a: 1\n\tb: 2\n", "line 2, column 1: a tab"},
      {"a: 1\na: 2\n", "line 2, column 1: duplicate key"},
      {"a: &x 1\n", "line 1, column 4: '&'"},
      {"a: |2\n  text\n", "line 1, column 4: '|'"},  // an indentation indicator
      {"a:\n  b: 1\n    c: 2\n", "line 3, column 5: unexpected indentation"},
      {"a: \"open\n", "line 1, column 4: unterminated"},
      {"a: [1, 2\n", "line 1, column 4: a flow collection"},
      {"- a\nb: 1\n", "line 2, column 1"},
      {"--- \na: 1\n---\nb: 2\n", "more than one YAML document"},
  };
  for (const Case& c : cases) {
    const YamlResult r = parse_yaml_subset(c.text);
    EXPECT_FALSE(r.ok) << c.text;
    EXPECT_NE(r.error.find(c.want), std::string::npos) << c.text << " -> " << r.error;
  }
}

TEST(EppYaml, Bounded) {
  std::string deep;
  for (int i = 0; i < 40; ++i) deep += std::string(static_cast<std::size_t>(i) * 2, ' ') + "k:\n";
  const YamlResult r = parse_yaml_subset(deep);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.error.find("deeper than 32"), std::string::npos) << r.error;
  EXPECT_FALSE(parse_yaml_subset(std::string(kMaxYamlBytes + 1, '#')).ok);
}

TEST(EppConfig, LoadsLlmdPdSampleVerbatim) {
  EppConfig c;
  const Diagnostics ds = parse_epp_config(data("pd-epp-config.yaml"), "/router/epp_config", c);
  ASSERT_FALSE(has_errors(ds)) << all(ds);
  ASSERT_EQ(c.plugins.size(), 7u);
  EXPECT_EQ(c.plugins[0].type, "prefix-cache-scorer");
  EXPECT_EQ(c.plugins[0].name, "prefix-cache-scorer");  // name defaults to type
  // The sample still gives the scorer the index's parameters, which its factory ignores
  // (scorer/prefix/plugin.go): each is a warning that names where they belong.
  ASSERT_EQ(ds.size(), 2u) << all(ds);
  for (const Diagnostic& d : ds) {
    EXPECT_EQ(d.severity, Severity::kWarning);
    EXPECT_NE(d.message.find("approx-prefix-cache-producer"), std::string::npos) << d.message;
  }
  EXPECT_EQ(c.plugins[0].number("lruCapacityPerServer", 0), 0);
  ASSERT_EQ(c.profiles.size(), 2u);
  EXPECT_EQ(c.profiles[c.decode_profile].name, "decode");
  EXPECT_EQ(c.profiles[c.prefill_profile].name, "prefill");
  ASSERT_GE(c.prefill_decider, 0);
  EXPECT_EQ(c.plugins[c.prefill_decider].number("nonCachedTokens", 0), 16);
  const Profile& d = c.profiles[c.decode_profile];
  ASSERT_EQ(d.filters.size(), 1u);
  EXPECT_EQ(c.plugins[d.filters[0]].type, "decode-filter");
  ASSERT_EQ(d.scorers.size(), 2u);
  EXPECT_EQ(d.scorers[0].weight, 2);
  EXPECT_EQ(d.scorers[1].weight, 1);
  EXPECT_EQ(c.plugins[d.picker].type, "max-score-picker");
  EXPECT_EQ(c.plugins[c.profile_handler].type, "disagg-profile-handler");
}

TEST(EppConfig, LoadsTheOtherSamples) {
  for (const char* f :
       {"epp-config.yaml", "sim-epp-no-hit-lru.yaml", "epp-precise-prefix-cache-config.yaml"}) {
    EppConfig c;
    const Diagnostics ds = parse_epp_config(data(f), "/router/epp_config", c);
    EXPECT_FALSE(has_errors(ds)) << f << "\n" << all(ds);
    EXPECT_EQ(c.profiles.size(), 1u) << f;
    EXPECT_LT(c.profile_handler >= 0 ? 0 : 1, 2) << f;
  }
}

TEST(EppConfig, DefaultsAsTheUpstreamLoader) {
  // No profiles: one "default" with every filter/scorer/picker; no picker: max-score; no
  // handler: single; no detector: utilization.
  EppConfig c;
  const Diagnostics ds = parse_epp_config(
      R"({"plugins": [{"type": "queue-scorer"}, {"type": "kv-cache-utilization-scorer"}]})", "/r",
      c);
  ASSERT_FALSE(has_errors(ds)) << all(ds);
  ASSERT_EQ(c.profiles.size(), 1u);
  EXPECT_EQ(c.profiles[0].name, "default");
  EXPECT_EQ(c.profiles[0].scorers.size(), 2u);
  EXPECT_EQ(c.profiles[0].scorers[0].weight, 1.0);
  EXPECT_EQ(c.profiles[0].picker, -1);
  EXPECT_EQ(c.profile_handler, -1);
  EXPECT_EQ(c.saturation_detector, -1);
}

TEST(EppConfig, JsonErrorsNamePointersWithDidYouMean) {
  EppConfig c;
  Diagnostics ds =
      parse_epp_config(R"({"plugins": [{"type": "queue-scorr"}], "schedulingProfiles": []})",
                       "/router/epp_config", c);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].pointer, "/router/epp_config/plugins/0/type");
  EXPECT_NE(ds[0].message.find("did you mean \"queue-scorer\""), std::string::npos)
      << ds[0].message;

  // An unknown parameter loads, as upstream's json.Unmarshal skips it: a warning.
  ds = parse_epp_config(
      R"({"plugins": [{"type": "load-aware-scorer", "parameters": {"treshold": 3}}]})", "/x", c);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].severity, Severity::kWarning);
  EXPECT_EQ(ds[0].pointer, "/x/plugins/0/parameters/treshold");
  EXPECT_NE(ds[0].message.find("ignored, as upstream ignores it"), std::string::npos);
  EXPECT_NE(ds[0].message.find("did you mean \"threshold\""), std::string::npos) << ds[0].message;

  ds = parse_epp_config(R"({"plugins": [{"type": "queue-scorer"}],
      "schedulingProfiles": [{"name": "a", "plugins": [{"pluginRef": "queue-scorerr"}]}]})",
                        "/x", c);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].pointer, "/x/schedulingProfiles/0/plugins/0/pluginRef");
  EXPECT_NE(ds[0].message.find("did you mean \"queue-scorer\""), std::string::npos);

  ds = parse_epp_config(R"({"kind": "Pod", "plugins": []})", "/x", c);
  ASSERT_FALSE(ds.empty());
  EXPECT_EQ(ds[0].pointer, "/x/kind");
}

TEST(EppConfig, YamlErrorsNameTheLine) {
  EppConfig c;
  const Diagnostics ds = parse_epp_config(R"(apiVersion: llm-d.ai/v1alpha1
kind: EndpointPickerConfig
plugins:
- type: queue-scorer
- type: max-score-picker
  parameters:
    maxNumOfEndpoint: 2
)",
                                          "/router/epp_config", c);
  ASSERT_EQ(ds.size(), 1u) << all(ds);
  EXPECT_EQ(ds[0].pointer, "/router/epp_config");
  EXPECT_NE(ds[0].message.find("line 7, column 5 (/plugins/1/parameters/maxNumOfEndpoint)"),
            std::string::npos)
      << ds[0].message;
  EXPECT_NE(ds[0].message.find("did you mean \"maxNumOfEndpoints\""), std::string::npos);
}

// Every EndpointPickerConfig of llm-d's own deploy/config, e2e tests and plugin READMEs at the
// pinned commit (tests/cluster/data/epp/README.md) loads: no errors (warnings for parameters
// upstream ignores are allowed).
TEST(EppConfig, LoadsEveryUpstreamConfig) {
  for (const char* f : {"dp-epp-config.yaml",
                        "epp-config.yaml",
                        "epp-estimate-prefix-cache-config.yaml",
                        "epp-precise-prefix-cache-config.yaml",
                        "pd-epp-config.yaml",
                        "probabilistic-admitter-epp-config.yaml",
                        "sim-e-p-d-epp-config.yaml",
                        "sim-e-pd-epp-config.yaml",
                        "sim-epp-config.yaml",
                        "sim-epp-kvcache-config.yaml",
                        "sim-epp-no-hit-lru.yaml",
                        "sim-epp-tokenizer-vllm-http-config.yaml",
                        "sim-pd-epp-config.yaml",
                        "e2e-simpleConfig.yaml",
                        "e2e-deprecatedPdConfig.yaml",
                        "e2e-epdEncodeDecodeConfig.yaml",
                        "e2e-epdConfig.yaml",
                        "e2e-pdConfig.yaml",
                        "e2e-decodeOnlyConfig.yaml",
                        "e2e-kvConfig.yaml",
                        "e2e-kvExternalTokenizerConfig.yaml",
                        "e2e-scaleConfig.yaml",
                        "e2e-dataParallelConfig.yaml",
                        "readme-request-attribute-reporter.yaml",
                        "readme-parsers.yaml"}) {
    EppConfig c;
    const Diagnostics ds = parse_epp_config(data(f), "/router/epp_config", c);
    EXPECT_FALSE(has_errors(ds)) << f << "\n" << all(ds);
    EXPECT_FALSE(c.profiles.empty()) << f;
  }
  // The deprecated P/D config: prefill-header-handler and pd-profile-handler.
  EppConfig c;
  ASSERT_FALSE(has_errors(parse_epp_config(data("e2e-deprecatedPdConfig.yaml"), "/x", c)));
  EXPECT_EQ(c.plugins[c.profile_handler].type, "pd-profile-handler");
  ASSERT_GE(c.prefill_decider, 0);
  EXPECT_EQ(c.plugins[c.prefill_decider].type, "prefix-based-pd-decider");
}

TEST(EppConfig, ByLabelAndTheProbabilisticAdmitterCheckTheirParameters) {
  EppConfig c;
  auto first = [&c](const std::string& text) {
    const Diagnostics ds = parse_epp_config(text, "/x", c);
    return has_errors(ds) ? ds[0].pointer + ": " + ds[0].message : std::string();
  };
  // bylabel/filter.go Factory.
  EXPECT_NE(first(R"({"plugins": [{"type": "by-label", "parameters": {"validValues": ["a"]}}]})")
                .find("'label' must be specified"),
            std::string::npos);
  EXPECT_EQ(first(R"({"plugins": [{"type": "by-label", "parameters": {"label": "x"}}]})"),
            "/x/plugins/0: invalid configuration for 'by-label' filter: either 'validValues' must "
            "be non-empty or 'allowsNoLabel' must be true");
  EXPECT_EQ(first(R"({"plugins": [{"type": "by-label",
      "parameters": {"label": "x", "allowsNoLabel": true}}]})"),
            "");
  EXPECT_EQ(first(R"({"plugins": [{"type": "by-label",
      "parameters": {"label": "x", "validValues": ["a", 3]}}]})"),
            "/x/plugins/0/parameters/validValues/1: expected a string");
  // probabilisticadmitter/plugin.go Factory: every parameter > 0.
  EXPECT_EQ(first(R"({"plugins": [{"type": "probabilistic-admitter", "parameters": {"k": 0}}]})"),
            "/x/plugins/0/parameters/k: plugin 'probabilistic-admitter': k must be > 0");
  // An encode decider must be a decider plugin (disagg_profile_handler.go HandlerFactory).
  EXPECT_NE(first(R"({"plugins": [{"type": "disagg-profile-handler",
      "parameters": {"deciders": {"encode": "queue-scorer"}}}, {"type": "queue-scorer"}],
      "schedulingProfiles": [{"name": "decode", "plugins": [{"pluginRef": "queue-scorer"}]}]})")
                .find("deciders.encode \"queue-scorer\" names no decider plugin"),
            std::string::npos);
  // approximateprefix/plugin.go newDataProducer.
  EXPECT_NE(first(R"({"plugins": [{"type": "approx-prefix-cache-producer",
      "parameters": {"autoTune": false, "blockSizeTokens": 0}}]})")
                .find("BlockSizeTokens must be > 0 when AutoTune is disabled"),
            std::string::npos);
}

TEST(EppYaml, BlockScalars) {
  const YamlResult r = parse_yaml_subset(R"(a: |
  line one
  # not a comment

  line three
b: >-
  folded
  words

  new paragraph
c: |+
  kept

d: x
)");
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.value["a"], "line one\n# not a comment\n\nline three\n");
  EXPECT_EQ(r.value["b"], "folded words\nnew paragraph");
  EXPECT_EQ(r.value["c"], "kept\n\n");
  EXPECT_EQ(r.value["d"], "x");
  EXPECT_EQ(r.positions.at("/d").line, 14);
  // An indentation indicator is outside the subset, with its position.
  const YamlResult bad = parse_yaml_subset("a: |2\n  x\n");
  ASSERT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("line 1, column 4"), std::string::npos) << bad.error;
}

TEST(EppConfig, RefusesWhatTheSimulatorCannotExpressAndBadShapes) {
  EppConfig c;
  auto first = [&c](const std::string& text) {
    const Diagnostics ds = parse_epp_config(text, "/x", c);
    return ds.empty() ? std::string() : ds[0].pointer + ": " + ds[0].message;
  };
  EXPECT_NE(first(R"({"plugins": [{"type": "latency-scorer"}]})").find("not expressible"),
            std::string::npos);
  EXPECT_NE(first(R"({"plugins": [{"type": "queue-scorer"}, {"type": "queue-scorer"}]})")
                .find("used twice"),
            std::string::npos);
  EXPECT_NE(first(R"({"plugins": [{"type": "queue-scorer"}], "schedulingProfiles": [
      {"name": "a", "plugins": [{"pluginRef": "queue-scorer"}]},
      {"name": "b", "plugins": [{"pluginRef": "queue-scorer"}]}]})")
                .find("exactly one scheduling profile"),
            std::string::npos);
  EXPECT_NE(first(R"({"plugins": [{"type": "disagg-profile-handler",
      "parameters": {"deciders": {"prefill": "nope"}}}, {"type": "queue-scorer"}],
      "schedulingProfiles": [{"name": "decode", "plugins": [{"pluginRef": "queue-scorer"}]}]})")
                .find("names no P/D decider"),
            std::string::npos);
  EXPECT_NE(first(R"({"plugins": [{"type": "queue-scorer", "parameters": 3}]})")
                .find("expected a mapping"),
            std::string::npos);
  EXPECT_NE(
      first(R"({"plugins": [{"type": "load-aware-scorer", "parameters": {"threshold": 1.5}}]})")
          .find("expected an integer"),
      std::string::npos);
  EXPECT_NE(first("plugins: [\n").find("flow collection"), std::string::npos);
}

TEST(EppConfig, GoDurations) {
  double ms = 0;
  EXPECT_TRUE(parse_go_duration_ms("200ms", ms));
  EXPECT_DOUBLE_EQ(ms, 200);
  EXPECT_TRUE(parse_go_duration_ms("1m30s", ms));
  EXPECT_DOUBLE_EQ(ms, 90000);
  EXPECT_FALSE(parse_go_duration_ms("5", ms));
  EXPECT_FALSE(parse_go_duration_ms("1d", ms));
  // time.ParseDuration's range: int64 nanoseconds, about 2562047 hours.
  EXPECT_TRUE(parse_go_duration_ms("2562047h", ms));
  EXPECT_FALSE(parse_go_duration_ms("2562048h", ms));
  EXPECT_FALSE(parse_go_duration_ms(std::string(60, '9') + "h", ms));
}

// Hostile-corpus findings (docs/reliability.md): numbers and durations beyond what the
// simulator converts were accepted and overflowed later (a float-to-int conversion of 1e30,
// std::out_of_range escaping the decoder for a TTL of 10^60 hours).
TEST(EppConfig, NumbersTheSimulatorConvertsAreBounded) {
  EppConfig c;
  auto first = [&c](const std::string& text) {
    Diagnostics ds;
    EXPECT_NO_THROW(ds = parse_epp_config(text, "/x", c)) << text;
    return ds.empty() ? std::string() : ds[0].pointer + ": " + ds[0].message;
  };
  EXPECT_EQ(first(R"({"plugins": [{"type": "approx-prefix-cache-producer",
      "parameters": {"maxPrefixBlocksToMatch": 1e30}}]})"),
            "/x/plugins/0/parameters/maxPrefixBlocksToMatch: expected an integer from "
            "-2147483647 to 2147483647");
  EXPECT_NE(first(R"({"plugins": [{"type": "no-hit-lru-scorer",
      "parameters": {"lruSize": 9223372036854775808}}]})")
                .find("/x/plugins/0/parameters/lruSize: expected an integer from"),
            std::string::npos);
  EXPECT_NE(first("plugins:\n- type: active-request-scorer\n  parameters:\n    maxBusyScore: "
                  "1e999\n")
                .find("expected a finite number"),
            std::string::npos);
  EXPECT_NE(first(R"({"plugins": [{"type": "queue-scorer"}], "schedulingProfiles": [
      {"name": "a", "plugins": [{"pluginRef": "queue-scorer", "weight": 1e308}]}]})")
                .find("/x/schedulingProfiles/0/plugins/0/weight: expected a number from 0 to 1e9"),
            std::string::npos);
  const std::string ttl =
      "featureGates: [flowControl]\nplugins:\n- type: queue-scorer\n"
      "flowControl:\n  defaultRequestTTL: \"" +
      std::string(60, '9') + "h\"\n";
  const auto every = [&c](const std::string& text) {
    Diagnostics ds;
    EXPECT_NO_THROW(ds = parse_epp_config(text, "/x", c)) << text;
    return all(ds);
  };
  EXPECT_NE(every(ttl).find("defaultRequestTTL): expected a duration"), std::string::npos)
      << every(ttl);
  const std::string stale =
      "plugins:\n- type: utilization-detector\n  parameters:\n"
      "    metricsStalenessThreshold: 2562048h\n";
  EXPECT_NE(every(stale).find("metricsStalenessThreshold): expected a duration"), std::string::npos)
      << every(stale);
}

// JSON text is read as a scenario's JSON is: a duplicate key, trailing bytes and deep nesting
// are errors (they were last-wins, ignored, and read into a tree).
TEST(EppConfig, JsonTextReadAsAScenario) {
  EppConfig c;
  auto first = [&c](const std::string& text) {
    const Diagnostics ds = parse_epp_config(text, "/x", c);
    return ds.empty() ? std::string() : ds[0].pointer + ": " + ds[0].message;
  };
  EXPECT_NE(first(R"({"kind": "EndpointPickerConfig", "kind": "EndpointPickerConfig"})")
                .find("appears twice"),
            std::string::npos);
  EXPECT_NE(first(R"({"plugins": []} trailing)").find("not valid JSON"), std::string::npos);
  EXPECT_NE(first("{\"a\": " + std::string(100000, '[') + std::string(100000, ']') + "}")
                .find("nesting deeper than 32"),
            std::string::npos);
}

TEST(EppParity, DocShowsTheGeneratedMatrix) {
  const std::string doc = read_file(std::string(BLIS_SOURCE_DIR) + "/docs/llm-d-parity.md");
  const std::size_t begin = doc.find(kParityBegin);
  const std::size_t end = doc.find(kParityEnd);
  ASSERT_NE(begin, std::string::npos);
  ASSERT_NE(end, std::string::npos);
  const std::size_t stop = end + std::string(kParityEnd).size() + 1;
  EXPECT_EQ(doc.substr(begin, stop - begin), parity_markdown())
      << "regenerate with: blis epp-plugins --update-docs .";
}

TEST(EppParity, EveryPluginHasASourceAndRule) {
  for (const PluginInfo& p : plugin_registry()) {
    EXPECT_FALSE(p.source.empty()) << p.type;
    EXPECT_FALSE(p.rule.empty()) << p.type;
    EXPECT_EQ(find_plugin(p.type), &p) << "listed twice: " << p.type;
  }
}

}  // namespace
}  // namespace blis::cluster::epp
