// "Did you mean": one edit distance, two rankings (catalog ids; keys and values).

#include "util/did_you_mean.h"

#include <gtest/gtest.h>

namespace blis {
namespace {

TEST(EditDistance, IgnoresAsciiCase) {
  EXPECT_EQ(edit_distance_ignoring_case("H100", "h100"), 0u);
  EXPECT_EQ(edit_distance_ignoring_case("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance_ignoring_case("", "abc"), 3u);
  EXPECT_EQ(edit_distance_ignoring_case("\xc3\xa9", "\xc3\x89"), 1u);  // bytes, not letters
}

TEST(ClosestIds, SubstringsFirstThenEditDistance) {
  const std::vector<std::string> ids = {"H100-SXM-80GB", "H200-SXM-141GB", "A100-SXM-80GB",
                                        "L4-24GB"};
  EXPECT_EQ(closest_ids("h100", ids, 1), (std::vector<std::string>{"H100-SXM-80GB"}));
  // An id that matches by name is the whole answer: no unrelated ids after it.
  EXPECT_EQ(closest_ids("H100-SXM-80G", ids, 2), (std::vector<std::string>{"H100-SXM-80GB"}));
  EXPECT_EQ(closest_ids("H100-SXM-80", ids, 2), (std::vector<std::string>{"H100-SXM-80GB"}));
  // Each word of a short name in the id counts as a match by name.
  EXPECT_EQ(closest_ids("sxm-h200", ids, 3), (std::vector<std::string>{"H200-SXM-141GB"}));
  EXPECT_EQ(closest_ids("sxm 80gb", ids, 3),
            (std::vector<std::string>{"A100-SXM-80GB", "H100-SXM-80GB"}));
  // No match by name: the nearest by edit distance.
  EXPECT_EQ(closest_ids("H300-SXM-80GB", ids, 2),
            (std::vector<std::string>{"H100-SXM-80GB", "A100-SXM-80GB"}));
  EXPECT_EQ(closest_ids("zzz", ids, 10).size(), 4u);
  EXPECT_TRUE(closest_ids("x", {}, 3).empty());
}

TEST(Closest, OnlyPlausibleCandidates) {
  const std::vector<std::string> keys = {"max_num_seqs", "max_num_batched_tokens", "block_size"};
  EXPECT_EQ(closest("max_num_seq", keys, 1), (std::vector<std::string>{"max_num_seqs"}));
  EXPECT_EQ(closest("BLOCK_SIZE", keys, 1), (std::vector<std::string>{"block_size"}));
  EXPECT_EQ(closest("max_num", keys, 2),  // prefixes count, ties keep the list's order
            (std::vector<std::string>{"max_num_seqs", "max_num_batched_tokens"}));
  EXPECT_TRUE(closest("temperature", keys, 1).empty());
  EXPECT_TRUE(closest(std::string(201, 'a'), keys, 1).empty());
}

TEST(QuotedList, JoinsWithOr) {
  EXPECT_EQ(quoted_list({"a"}), "\"a\"");
  EXPECT_EQ(quoted_list({"a", "b", "c"}), "\"a\", \"b\" or \"c\"");
  EXPECT_EQ(quoted_list({}), "");
}

}  // namespace
}  // namespace blis
