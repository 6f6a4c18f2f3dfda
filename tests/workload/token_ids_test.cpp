#include "cluster/workload/token_ids.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

namespace blis::cluster {
namespace {

TEST(TokenIds, SameKeySameIdsInVocabRange) {
  std::vector<std::int32_t> a, b;
  append_token_ids(42, 1001, a);
  append_token_ids(42, 1001, b);
  ASSERT_EQ(a.size(), 1001u);
  EXPECT_EQ(a, b);
  for (std::int32_t id : a) {
    EXPECT_GE(id, kFirstTokenId);
    EXPECT_LT(id, kVocabEnd);
  }
  std::set<std::int32_t> distinct(a.begin(), a.end());
  EXPECT_GT(distinct.size(), 950u);  // ~985 expected for 1001 draws over 31900 ids
}

TEST(TokenIds, ShorterSequenceIsAPrefixOfALongerOne) {
  // A trace's prefix group hands out the first L ids of one sequence for any L.
  std::vector<std::int32_t> longer;
  append_token_ids(7, 64, longer);
  for (std::int32_t n : {0, 1, 2, 3, 17, 63}) {
    std::vector<std::int32_t> shorter;
    append_token_ids(7, n, shorter);
    EXPECT_TRUE(std::equal(shorter.begin(), shorter.end(), longer.begin())) << "n=" << n;
  }
}

TEST(TokenIds, AppendsAfterExistingIds) {
  std::vector<std::int32_t> v = {1, 2, 3};
  append_token_ids(9, 4, v);
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0], 1);
  EXPECT_EQ(v[2], 3);
}

TEST(TokenIds, DerivedKeysAreDistinctAndStable) {
  std::set<std::uint64_t> keys;
  for (std::uint64_t i = 0; i < 10000; ++i) keys.insert(derive_key(123, i));
  EXPECT_EQ(keys.size(), 10000u);
  EXPECT_EQ(derive_key(123, 5), derive_key(123, 5));
  EXPECT_NE(derive_key(123, 5), derive_key(124, 5));
  // Unrelated keys give unrelated sequences: no shared leading block.
  std::vector<std::int32_t> a, b;
  append_token_ids(derive_key(1, 0), 16, a);
  append_token_ids(derive_key(1, 1), 16, b);
  EXPECT_NE(a, b);
}

TEST(TokenIds, OutputBaseInVocabAndKeyed) {
  EXPECT_EQ(output_token_base(5), output_token_base(5));
  std::set<std::int32_t> bases;
  for (std::uint64_t k = 0; k < 100; ++k) {
    const std::int32_t b = output_token_base(derive_key(77, k));
    EXPECT_GE(b, kFirstTokenId);
    EXPECT_LT(b, kVocabEnd);
    bases.insert(b);
  }
  EXPECT_GT(bases.size(), 95u);
}

}  // namespace
}  // namespace blis::cluster
