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

PrefixIndex::PrefixIndex(std::size_t instances, std::int32_t block_size,
                         std::uint64_t model_salt)
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
  const std::size_t bs = static_cast<std::size_t>(block_size_);
  for (std::size_t i = 0; i + bs <= prompt.size(); i += bs) {
    if (out.size() >= static_cast<std::size_t>(kMaxPrefixBlocksToMatch)) break;
    std::uint64_t h = prev;
    for (std::size_t k = 0; k < bs; ++k) h = mix(h ^ static_cast<std::uint32_t>(prompt[i + k]));
    out.push_back(h);
    prev = h;
  }
}

void PrefixIndex::match(const std::vector<std::uint64_t>& hashes,
                        std::vector<std::int32_t>& matches) const {
  matches.assign(lrus_.size(), 0);
  for (const std::uint64_t h : hashes) {
    bool any = false;
    for (std::size_t i = 0; i < lrus_.size(); ++i) {
      if (lrus_[i].map.count(h) != 0) {
        ++matches[i];
        any = true;
      }
    }
    if (!any) break;
  }
}

void PrefixIndex::add(std::size_t instance, const std::vector<std::uint64_t>& hashes) {
  for (const std::uint64_t h : hashes) lrus_[instance].touch_or_insert(h);
}

void PrefixIndex::Lru::unlink(std::uint32_t n) {
  Node& node = nodes[n];
  if (node.prev != kNil) nodes[node.prev].next = node.next; else head = node.next;
  if (node.next != kNil) nodes[node.next].prev = node.prev; else tail = node.prev;
}

void PrefixIndex::Lru::push_front(std::uint32_t n) {
  nodes[n].prev = kNil;
  nodes[n].next = head;
  if (head != kNil) nodes[head].prev = n;
  head = n;
  if (tail == kNil) tail = n;
}

void PrefixIndex::Lru::touch_or_insert(std::uint64_t h) {
  const auto it = map.find(h);
  if (it != map.end()) {
    unlink(it->second);
    push_front(it->second);
    return;
  }
  std::uint32_t n = 0;
  if (static_cast<std::int64_t>(map.size()) >= capacity && tail != kNil) {
    // Evict the least recently added hash and reuse its node.
    n = tail;
    unlink(n);
    map.erase(nodes[n].hash);
  } else {
    n = static_cast<std::uint32_t>(nodes.size());
    nodes.emplace_back();
  }
  nodes[n].hash = h;
  map.emplace(h, n);
  push_front(n);
}

}  // namespace blis::cluster
