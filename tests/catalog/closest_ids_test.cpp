#include "catalog/closest_ids.h"

#include <gtest/gtest.h>

#include "catalog/catalog.h"

namespace blis::catalog {
namespace {

TEST(ClosestIds, SubstringsFirstThenEditDistance) {
  const std::vector<std::string> ids = {"H100-SXM-80GB", "H200-SXM-141GB", "A100-SXM-80GB",
                                        "L4-24GB"};
  EXPECT_EQ(closest_ids("h100", ids, 1), (std::vector<std::string>{"H100-SXM-80GB"}));
  EXPECT_EQ(closest_ids("H100-SXM-80G", ids, 2),
            (std::vector<std::string>{"H100-SXM-80GB", "A100-SXM-80GB"}));
  EXPECT_EQ(closest_ids("zzz", ids, 10).size(), 4u);
  EXPECT_TRUE(closest_ids("x", {}, 3).empty());
}

TEST(ClosestIds, FindsModelsByTheirShortName) {
  const auto near = closest_ids("Llama-3.1-8B", Catalog::builtin().model_ids());
  ASSERT_FALSE(near.empty());
  EXPECT_EQ(near.front(), "meta-llama/Llama-3.1-8B-Instruct");
}

TEST(ClosestIds, QuotedList) {
  EXPECT_EQ(quoted_list({"a"}), "\"a\"");
  EXPECT_EQ(quoted_list({"a", "b", "c"}), "\"a\", \"b\" or \"c\"");
  EXPECT_EQ(quoted_list({}), "");
}

}  // namespace
}  // namespace blis::catalog
