// util/flat_hash_map.h against std::map, with the two reserved-key choices the project uses
// (0 for the router's prefix index, ~0 for the engine's request keys).

#include "util/flat_hash_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>

#include "util/rng.h"

namespace blis {
namespace {

struct Ref {
  std::int32_t index = -1;
  std::uint32_t gen = 0;
};

template <std::uint64_t kEmpty>
void random_operations_match_a_map(std::uint64_t lo) {
  FlatHashMap<Ref, kEmpty> m;
  std::map<std::uint64_t, Ref> ref;
  Rng rng(7);
  for (int i = 0; i < 20000; ++i) {
    // A small key range so erases hit and probe runs form.
    const std::uint64_t k = lo + static_cast<std::uint64_t>(rng.uniform_int(0, 2999));
    if (rng.uniform01() < 0.4) {
      EXPECT_EQ(m.erase(k), ref.erase(k) == 1);
    } else {
      const Ref v{static_cast<std::int32_t>(rng.uniform_int(0, 1000)),
                  static_cast<std::uint32_t>(i)};
      m.put(k, v);
      ref[k] = v;
    }
    if (i % 211 == 0) {
      for (std::uint64_t q = lo; q < lo + 3000; ++q) {
        const auto it = ref.find(q);
        const Ref* got = m.find(q);
        ASSERT_EQ(got != nullptr, it != ref.end()) << q;
        if (got != nullptr) {
          EXPECT_EQ(got->index, it->second.index);
          EXPECT_EQ(got->gen, it->second.gen);
        }
      }
    }
  }
  EXPECT_EQ(m.size(), ref.size());
}

TEST(FlatHashMap, BehavesLikeAMapWithZeroReserved) {
  random_operations_match_a_map<0>(1);
}

TEST(FlatHashMap, BehavesLikeAMapWithTheLargestKeyReserved) {
  random_operations_match_a_map<std::numeric_limits<std::uint64_t>::max()>(0);  // 0 is a key
}

TEST(FlatHashMap, TheReservedKeyIsNeverStored) {
  FlatHashMap<int> m;
  m.put(0, 5);
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.find(0), nullptr);
  EXPECT_FALSE(m.erase(0));
}

}  // namespace
}  // namespace blis
