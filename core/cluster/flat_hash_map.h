#pragma once
// FlatHashMap: a uint64 -> uint32 open-addressing hash table (linear probing, power-of-two
// capacity, backward-shift deletion). Lookups, inserts and erases allocate nothing except
// when the table grows, so the router's prefix index stays allocation-free in steady state.
// Key 0 is reserved as "empty"; callers map their keys away from it.

#include <cstdint>
#include <vector>

namespace blis::cluster {

class FlatHashMap {
 public:
  static constexpr std::uint32_t kMissing = 0xffffffffu;
  std::uint32_t find(std::uint64_t key) const;  // kMissing when absent
  // Starts loading key's home slot into the cache (no effect on contents): a caller about to
  // look up many independent keys issues these first so the cache misses overlap.
  void prefetch(std::uint64_t key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash(key) & mask()]);
  }
  // Inserts or overwrites.
  void put(std::uint64_t key, std::uint32_t value);
  void erase(std::uint64_t key);
  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;  // 0 = empty
    std::uint32_t value = 0;
  };
  std::vector<Slot> slots_;
  std::size_t size_ = 0;
  std::size_t mask() const { return slots_.size() - 1; }
  static std::size_t hash(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
  void grow();
};

}  // namespace blis::cluster
