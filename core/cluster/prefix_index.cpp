#include "cluster/prefix_index.h"

#include "util/mul_fold.h"

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
    // Four token ids per multiply (two words, as wyhash's loop takes them), the state in both
    // operands (a product is zero, and the state lost, only where a word cancels the state):
    // the chain of rounds is the hash's critical path, and only equal blocks need equal
    // hashes, so shortening it is free. The tail (block sizes not a multiple of 4)
    // takes a mixing round per word.
    const auto pair = [&prompt, i](std::size_t k) {
      return static_cast<std::uint64_t>(static_cast<std::uint32_t>(prompt[i + k])) |
             static_cast<std::uint64_t>(static_cast<std::uint32_t>(prompt[i + k + 1])) << 32;
    };
    std::uint64_t h = prev;
    std::size_t k = 0;
    for (; k + 4 <= bs; k += 4)
      h = mul_fold(pair(k) ^ h ^ 0xa0761d6478bd642fULL, pair(k + 2) ^ h ^ 0xe7037ed1a0b428dbULL);
    for (; k + 2 <= bs; k += 2) h = mix(h ^ pair(k));
    if (k < bs) h = mix(h ^ static_cast<std::uint32_t>(prompt[i + k]));
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
      touch(e);
      continue;
    }
    if (lru.size >= lru.capacity && lru.size > 0) {
      // Evict the least recently added hash (EPP's eviction callback drops the instance
      // from that hash's holders) and reuse its entry.
      e = pop_least_recent(lru);
      --lru.size;
      holder_remove(e);
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
    ++lru.size;
    touch(e);
  }
}

void PrefixIndex::touch(std::uint32_t e) {
  Entry& entry = entries_[e];
  Lru& lru = lrus_[entry.instance];
  ++entry.version;
  lru.queue.push_back(Touch{e, entry.version});
  // Stale items are consumed as eviction passes them; without evictions (or with mostly
  // refreshes) they are dropped here, so the queue stays within a few times the live size.
  const std::size_t pending = lru.queue.size() - lru.head;
  if (pending > 4 * static_cast<std::size_t>(lru.size) + 1024) compact(lru);
}

std::uint32_t PrefixIndex::pop_least_recent(Lru& lru) {
  // Prefetch, two stages ahead: the entry 16 items ahead, and the holder-map slot of the
  // one 8 ahead (its entry, prefetched 8 pops ago, gives the hash), so an eviction's misses
  // overlap with the ones before it. A stale item's prefetch is wasted, never wrong.
  constexpr std::size_t kAhead = 8;
  for (;;) {
    if (lru.head + 2 * kAhead < lru.queue.size())
      __builtin_prefetch(&entries_[lru.queue[lru.head + 2 * kAhead].entry]);
    if (lru.head + kAhead < lru.queue.size())
      holders_.prefetch(entries_[lru.queue[lru.head + kAhead].entry].hash);
    const Touch t = lru.queue[lru.head++];
    if (lru.head * 2 >= lru.queue.size() && lru.head >= 4096) {
      lru.queue.erase(lru.queue.begin(), lru.queue.begin() + static_cast<std::ptrdiff_t>(lru.head));
      lru.head = 0;
    }
    if (entries_[t.entry].version == t.version) return t.entry;
  }
}

void PrefixIndex::compact(Lru& lru) {
  std::size_t out = 0;
  for (std::size_t i = lru.head; i < lru.queue.size(); ++i) {
    const Touch t = lru.queue[i];
    if (entries_[t.entry].version == t.version) lru.queue[out++] = t;
  }
  lru.queue.resize(out);
  lru.head = 0;
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
