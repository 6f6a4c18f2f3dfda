// Documents from strangers (issue 12): names that would become paths, files they name, echoed
// text. Each case failed (was accepted, or echoed raw) before the fix.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "documents.h"
#include "scenario/scenario_decode.h"
#include "scenario/trace_csv.h"

namespace blis::scenario {
namespace {

using nlohmann::json;

using ::blis::testing::all_diagnostics;

// The error at `pointer` whose message holds `text` (empty when there is none).
std::string error_at(const DecodeResult& r, const std::string& pointer, const std::string& text) {
  for (const auto& d : r.diagnostics) {
    if (d.severity == Severity::kError && d.pointer == pointer &&
        d.message.find(text) != std::string::npos) {
      return d.message;
    }
  }
  return "";
}

bool no_raw_controls(const Diagnostics& ds) {
  for (const auto& d : ds) {
    for (char c : format_diagnostic(d)) {
      if (static_cast<unsigned char>(c) < 0x20) return false;
    }
  }
  return true;
}

TEST(Hostile, PoolNamesThatWouldBePathsAreRefused) {
  for (const std::string& name :
       {std::string("/tmp/evil"), std::string("../../x"), std::string("/"), std::string("a/b"),
        std::string("a\nb"), std::string(".."), std::string(251, 'a')}) {
    json doc = testing::base_unified();
    doc["pools"][0]["name"] = name;
    const DecodeResult r = decode_scenario(doc.dump());
    EXPECT_FALSE(r.scenario) << name;
    EXPECT_NE(error_at(r, "/pools/0/name", "file name"), "") << name << "\n"
                                                             << all_diagnostics(r.diagnostics);
    EXPECT_TRUE(no_raw_controls(r.diagnostics)) << all_diagnostics(r.diagnostics);
  }
}

TEST(Hostile, ClientNamesAreBoundedLabels) {
  for (const std::string& name : {std::string("a\nb"), std::string(129, 'c'), std::string("")}) {
    json doc = testing::base_unified();
    doc["workload"]["clients"][0]["name"] = name;
    const DecodeResult r = decode_scenario(doc.dump());
    EXPECT_FALSE(r.scenario) << name;
    EXPECT_NE(error_at(r, "/workload/clients/0/name", ""), "") << all_diagnostics(r.diagnostics);
    EXPECT_TRUE(no_raw_controls(r.diagnostics)) << all_diagnostics(r.diagnostics);
  }
  json doc = testing::base_unified();
  doc["workload"]["clients"][0]["name"] = "chat, \"quoted\"";  // fine: requests.csv quotes it
  EXPECT_TRUE(decode_scenario(doc.dump()).scenario);
}

TEST(Hostile, ReaderErrorsAreQuotedEscapedAndShort) {
  json doc = testing::base_unified();
  doc["workload"] = {
      {"trace_csv", {{"path", std::string("x\n/forged: line ") + std::string(500, 'y')}}}};
  DecodeOptions o;
  o.read_file = [](const std::string&, std::string* e) -> std::optional<std::string> {
    *e = "not a regular file";
    return std::nullopt;
  };
  const DecodeResult r = decode_scenario(doc.dump(), o);
  const std::string m = error_at(r, "/workload/trace_csv/path", "cannot read the trace");
  ASSERT_NE(m, "") << all_diagnostics(r.diagnostics);
  EXPECT_TRUE(no_raw_controls(r.diagnostics));
  EXPECT_LT(m.size(), 300u);
}

TEST(Hostile, TraceErrorsNeverEchoWholeLines) {
  // /etc/passwd-like text: each line is one long cell.
  std::string text;
  for (int i = 0; i < 50; ++i) {
    text += "user" + std::to_string(i) + ":x:1000:1000:Secret Name\x1b[2J:/home/user:/bin/sh\n";
  }
  const Diagnostics ds = validate_trace_csv(text, "/t");
  ASSERT_FALSE(ds.empty());
  EXPECT_LE(ds.size(), kMaxTraceErrors + 1);
  EXPECT_TRUE(no_raw_controls(ds));
  for (const auto& d : ds) {
    EXPECT_EQ(d.message.find("/home/user"), std::string::npos) << d.message;
    EXPECT_EQ(d.message.find("Secret"), std::string::npos) << d.message;
  }
  EXPECT_NE(ds.back().message.find("more errors"), std::string::npos);
}

TEST(Hostile, DuplicateKeysAreErrorsAtTheirObject) {
  const std::string base = testing::base_unified().dump();
  // {"schema": ..., "schema": ...} at the root, and twice inside the first pool.
  std::string text = base;
  text.insert(1, "\"seed\": 1, \"seed\": 2, ");
  DecodeResult r = decode_scenario(text);
  EXPECT_FALSE(r.scenario);
  EXPECT_FALSE(r.malformed_json);  // valid JSON syntax, refused as a scenario (exit 2)
  EXPECT_NE(error_at(r, "", "the key \"seed\" appears twice"), "")
      << all_diagnostics(r.diagnostics);
  text = base;
  const auto at = text.find("\"name\":\"main\"");
  ASSERT_NE(at, std::string::npos);
  text.insert(at, "\"name\":\"x\",");
  r = decode_scenario(text);
  EXPECT_NE(error_at(r, "/pools/0", "the key \"name\" appears twice"), "")
      << all_diagnostics(r.diagnostics);
}

TEST(Hostile, BytesAfterTheDocumentAreErrors) {
  const std::string base = testing::base_unified().dump();
  for (const std::string& tail :
       {std::string("\0garbage", 8), std::string(" x"), std::string("{}"), std::string("\0", 1)}) {
    const DecodeResult r = decode_scenario(base + tail);
    EXPECT_FALSE(r.scenario) << tail;
    EXPECT_TRUE(r.malformed_json) << tail;
  }
  EXPECT_TRUE(decode_scenario(base + "\n\t ").scenario);  // trailing whitespace is fine
}

// The hostile corpus (tests/hostile, not-a-document-12): the CLI prints a malformed-JSON
// message as it is (`blis validate: FILE: MESSAGE`), and nlohmann's "last read: '...'" quoted
// half a UTF-8 character (the text "\xc3\xbf\xc3\xbe{}") or a control byte raw.
TEST(Hostile, MalformedJsonMessagesAreEscapedAtTheSource) {
  for (const std::string& text :
       {std::string("\xc3\xbf\xc3\xbe{}"), std::string("{\"a\":\x1b[31m}"), std::string("\xff"),
        std::string("[1,\x7f]")}) {
    const DecodeResult r = decode_scenario(text);
    ASSERT_TRUE(r.malformed_json) << text;
    for (const auto& d : r.diagnostics) {
      EXPECT_EQ(d.message.find_first_of("\x1b\x7f\xc3\xff"), std::string::npos) << d.message;
      EXPECT_NE(d.message.find("malformed JSON"), std::string::npos) << d.message;
    }
  }
}

TEST(Hostile, DiagnosticsAreCapped) {
  // 1000 unknown keys: 50 reported, then one "... and N more".
  json doc = testing::base_unified();
  for (int i = 0; i < 1000; ++i) doc["bogus" + std::to_string(i)] = i;
  DecodeResult r = decode_scenario(doc.dump());
  ASSERT_EQ(r.diagnostics.size(), kMaxDiagnostics + 1);
  EXPECT_EQ(r.diagnostics.back().message, "\u2026 and 950 more");
  EXPECT_EQ(r.diagnostics.back().severity, Severity::kError);
  // A million empty pools: one error at /pools, quickly. The array is spliced into the
  // document's text (not built as a json value and dumped), so the decoder's parse is the one
  // pass over it: under ASan the test's own parse and dump were two thirds of its time.
  std::string pools = "[";
  for (int i = 0; i < 1000000; ++i) pools += i ? ",{}" : "{}";
  pools += "]";
  doc = testing::base_unified();
  doc["pools"] = "@pools@";
  std::string text = doc.dump();
  const std::string marker = "\"@pools@\"";
  const std::size_t at = text.find(marker);
  ASSERT_NE(at, std::string::npos);
  text.replace(at, marker.size(), pools);
  r = decode_scenario(text);
  EXPECT_NE(error_at(r, "/pools", "holds 1000000 pools, at most 1000"), "")
      << all_diagnostics(r.diagnostics);
  EXPECT_LE(r.diagnostics.size(), kMaxDiagnostics + 1);
}

TEST(Hostile, EchoedTextIsOneBoundedLine) {
  json doc = testing::base_unified();
  doc["pools"][0]["hardware"] = "H100\n/forged: ok\x1b[2J" + std::string(100000, 'x');
  doc["pools"][0]["engine"]["release"] = std::string("0.32.0\r\nwarning: fake");
  doc["bad\nkey\x1b"] = 1;
  const DecodeResult r = decode_scenario(doc.dump());
  ASSERT_FALSE(r.diagnostics.empty());
  EXPECT_TRUE(no_raw_controls(r.diagnostics)) << all_diagnostics(r.diagnostics);
  for (const auto& d : r.diagnostics) EXPECT_LT(format_diagnostic(d).size(), 1300u);
}

}  // namespace
}  // namespace blis::scenario
