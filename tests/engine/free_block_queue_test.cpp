// FreeKVCacheBlockQueue: O(1) pop head / remove middle / append tail / prepend head, in the
// linked list's order.
#include "engine/vllm/kv/free_block_queue.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <list>
#include <stdexcept>
#include <vector>

namespace blis::vllm {
namespace {

struct QueueFixture {
  explicit QueueFixture(std::int32_t n) : blocks(static_cast<std::size_t>(n)), q(&blocks, n) {
    for (std::int32_t i = 0; i < n; ++i) blocks[static_cast<std::size_t>(i)].block_id = i;
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

// The ring (free_block_queue.h) keeps exactly the order of vLLM's linked list through holes
// (removals from the middle), prepends and compactions: random operations on a few blocks
// (so the 64-slot ring fills with holes and compacts many times) against a std::list.
TEST(FreeBlockQueue, KeepsTheLinkedListOrderThroughHolesAndCompactions) {
  for (const std::int32_t n : {1, 3, 7, 40}) {
    QueueFixture f(n);
    std::list<std::int32_t> ref;
    for (std::int32_t i = 0; i < n; ++i) ref.push_back(i);
    std::vector<std::int32_t> out;
    std::uint64_t x = 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(n);
    const auto next = [&x](std::uint64_t m) {
      x = x * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<std::int32_t>((x >> 33) % m);
    };
    for (int op = 0; op < 20000; ++op) {
      std::vector<std::int32_t> taken;  // blocks not in the queue
      for (std::int32_t b = 0; b < n; ++b)
        if (!f.q.contains(b)) taken.push_back(b);
      // For three quarters of every 2,000 ops only touches behind the head and frees: the
      // head stays, the holes stay behind it, and the ring fills and compacts.
      const bool hold_head = op % 2000 < 1500;
      const std::int32_t kind = hold_head ? 1 + next(2) : next(4);
      if (kind == 0 && !ref.empty()) {  // pop up to 3 from the head
        const std::int32_t k = 1 + next(std::min<std::uint64_t>(3, ref.size()));
        out.clear();
        f.q.popleft_n(k, out);
        for (std::int32_t i = 0; i < k; ++i) {
          ASSERT_EQ(out[static_cast<std::size_t>(i)], ref.front());
          ref.pop_front();
        }
      } else if (kind == 1 && ref.size() > (hold_head ? 1u : 0u)) {  // a touch
        auto it = ref.begin();
        std::advance(it, hold_head ? 1 + next(ref.size() - 1) : next(ref.size()));
        f.q.remove(*it);
        ref.erase(it);
      } else if (kind == 2 && !taken.empty()) {  // append
        const std::int32_t b = taken[static_cast<std::size_t>(next(taken.size()))];
        f.q.append(b);
        ref.push_back(b);
      } else if (kind == 3 && !taken.empty()) {  // prepend up to 2
        std::vector<std::int32_t> ids{taken[static_cast<std::size_t>(next(taken.size()))]};
        if (taken.size() > 1 && next(2) == 0) {
          const std::int32_t other = taken[static_cast<std::size_t>(next(taken.size()))];
          if (other != ids[0]) ids.push_back(other);
        }
        f.q.prepend_n(ids);
        ref.insert(ref.begin(), ids.begin(), ids.end());
      }
      ASSERT_EQ(f.q.num_free_blocks(), static_cast<std::int32_t>(ref.size()));
      ASSERT_EQ(f.q.all_free_blocks(), std::vector<std::int32_t>(ref.begin(), ref.end()))
          << "n " << n << " op " << op;
      std::int32_t first = 0, second = 0;
      f.q.front_two(first, second);
      ASSERT_EQ(first, ref.empty() ? kNoBlock : ref.front());
      // The second is the list's second, or not found within the look-ahead (a hint).
      if (second != kNoBlock) {
        ASSERT_EQ(second, *std::next(ref.begin()));
      }
      if (ref.size() < 2) {
        ASSERT_EQ(second, kNoBlock);
      }
    }
  }
}

// A head that stays while the blocks behind it are touched and freed again and again: the
// holes pile up behind the head until the ring is full, and the ids are copied down.
TEST(FreeBlockQueue, CompactsWhenHolesFillTheRing) {
  QueueFixture f(8);
  std::list<std::int32_t> ref{0, 1, 2, 3, 4, 5, 6, 7};
  for (int i = 0; i < 1000; ++i) {
    const std::int32_t b = *std::next(ref.begin());  // the oldest block behind the head
    f.q.remove(b);
    f.q.append(b);
    ref.erase(std::next(ref.begin()));
    ref.push_back(b);
    ASSERT_EQ(f.q.all_free_blocks(), std::vector<std::int32_t>(ref.begin(), ref.end())) << i;
  }
  EXPECT_GE(f.q.compactions(), 5);  // a 128-slot ring: one every ~100 frees
  std::vector<std::int32_t> out;
  f.q.popleft_n(8, out);
  EXPECT_EQ(out, std::vector<std::int32_t>(ref.begin(), ref.end()));
}

// front_two: the head always, and the second block when it lies within 8 slots of it; more
// holes than that behind the head (touches behind a head that stays) end the look-ahead, so a
// call never rescans them.
TEST(FreeBlockQueue, FrontTwoLooksAShortWayPastTheHead) {
  QueueFixture f(20);
  std::int32_t first = 0, second = 0;
  f.q.front_two(first, second);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 1);
  for (std::int32_t b = 1; b <= 7; ++b) f.q.remove(b);  // 7 holes: block 8 is 8 slots on
  f.q.front_two(first, second);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, 8);
  f.q.remove(8);  // 8 holes: block 9 is beyond the look-ahead
  f.q.front_two(first, second);
  EXPECT_EQ(first, 0);
  EXPECT_EQ(second, kNoBlock);
  std::vector<std::int32_t> out;
  f.q.popleft_n(1, out);  // the head moves past the holes
  f.q.front_two(first, second);
  EXPECT_EQ(first, 9);
  EXPECT_EQ(second, 10);
  f.q.popleft_n(11, out);
  f.q.front_two(first, second);
  EXPECT_EQ(first, kNoBlock);
  EXPECT_EQ(second, kNoBlock);
}

TEST(FreeBlockQueue, RefusesToQueueABlockTwice) {
  QueueFixture f(3);
  EXPECT_THROW(f.q.append(1), std::logic_error);
  const std::int32_t ids[] = {2};
  EXPECT_THROW(f.q.prepend_n(ids), std::logic_error);
  EXPECT_EQ(f.q.all_free_blocks(), (std::vector<std::int32_t>{0, 1, 2}));
}

}  // namespace
}  // namespace blis::vllm
