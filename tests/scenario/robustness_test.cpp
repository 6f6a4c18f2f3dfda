// The decoder never crashes or hangs, whatever the input: every prefix of a valid document,
// every leaf replaced by a value of another type, huge numbers, NaN-like strings, deep
// nesting and random byte damage. Each must end in diagnostics (or a scenario), not a throw.

#include <gtest/gtest.h>

#include <cctype>

#include "documents.h"
#include "sanitizer_share.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario {
namespace {

using nlohmann::json;

// The every-key document with its trace inline, so no file access is needed.
json full_document() {
  json doc = json::parse(testing::read_data("full.json"));
  doc["workload"]["clients"][3]["trace"] = {{"csv", testing::read_data("trace.csv")}};
  return doc;
}

void collect_leaves(const json& v, const std::string& ptr, std::vector<std::string>& out) {
  if (v.is_object() && !v.empty()) {
    for (auto it = v.begin(); it != v.end(); ++it)
      collect_leaves(it.value(), json_pointer_append(ptr, it.key()), out);
  } else if (v.is_array() && !v.empty()) {
    for (std::size_t i = 0; i < v.size(); ++i)
      collect_leaves(v[i], json_pointer_append(ptr, i), out);
  } else {
    out.push_back(ptr);
  }
}

bool is_prefix_pointer(const std::string& parent, const std::string& child) {
  return child == parent ||
         (child.size() > parent.size() && child.compare(0, parent.size(), parent) == 0 &&
          child[parent.size()] == '/');
}

TEST(Robustness, FullDocumentIsValid) {
  const DecodeResult r = decode_scenario(full_document().dump());
  EXPECT_TRUE(r.scenario.has_value());
}

TEST(Robustness, EveryPrefixOfADocument) {
  const std::string text = full_document().dump();
  std::size_t malformed = 0;
  for (std::size_t n = 0; n < text.size(); ++n) {
    const DecodeResult r = decode_scenario(text.substr(0, n));
    ASSERT_FALSE(r.scenario.has_value()) << n;
    ASSERT_FALSE(r.diagnostics.empty()) << n;
    malformed += r.malformed_json ? 1 : 0;
    EXPECT_NE(r.diagnostics.front().message.find("line 1, column"), std::string::npos) << n;
  }
  EXPECT_EQ(malformed, text.size());  // a proper prefix of one object is never JSON
}

// Each leaf replaced by a value of another JSON type must be refused at that leaf (or at an
// object above it, for rules spanning keys).
TEST(Robustness, WrongTypeAtEveryLeaf) {
  const json doc = full_document();
  std::vector<std::string> leaves;
  collect_leaves(doc, "", leaves);
  ASSERT_GT(leaves.size(), 100u);
  const std::vector<json> replacements = {"NaN",
                                          1e308,
                                          true,
                                          json::array(),
                                          json::object(),
                                          std::string(5000, 'x'),
                                          -9223372036854775807LL - 1};
  std::size_t checked = 0;
  for (const auto& leaf : leaves) {
    const json::json_pointer jp(leaf);
    for (const auto& value : replacements) {
      if (value.type() == doc[jp].type()) continue;
      if (value.is_number() && doc[jp].is_number()) continue;
      // vLLM's config classes read engine arguments in pydantic's lax mode, where true is the
      // int 1 and the float 1.0 (also for a number written human-readable, "8k") (a warning, not an
      // error; tests/rules/vllm_config_parity_test).
      const bool numeric =
          doc[jp].is_number() ||
          (doc[jp].is_string() && !doc[jp].get<std::string>().empty() &&
           std::isdigit(static_cast<unsigned char>(doc[jp].get<std::string>()[0])));
      if (value.is_boolean() && numeric && leaf.find("/engine/args/") != std::string::npos) {
        continue;
      }
      // A string where a string was is not a type error; other values stand in for it.
      json bad = doc;
      bad[jp] = value;
      const DecodeResult r = decode_scenario(bad.dump());
      ++checked;
      bool located = false;
      for (const auto& d : r.diagnostics) {
        // At the leaf, above it (rules spanning keys), or inside it (an object missing keys).
        if (d.severity == Severity::kError &&
            (is_prefix_pointer(d.pointer, leaf) || is_prefix_pointer(leaf, d.pointer) ||
             d.pointer == "")) {
          located = true;
        }
      }
      if (!located) {
        ADD_FAILURE() << leaf << " = " << value.dump().substr(0, 40) << " was accepted";
      }
    }
  }
  EXPECT_GT(checked, 500u);
}

TEST(Robustness, HugeAndOddNumbers) {
  for (const char* v :
       {"1e308", "-1e308", "18446744073709551616", "-9223372036854775809", "1e-320", "0.0", "-0"}) {
    for (const char* where :
         {"/horizon/duration_s", "/seed", "/pools/0/instances", "/pools/0/engine/args/max_num_seqs",
          "/workload/clients/0/load/rate", "/workload/clients/0/prompt_tokens/value"}) {
      json doc = testing::base_unified();
      const std::string text = doc.dump();
      json bad = doc;
      bad[json::json_pointer(where)] = json::parse(v);
      const DecodeResult r = decode_scenario(bad.dump());
      EXPECT_FALSE(r.malformed_json) << where << " " << v;
      (void)text;
    }
  }
}

TEST(Robustness, NanLikeStrings) {
  for (const char* v : {"NaN", "nan", "Infinity", "-inf", "1e999", "0x10", "", " 5 "}) {
    json bad = testing::base_unified();
    bad["pools"][0]["engine"]["args"]["gpu_memory_utilization"] = v;
    bad["horizon"]["duration_s"] = v;
    const DecodeResult r = decode_scenario(bad.dump());
    EXPECT_FALSE(r.scenario.has_value()) << v;
  }
}

TEST(Robustness, DeepNestingInsideAValidKey) {
  for (int depth : {10, 60, 63, 64, 65, 1000, 100000}) {
    std::string inner;
    for (int i = 0; i < depth; ++i) inner += "[";
    for (int i = 0; i < depth; ++i) inner += "]";
    json doc = testing::base_unified();
    std::string text = doc.dump();
    std::string extra = ",\"catalog\":{\"gpus\":";
    extra += inner;
    extra += "}";
    text.insert(text.size() - 1, extra);
    const DecodeResult r = decode_scenario(text);
    EXPECT_FALSE(r.scenario.has_value()) << depth;
    EXPECT_FALSE(r.diagnostics.empty()) << depth;
  }
}

TEST(Robustness, RandomByteDamage) {
  const std::string text = full_document().dump(2);
  std::uint64_t state = 0x9E3779B97F4A7C15ULL;
  const auto next = [&] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  const char alphabet[] = "{}[]\":,0123456789-.eE+ntfalsrux\\ \n\t\xc3\xa9\xff";
  for (std::int64_t round = 0; round < blis::test::sanitizer_share(1500); ++round) {
    std::string damaged = text;
    const int edits = 1 + static_cast<int>(next() % 4);
    for (int e = 0; e < edits; ++e) {
      const std::size_t pos = next() % damaged.size();
      switch (next() % 3) {
        case 0:
          damaged[pos] = alphabet[next() % (sizeof(alphabet) - 1)];
          break;
        case 1:
          damaged.erase(pos, 1 + next() % 8);
          break;
        default:
          damaged.insert(pos, 1, alphabet[next() % (sizeof(alphabet) - 1)]);
          break;
      }
      if (damaged.empty()) damaged.push_back('{');
    }
    const DecodeResult r = decode_scenario(damaged);
    if (!r.scenario) {
      ASSERT_FALSE(r.diagnostics.empty()) << round;
    }
  }
}

}  // namespace
}  // namespace blis::scenario
