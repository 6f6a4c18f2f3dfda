// FreeKVCacheBlockQueue: O(1) pop head / remove middle / append tail / prepend head.
#include "engine/vllm/kv/free_block_queue.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace blis::vllm {
namespace {

struct QueueFixture {
  explicit QueueFixture(std::int32_t n) : blocks(static_cast<std::size_t>(n) + 2), q(&blocks, n) {
    for (std::int32_t i = 0; i < n + 2; ++i) blocks[static_cast<std::size_t>(i)].block_id = i;
  }
  std::vector<KVCacheBlock> blocks;
  FreeBlockQueue q;
};

TEST(FreeBlockQueue, StartsInIdOrder) {
  QueueFixture f(5);
  EXPECT_EQ(f.q.num_free_blocks(), 5);
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{0, 1, 2, 3, 4}));
}

TEST(FreeBlockQueue, PopsFromTheHeadAndAppendsAtTheTail) {
  QueueFixture f(4);
  EXPECT_EQ(f.q.popleft(), 0);
  EXPECT_EQ(f.q.popleft(), 1);
  f.q.append(0);
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{2, 3, 0}));
  std::vector<std::int32_t> out;
  f.q.popleft_n(2, out);
  EXPECT_EQ(out, (std::vector<std::int32_t>{2, 3}));
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{0}));
  EXPECT_EQ(f.q.num_free_blocks(), 1);
}

TEST(FreeBlockQueue, RemovesFromTheMiddle) {
  QueueFixture f(5);
  f.q.remove(2);
  f.q.remove(0);
  f.q.remove(4);
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{1, 3}));
  EXPECT_FALSE(f.q.contains(2));
  EXPECT_THROW(f.q.remove(2), std::logic_error);
}

TEST(FreeBlockQueue, PrependKeepsTheGivenOrderAtTheFront) {
  QueueFixture f(6);
  std::vector<std::int32_t> out;
  f.q.popleft_n(3, out);  // 0 1 2 out; queue 3 4 5
  const std::int32_t front[] = {2, 0};
  f.q.prepend_n(front);
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{2, 0, 3, 4, 5}));
  const std::int32_t tail[] = {1};
  f.q.append_n(tail);
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{2, 0, 3, 4, 5, 1}));
  EXPECT_EQ(f.q.num_free_blocks(), 6);
}

TEST(FreeBlockQueue, EmptyQueueOperations) {
  QueueFixture f(2);
  std::vector<std::int32_t> out;
  f.q.popleft_n(2, out);
  EXPECT_EQ(f.q.num_free_blocks(), 0);
  EXPECT_THROW(f.q.popleft(), std::logic_error);
  EXPECT_THROW(f.q.popleft_n(1, out), std::logic_error);
  const std::int32_t ids[] = {1, 0};
  f.q.prepend_n(ids);
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{1, 0}));
}

}  // namespace
}  // namespace blis::vllm
