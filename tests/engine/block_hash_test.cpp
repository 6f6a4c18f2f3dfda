// Block hashing keeps vLLM's equality semantics (kv_cache_utils.py hash_block_tokens):
// equal iff parent, tokens and extra keys are equal; no collisions among 10^6 blocks.
#include "engine/vllm/kv/block_hash.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "engine/vllm/request.h"
#include "sanitizer_share.h"

namespace blis::vllm {
namespace {

TEST(BlockHash, EqualInputsGiveEqualHashes) {
  const std::int32_t t[4] = {1, 2, 3, 4};
  EXPECT_EQ(hash_block_tokens(nullptr, t, 4, {}), hash_block_tokens(nullptr, t, 4, {}));
}

TEST(BlockHash, ParentTokensAndExtraKeysAllMatter) {
  const std::int32_t t[4] = {1, 2, 3, 4};
  const std::int32_t u[4] = {1, 2, 3, 5};
  const BlockHash base = hash_block_tokens(nullptr, t, 4, {});
  EXPECT_NE(base, hash_block_tokens(nullptr, u, 4, {}));
  EXPECT_NE(base, hash_block_tokens(&base, t, 4, {}));
  // A missing parent is NONE_HASH, which differs from any explicit zero parent.
  const BlockHash zero{};
  EXPECT_NE(base, hash_block_tokens(&zero, t, 4, {}));
  BlockExtraKeys lora;
  lora.lora_id = 7;
  EXPECT_NE(base, hash_block_tokens(nullptr, t, 4, lora));
  BlockExtraKeys lora8;
  lora8.lora_id = 8;
  EXPECT_NE(hash_block_tokens(nullptr, t, 4, lora), hash_block_tokens(nullptr, t, 4, lora8));
  BlockExtraKeys salt;
  salt.has_cache_salt = true;
  salt.cache_salt = 0;
  EXPECT_NE(base, hash_block_tokens(nullptr, t, 4, salt));
  // Token order and block length matter.
  const std::int32_t r[4] = {2, 1, 3, 4};
  EXPECT_NE(base, hash_block_tokens(nullptr, r, 4, {}));
  EXPECT_NE(base, hash_block_tokens(nullptr, t, 3, {}));
}

TEST(BlockHash, CacheSaltKeysOnlyTheFirstBlock) {
  Request a;
  set_token_ids(a, {1, 2, 3, 4, 5, 6, 7, 8});
  Request b = a;
  b.has_cache_salt = true;
  b.cache_salt = 42;
  update_block_hashes(a, 4);
  update_block_hashes(b, 4);
  ASSERT_EQ(a.block_hashes.size(), 2u);
  ASSERT_EQ(b.block_hashes.size(), 2u);
  EXPECT_NE(a.block_hashes[0], b.block_hashes[0]);
  // The second block's own extra keys are equal, but its parent differs (chained hash).
  EXPECT_NE(a.block_hashes[1], b.block_hashes[1]);
  EXPECT_EQ(b.extra_keys_for_block(1).has_cache_salt, false);
  EXPECT_EQ(b.extra_keys_for_block(0).has_cache_salt, true);
}

TEST(BlockHash, OnlyFullBlocksAreHashedAndHashesExtendIncrementally) {
  Request r;
  set_token_ids(r, {1, 2, 3, 4, 5, 6});
  update_block_hashes(r, 4);
  EXPECT_EQ(r.block_hashes.size(), 1u);
  append_output_token(r, 7);
  update_block_hashes(r, 4);
  EXPECT_EQ(r.block_hashes.size(), 1u);
  append_output_token(r, 8);
  update_block_hashes(r, 4);
  ASSERT_EQ(r.block_hashes.size(), 2u);
  Request whole;
  set_token_ids(whole, {1, 2, 3, 4, 5, 6, 7, 8});
  update_block_hashes(whole, 4);
  EXPECT_EQ(whole.block_hashes, r.block_hashes);
}

TEST(BlockHash, RecipeOutputsHashAndReadAsStoredOnes) {
  // Outputs held as a recipe (base + output index) give the same sequence and the same block
  // hashes as the same ids stored; an id off the recipe materializes the earlier ones.
  for (const std::int32_t block_size : {4, 5, 80}) {
    Request recipe;
    Request stored;
    for (Request* r : {&recipe, &stored}) {
      set_token_ids(*r, {9, 8, 7, 6, 5, 4});
      r->num_prompt_tokens = 6;
      r->output_token_base = 1000;
      update_block_hashes(*r, block_size);
    }
    const std::vector<std::int32_t> outputs = {1000, 1001, 1002, 1003, 1004, 1005, 1006,
                                               1007, 77,   1009, 1010, 1011, 1012};
    for (std::size_t k = 0; k < outputs.size(); ++k) {
      append_output_token(recipe, outputs[k]);
      stored.all_token_ids.push_back(outputs[k]);  // a stored token, off any recipe
      ++stored.num_all_tokens;
      update_block_hashes(recipe, block_size);
      update_block_hashes(stored, block_size);
      if (k == 6) {
        EXPECT_EQ(recipe.all_token_ids.size(), 6u);  // nothing stored yet
      }
      if (k == 7) {
        EXPECT_EQ(recipe.last_token(), 1007);
      }
    }
    ASSERT_EQ(recipe.num_tokens(), stored.num_tokens());
    for (std::int32_t i = 0; i < stored.num_tokens(); ++i)
      EXPECT_EQ(recipe.token_at(i), stored.token_at(i)) << i;
    EXPECT_EQ(recipe.num_recipe_outputs(), 4);  // 1009..1012 after the stored 77
    EXPECT_EQ(recipe.block_hashes, stored.block_hashes);
    materialize_outputs(recipe);
    EXPECT_EQ(recipe.all_token_ids, stored.all_token_ids);
  }
}

TEST(BlockHash, NoCollisionAmongAMillionDistinctBlocks) {
  // Distinct blocks: 10^6 (parent, tokens) pairs from chains of small, similar token ids,
  // the hardest case for a weak mixer (a quarter of the chains under ASan).
  const auto chains = static_cast<std::int32_t>(blis::test::sanitizer_share(1000));
  std::vector<BlockHash> hashes;
  hashes.reserve(static_cast<std::size_t>(chains) * 1000);
  std::int32_t tokens[16];
  for (std::int32_t chain = 0; chain < chains; ++chain) {
    BlockHash parent{};
    for (std::int32_t depth = 0; depth < 1000; ++depth) {
      for (std::int32_t k = 0; k < 16; ++k) tokens[k] = (k == depth % 16) ? chain : depth;
      const BlockHash h = hash_block_tokens(depth == 0 ? nullptr : &parent, tokens, 16, {});
      hashes.push_back(h);
      parent = h;
    }
  }
  std::sort(hashes.begin(), hashes.end(), [](const BlockHash& a, const BlockHash& b) {
    return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
  });
  EXPECT_EQ(std::adjacent_find(hashes.begin(), hashes.end()), hashes.end());
  // Each 64-bit half on its own is collision-free too (the lanes are independent).
  std::vector<std::uint64_t> lo;
  lo.reserve(hashes.size());
  for (const BlockHash& h : hashes) lo.push_back(h.lo);
  std::sort(lo.begin(), lo.end());
  EXPECT_EQ(std::adjacent_find(lo.begin(), lo.end()), lo.end());
}

TEST(BlockHash, IsPortable) {
  // Golden values: the same natively and in WASM (no size_t or libm dependence).
  const std::int32_t t[5] = {100, -1, 2147483647, 0, 31};
  const BlockHash h = hash_block_tokens(nullptr, t, 5, {});
  EXPECT_EQ(h.hi, 0x9d96633a3a81e6cdull);
  EXPECT_EQ(h.lo, 0xb07f6004988bb225ull);
  BlockExtraKeys k;
  k.lora_id = 3;
  k.has_cache_salt = true;
  k.cache_salt = 99;
  const BlockHash g = hash_block_tokens(&h, t, 4, k);
  EXPECT_EQ(g.hi, 0x5ac49c134fecf275ull);
  EXPECT_EQ(g.lo, 0xdfbbac175954a118ull);
}

}  // namespace
}  // namespace blis::vllm
