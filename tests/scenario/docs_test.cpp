// Keeps docs/scenario.md and docs/rules.md honest: every key the decoder accepts is in the
// scenario reference, and every pack, rule and connector is in the rules page.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rules/rules.h"
#include "scenario/schema_keys.h"

namespace blis::scenario {
namespace {

std::string read_doc(const std::string& name) {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/docs/" + name);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(Docs, ScenarioReferenceListsEveryKey) {
  const std::string doc = read_doc("scenario.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& object : keys::all_objects()) {
    for (const auto& key : object.keys) {
      EXPECT_NE(doc.find("`" + key + "`"), std::string::npos)
          << object.object << "." << key << " is not in docs/scenario.md";
    }
  }
}

TEST(Docs, RulesPageListsEveryPackRuleAndConnector) {
  const std::string doc = read_doc("rules.md");
  ASSERT_FALSE(doc.empty());
  for (const auto& release : rules::known_releases()) {
    const rules::Pack* pack = rules::find_pack(release);
    ASSERT_NE(pack, nullptr);
    EXPECT_NE(doc.find("`" + release + "`"), std::string::npos) << release;
    for (const auto& rule : pack->rules) {
      EXPECT_NE(doc.find("`" + rule.id + "`"), std::string::npos)
          << rule.id << " is not in docs/rules.md";
    }
    for (const auto& c : pack->connectors) {
      EXPECT_NE(doc.find("`" + c.name + "`"), std::string::npos) << c.name;
    }
    for (const auto& a : pack->unmodelled_args) {
      EXPECT_NE(doc.find("`" + a + "`"), std::string::npos) << a;
    }
  }
}

}  // namespace
}  // namespace blis::scenario
