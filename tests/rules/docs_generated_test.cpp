// docs/rules.md is generated from the packs (`blis rules --markdown`): the checked-in file
// must equal the generator's output, so the page cannot drift from the rules.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "rules/rules.h"

namespace blis::rules {
namespace {

TEST(RulesDoc, CheckedInFileIsTheGeneratorsOutput) {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/docs/rules.md", std::ios::binary);
  ASSERT_TRUE(in) << "docs/rules.md is missing";
  std::ostringstream s;
  s << in.rdbuf();
  EXPECT_TRUE(s.str() == rules_markdown())
      << "docs/rules.md is stale: run `blis rules --markdown > docs/rules.md`";
}

TEST(RulesDoc, CitesNoInternalIndexIds) {
  const std::string md = rules_markdown();
  EXPECT_EQ(md.find("idx:"), std::string::npos);
  EXPECT_EQ(md.find("../shared"), std::string::npos);
}

TEST(RulesDoc, EveryArgumentHasItsConstraintAndSource) {
  for (const auto& release : known_releases()) {
    const Pack* p = find_pack(release);
    for (const auto& a : p->args) {
      EXPECT_FALSE(a.constraint.empty()) << release << " " << a.key;
      EXPECT_FALSE(a.source.empty()) << release << " " << a.key;
      EXPECT_FALSE(a.default_text.empty()) << release << " " << a.key;
      EXPECT_NE(rules_markdown().find("`" + a.key + "`"), std::string::npos) << a.key;
    }
  }
}

}  // namespace
}  // namespace blis::rules
