#pragma once
// BasicFlatHashMap<K, V, Traits>: an open-addressing hash table (linear probing, power-of-two
// capacity, load factor <= 1/2, backward-shift deletion, so no tombstones). Lookups, inserts
// and erases allocate nothing except when the table grows, so a map sized by its peak (or by
// reserve()) is allocation-free in steady state. The one such table of the project:
//   FlatHashMap<V, kEmpty>: uint64 keys -- the router's prefix index (cluster/flat_hash_map.h)
//     and the engine's request-key index (engine/vllm/key_index.h);
//   the engine's prefix-cache index (engine/vllm/kv/block_hash_index.h): 128-bit block hashes.
// Traits give the key's hash, the reserved key that marks free slots (`empty()`, never
// stored: put() of it is ignored, find() of it misses) and the test for it (`is_empty`).
// Nothing reads its layout into an output: for_each() visits in slot order, which callers use
// only for work whose result does not depend on the order (clearing links).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace blis {

template <class K, class V, class Traits>
class BasicFlatHashMap {
 public:
  // The value of `key`, or nullptr.
  const V* find(const K& key) const {
    if (slots_.empty() || Traits::is_empty(key)) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (Traits::is_empty(s.key)) return nullptr;
    }
  }
  V* find(const K& key) {
    return const_cast<V*>(static_cast<const BasicFlatHashMap*>(this)->find(key));
  }
  // Starts loading key's home slot into the cache (no effect on contents): a caller about to
  // look up many independent keys issues these first so the cache misses overlap.
  void prefetch(const K& key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[home(key)]);
  }
  // Inserts or overwrites.
  void put(const K& key, V value) {
    if (V* v = try_emplace(key, value)) *v = std::move(value);
  }
  // The value of `key`, inserting `value` first when absent (`inserted` says which); nullptr
  // for the reserved key. The pointer is valid until the next insert.
  V* try_emplace(const K& key, const V& value, bool* inserted = nullptr) {
    if (inserted != nullptr) *inserted = false;
    if (Traits::is_empty(key)) return nullptr;
    // Load factor <= 1/2: linear probing's miss cost grows as 1/(1-load)^2.
    if ((size_ + 1) * 2 > slots_.size()) grow();
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (Traits::is_empty(s.key)) {
        s.key = key;
        s.value = value;
        ++size_;
        if (inserted != nullptr) *inserted = true;
        return &s.value;
      }
    }
  }
  // Removes `key`; false when it was absent.
  bool erase(const K& key) {
    const std::size_t i = find_index(key);
    if (i == kNpos) return false;
    erase_at(i);
    return true;
  }
  // The slot index of `key`, or kNpos: with value_at() and erase_at(), a caller that may
  // update or remove an entry probes once. An index is valid until the next insert or erase.
  static constexpr std::size_t kNpos = ~std::size_t{0};
  std::size_t find_index(const K& key) const {
    if (slots_.empty() || Traits::is_empty(key)) return kNpos;
    for (std::size_t i = home(key);; i = (i + 1) & mask()) {
      if (slots_[i].key == key) return i;
      if (Traits::is_empty(slots_[i].key)) return kNpos;
    }
  }
  V& value_at(std::size_t i) { return slots_[i].value; }
  void erase_at(std::size_t i) {
    // Backward-shift deletion: move later members of the probe run into the hole.
    std::size_t hole = i;
    for (std::size_t j = (hole + 1) & mask();; j = (j + 1) & mask()) {
      if (Traits::is_empty(slots_[j].key)) break;
      const std::size_t h = home(slots_[j].key);
      // Slot j may move to the hole when its home is not in (hole, j] (cyclically).
      if (((j - h) & mask()) >= ((j - hole) & mask())) {
        slots_[hole] = std::move(slots_[j]);
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --size_;
  }
  // Sizes the table so `n` entries fit without growing.
  void reserve(std::size_t n) {
    std::size_t cap = slots_.empty() ? 64 : slots_.size();
    while (cap < n * 2) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }
  // Calls f(key, value) for every entry, in slot order (see the header comment).
  template <class F>
  void for_each(F&& f) {
    for (Slot& s : slots_) {
      if (!Traits::is_empty(s.key)) f(static_cast<const K&>(s.key), s.value);
    }
  }
  // Empties the map, keeping its capacity.
  void clear() {
    for (Slot& s : slots_) s = Slot{};
    size_ = 0;
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    K key = Traits::empty();
    V value{};
  };
  std::vector<Slot> slots_;
  std::size_t size_ = 0;

  std::size_t mask() const { return slots_.size() - 1; }
  std::size_t home(const K& key) const { return Traits::hash(key) & mask(); }
  void grow() { rehash(slots_.empty() ? 64 : slots_.size() * 2); }
  void rehash(std::size_t cap) {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(cap, Slot{});
    size_ = 0;
    for (Slot& s : old) {
      if (!Traits::is_empty(s.key)) put(s.key, std::move(s.value));
    }
  }
};

// uint64 keys with `kEmpty` reserved; callers map their keys away from it.
template <std::uint64_t kEmpty>
struct U64KeyTraits {
  static constexpr std::uint64_t empty() { return kEmpty; }
  static bool is_empty(std::uint64_t k) { return k == kEmpty; }
  // MurmurHash3's 64-bit finalizer: keys are often small consecutive integers.
  static std::size_t hash(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
};

template <class V, std::uint64_t kEmpty = 0>
using FlatHashMap = BasicFlatHashMap<std::uint64_t, V, U64KeyTraits<kEmpty>>;

}  // namespace blis
