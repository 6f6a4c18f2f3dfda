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

// A two-word key with its own traits (the engine's prefix-cache index keys 128-bit hashes):
// try_emplace, find_index / erase_at and for_each against std::map; reserve() never changes
// contents.
struct Key2 {
  std::uint64_t hi = 0, lo = 0;
  friend bool operator==(const Key2& a, const Key2& b) { return a.hi == b.hi && a.lo == b.lo; }
  bool operator<(const Key2& o) const { return hi != o.hi ? hi < o.hi : lo < o.lo; }
};
struct Key2Traits {
  static constexpr Key2 empty() { return Key2{0, 0}; }
  static bool is_empty(const Key2& k) { return k.hi == 0 && k.lo == 0; }
  static std::size_t hash(const Key2& k) { return static_cast<std::size_t>(k.lo * 31 + k.hi); }
};

TEST(FlatHashMap, TwoWordKeysBehaveLikeAMap) {
  BasicFlatHashMap<Key2, int, Key2Traits> m;
  m.reserve(100);
  std::map<Key2, int> ref;
  Rng rng(11);
  for (int i = 0; i < 20000; ++i) {
    const Key2 k{static_cast<std::uint64_t>(rng.uniform_int(0, 40)),
                 static_cast<std::uint64_t>(rng.uniform_int(0, 40))};
    if (rng.uniform01() < 0.4) {
      const std::size_t at = m.find_index(k);
      ASSERT_EQ(at != m.kNpos, ref.count(k) == 1);
      if (at != m.kNpos) m.erase_at(at);
      ref.erase(k);
    } else {
      bool inserted = false;
      int* v = m.try_emplace(k, i, &inserted);
      if (Key2Traits::is_empty(k)) {
        EXPECT_EQ(v, nullptr);  // the reserved key is never stored
        continue;
      }
      EXPECT_EQ(inserted, ref.count(k) == 0);
      if (inserted) ref[k] = i;
      EXPECT_EQ(*v, ref[k]);
    }
  }
  std::map<Key2, int> seen;
  m.for_each([&](const Key2& k, int& v) { seen[k] = v; });
  EXPECT_EQ(seen, ref);
  EXPECT_EQ(m.size(), ref.size());
  m.clear();
  EXPECT_EQ(m.size(), 0u);
  EXPECT_EQ(m.find(ref.begin()->first), nullptr);
}

}  // namespace
}  // namespace blis
