#include "cluster/flat_hash_map.h"

namespace blis::cluster {

std::uint32_t FlatHashMap::find(std::uint64_t key) const {
  if (slots_.empty()) return kMissing;
  for (std::size_t i = hash(key) & mask();; i = (i + 1) & mask()) {
    const Slot& s = slots_[i];
    if (s.key == key) return s.value;
    if (s.key == 0) return kMissing;
  }
}

void FlatHashMap::put(std::uint64_t key, std::uint32_t value) {
  // Load factor <= 1/2: linear probing's miss cost grows as 1/(1-load)^2, and most router
  // lookups (a prefix block no instance holds yet) are misses.
  if ((size_ + 1) * 2 > slots_.size()) grow();
  for (std::size_t i = hash(key) & mask();; i = (i + 1) & mask()) {
    Slot& s = slots_[i];
    if (s.key == key) {
      s.value = value;
      return;
    }
    if (s.key == 0) {
      s = Slot{key, value};
      ++size_;
      return;
    }
  }
}

void FlatHashMap::erase(std::uint64_t key) {
  if (slots_.empty()) return;
  std::size_t i = hash(key) & mask();
  for (;; i = (i + 1) & mask()) {
    if (slots_[i].key == key) break;
    if (slots_[i].key == 0) return;
  }
  // Backward-shift deletion: move later members of the probe run into the hole.
  std::size_t hole = i;
  for (std::size_t j = (hole + 1) & mask();; j = (j + 1) & mask()) {
    if (slots_[j].key == 0) break;
    const std::size_t home = hash(slots_[j].key) & mask();
    // Slot j may move to the hole when its home is not in (hole, j] (cyclically).
    const bool home_in_range = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
    if (!home_in_range) {
      slots_[hole] = slots_[j];
      hole = j;
    }
  }
  slots_[hole] = Slot{};
  --size_;
}

void FlatHashMap::grow() {
  std::vector<Slot> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
  size_ = 0;
  for (const Slot& s : old) {
    if (s.key != 0) put(s.key, s.value);
  }
}

}  // namespace blis::cluster
