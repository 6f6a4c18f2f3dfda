#include "engine/vllm/key_index.h"

namespace blis::vllm {

KeyIndex::KeyIndex() : slots_(64), mask_(63) {}

std::size_t KeyIndex::home(engine::RequestKey key) const {
  // SplitMix64 finalizer: keys are often small consecutive integers.
  std::uint64_t z = key + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return static_cast<std::size_t>(z ^ (z >> 31)) & mask_;
}

std::size_t KeyIndex::find(engine::RequestKey key) const {
  std::size_t i = home(key);
  while (slots_[i].used && slots_[i].key != key) i = (i + 1) & mask_;
  return i;
}

void KeyIndex::grow() {
  std::vector<Slot> old;
  old.swap(slots_);
  slots_.assign(old.size() * 2, Slot{});
  mask_ = slots_.size() - 1;
  size_ = 0;
  for (const Slot& s : old) {
    if (s.used) put(s.key, s.ref);
  }
}

void KeyIndex::put(engine::RequestKey key, ReqRef ref) {
  if (static_cast<std::size_t>(size_ + 1) * 2 > slots_.size()) grow();
  Slot& s = slots_[find(key)];
  if (!s.used) {
    s.used = true;
    s.key = key;
    ++size_;
  }
  s.ref = ref;
}

ReqRef KeyIndex::get(engine::RequestKey key) const {
  const Slot& s = slots_[find(key)];
  return s.used ? s.ref : ReqRef{};
}

bool KeyIndex::erase(engine::RequestKey key) {
  std::size_t hole = find(key);
  if (!slots_[hole].used) return false;
  slots_[hole] = Slot{};
  --size_;
  // Backward-shift deletion (no tombstones).
  for (std::size_t j = (hole + 1) & mask_; slots_[j].used; j = (j + 1) & mask_) {
    const std::size_t h = home(slots_[j].key);
    if (((j - h) & mask_) >= ((j - hole) & mask_)) {
      slots_[hole] = slots_[j];
      slots_[j] = Slot{};
      hole = j;
    }
  }
  return true;
}

}  // namespace blis::vllm
