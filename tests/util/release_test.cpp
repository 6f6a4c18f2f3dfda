// One reading of vLLM release strings (util/release.h), shared by the rules packs and the
// metrics model.

#include "util/release.h"

#include <gtest/gtest.h>

namespace blis {
namespace {

TEST(ReleaseVersion, ReadsLinesPatchesAndBareMinors) {
  const auto a = parse_release_version("0.32.4");
  ASSERT_TRUE(a);
  EXPECT_EQ(a->major, 0);
  EXPECT_EQ(a->minor, 32);
  EXPECT_EQ(a->patch, 4);
  EXPECT_FALSE(a->any_patch);
  const auto line = parse_release_version("0.29.x");
  ASSERT_TRUE(line);
  EXPECT_TRUE(line->any_patch);
  EXPECT_FALSE(line->patch);
  const auto bare = parse_release_version("0.31");
  ASSERT_TRUE(bare);
  EXPECT_FALSE(bare->patch);
  EXPECT_FALSE(bare->any_patch);
}

TEST(ReleaseVersion, RefusesAnythingElse) {
  for (const char* bad : {"", "0", "0.", "0.32.", "0.32.0rc1", "0.29.y", "0.29.x1", "v0.32",
                          " 0.32", "0.032", "0.32.00", "0..32"}) {
    EXPECT_FALSE(parse_release_version(bad)) << bad;
  }
}

TEST(ReleaseVersion, MatchesByMinorAndOpenPatch) {
  auto v = [](const char* s) { return *parse_release_version(s); };
  EXPECT_TRUE(release_matches(v("0.29.3"), v("0.29.x")));
  EXPECT_TRUE(release_matches(v("0.29"), v("0.29.x")));
  EXPECT_TRUE(release_matches(v("0.29.x"), v("0.29.x")));
  EXPECT_TRUE(release_matches(v("0.31"), v("0.31.0")));
  EXPECT_TRUE(release_matches(v("0.31.0"), v("0.31.0")));
  EXPECT_FALSE(release_matches(v("0.31.2"), v("0.31.0")));  // a pack for one patch only
  EXPECT_FALSE(release_matches(v("0.31.x"), v("0.31.0")));
  EXPECT_FALSE(release_matches(v("0.30.0"), v("0.29.x")));
  EXPECT_FALSE(release_matches(v("1.29.0"), v("0.29.x")));
}

}  // namespace
}  // namespace blis
