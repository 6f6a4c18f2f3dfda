#pragma once
// FlatHashMap<V>: a uint64 -> V open-addressing hash table (linear probing, power-of-two
// capacity, load factor <= 1/2, backward-shift deletion, so no tombstones). Lookups, inserts
// and erases allocate nothing except when the table grows, so a map sized by its peak is
// allocation-free in steady state. The one such table of the project: the router's prefix
// index (cluster/flat_hash_map.h) and the engine's request-key index (engine/vllm/key_index.h)
// are both this. Nothing iterates it, so its layout never reaches an output.
//
// `kEmpty` is reserved to mark free slots; callers map their keys away from it (put() of
// kEmpty is ignored).

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace blis {

template <class V, std::uint64_t kEmpty = 0>
class FlatHashMap {
 public:
  static constexpr std::uint64_t kEmptyKey = kEmpty;

  // The value of `key`, or nullptr.
  const V* find(std::uint64_t key) const {
    if (slots_.empty() || key == kEmpty) return nullptr;
    for (std::size_t i = hash(key) & mask();; i = (i + 1) & mask()) {
      const Slot& s = slots_[i];
      if (s.key == key) return &s.value;
      if (s.key == kEmpty) return nullptr;
    }
  }
  // Starts loading key's home slot into the cache (no effect on contents): a caller about to
  // look up many independent keys issues these first so the cache misses overlap.
  void prefetch(std::uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash(key) & mask()]);
  }
  // Inserts or overwrites.
  void put(std::uint64_t key, V value) {
    if (key == kEmpty) return;
    // Load factor <= 1/2: linear probing's miss cost grows as 1/(1-load)^2.
    if ((size_ + 1) * 2 > slots_.size()) grow();
    for (std::size_t i = hash(key) & mask();; i = (i + 1) & mask()) {
      Slot& s = slots_[i];
      if (s.key == key) {
        s.value = std::move(value);
        return;
      }
      if (s.key == kEmpty) {
        s.key = key;
        s.value = std::move(value);
        ++size_;
        return;
      }
    }
  }
  // Removes `key`; false when it was absent.
  bool erase(std::uint64_t key) {
    if (slots_.empty() || key == kEmpty) return false;
    std::size_t i = hash(key) & mask();
    for (;; i = (i + 1) & mask()) {
      if (slots_[i].key == key) break;
      if (slots_[i].key == kEmpty) return false;
    }
    // Backward-shift deletion: move later members of the probe run into the hole.
    std::size_t hole = i;
    for (std::size_t j = (hole + 1) & mask();; j = (j + 1) & mask()) {
      if (slots_[j].key == kEmpty) break;
      const std::size_t home = hash(slots_[j].key) & mask();
      // Slot j may move to the hole when its home is not in (hole, j] (cyclically).
      const bool home_in_range =
          hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
      if (!home_in_range) {
        slots_[hole] = std::move(slots_[j]);
        hole = j;
      }
    }
    slots_[hole] = Slot{};
    --size_;
    return true;
  }
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = kEmpty;
    V value{};
  };
  std::vector<Slot> slots_;
  std::size_t size_ = 0;

  std::size_t mask() const { return slots_.size() - 1; }
  // MurmurHash3's 64-bit finalizer: keys are often small consecutive integers.
  static std::size_t hash(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    size_ = 0;
    for (Slot& s : old) {
      if (s.key != kEmpty) put(s.key, std::move(s.value));
    }
  }
};

}  // namespace blis
