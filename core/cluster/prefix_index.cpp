#include "cluster/prefix_index.h"

namespace blis::cluster {
namespace {

// SplitMix64's finalizer: a well-mixed 64-bit hash step.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

PrefixIndex::PrefixIndex(std::size_t instances, std::int32_t block_size, std::uint64_t model_salt)
    : lrus_(instances), block_size_(block_size > 0 ? block_size : 16), salt_(model_salt) {}

void PrefixIndex::set_capacity(std::size_t instance, std::int64_t blocks) {
  lrus_[instance].capacity = blocks > 0 ? blocks : kDefaultLruCapacityPerServer;
}

void PrefixIndex::hash_prompt(const std::vector<std::int32_t>& prompt,
                              std::vector<std::uint64_t>& out) const {
  out.clear();
  // EPP hashPrompt: the first block's parent is a hash of the model name; block i hashes
  // its content together with block i-1's hash; a trailing partial block is ignored.
  std::uint64_t prev = mix(salt_);
  const auto bs = static_cast<std::size_t>(block_size_);
  for (std::size_t i = 0; i + bs <= prompt.size(); i += bs) {
    if (out.size() >= static_cast<std::size_t>(kMaxPrefixBlocksToMatch)) break;
    std::uint64_t h = prev;
    for (std::size_t k = 0; k < bs; ++k) h = mix(h ^ static_cast<std::uint32_t>(prompt[i + k]));
    if (h == 0) h = 1;  // 0 is the hash map's empty key
    out.push_back(h);
    prev = h;
  }
}

void PrefixIndex::match(const std::vector<std::uint64_t>& hashes,
                        std::vector<std::int32_t>& matches) const {
  matches.assign(lrus_.size(), 0);
  for (const std::uint64_t h : hashes) holders_.prefetch(h);
  for (const std::uint64_t h : hashes) {
    std::uint32_t e = holders_.find(h);
    if (e == FlatHashMap::kMissing) break;
    for (; e != kNil; e = entries_[e].holder_next) ++matches[entries_[e].instance];
  }
}

void PrefixIndex::add(std::size_t instance, const std::vector<std::uint64_t>& hashes) {
  const auto me = static_cast<std::uint32_t>(instance);
  Lru& lru = lrus_[instance];
  for (const std::uint64_t h : hashes) holders_.prefetch(h);
  for (const std::uint64_t h : hashes) {
    const std::uint32_t head = holders_.find(h);
    std::uint32_t e = head == FlatHashMap::kMissing ? kNil : head;
    while (e != kNil && entries_[e].instance != me) e = entries_[e].holder_next;
    if (e != kNil) {  // already held: refresh its recency
      lru_unlink(e);
      lru_push_front(e);
      continue;
    }
    if (lru.size >= lru.capacity && lru.tail != kNil) {
      // Evict the least recently added hash (EPP's eviction callback drops the instance
      // from that hash's holders) and reuse its entry.
      e = lru.tail;
      lru_unlink(e);
      holder_remove(e);
    } else if (!free_.empty()) {
      e = free_.back();
      free_.pop_back();
    } else {
      e = static_cast<std::uint32_t>(entries_.size());
      entries_.emplace_back();
    }
    Entry& entry = entries_[e];
    entry.hash = h;
    entry.instance = me;
    // `head` is still h's list: evicting an entry of another hash leaves h's value alone.
    entry.holder_next = head == FlatHashMap::kMissing ? kNil : head;
    holders_.put(h, e);
    lru_push_front(e);
  }
}

void PrefixIndex::lru_unlink(std::uint32_t e) {
  Entry& entry = entries_[e];
  Lru& lru = lrus_[entry.instance];
  if (entry.lru_prev != kNil)
    entries_[entry.lru_prev].lru_next = entry.lru_next;
  else
    lru.head = entry.lru_next;
  if (entry.lru_next != kNil)
    entries_[entry.lru_next].lru_prev = entry.lru_prev;
  else
    lru.tail = entry.lru_prev;
  entry.lru_prev = entry.lru_next = kNil;
  --lru.size;
}

void PrefixIndex::lru_push_front(std::uint32_t e) {
  Entry& entry = entries_[e];
  Lru& lru = lrus_[entry.instance];
  entry.lru_prev = kNil;
  entry.lru_next = lru.head;
  if (lru.head != kNil) entries_[lru.head].lru_prev = e;
  lru.head = e;
  if (lru.tail == kNil) lru.tail = e;
  ++lru.size;
}

void PrefixIndex::holder_remove(std::uint32_t e) {
  const std::uint64_t h = entries_[e].hash;
  const std::uint32_t first = holders_.find(h);
  if (first == e) {
    if (entries_[e].holder_next == kNil) {
      holders_.erase(h);
    } else {
      holders_.put(h, entries_[e].holder_next);
    }
    return;
  }
  for (std::uint32_t p = first; p != kNil; p = entries_[p].holder_next) {
    if (entries_[p].holder_next == e) {
      entries_[p].holder_next = entries_[e].holder_next;
      return;
    }
  }
}

}  // namespace blis::cluster
