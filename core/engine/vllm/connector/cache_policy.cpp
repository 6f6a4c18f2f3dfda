#include "engine/vllm/connector/cache_policy.h"

#include <algorithm>

#include "util/contains.h"

namespace blis::vllm {

// ---- lru.py LRUCachePolicy ----

OffloadBlock* LruCachePolicy::get(const BlockHash& key) {
  const auto it = blocks_.find(key);
  return it == blocks_.end() ? nullptr : &it->second.block;
}

void LruCachePolicy::insert(const BlockHash& key, const OffloadBlock& block) {
  // lru.py insert: an idle block joins the evictable list at once.
  Entry& e = blocks_[key];
  e.block = block;
  if (block.ref_cnt == 0) mark_evictable(key);
}

void LruCachePolicy::remove(const BlockHash& key) {
  const auto it = blocks_.find(key);
  if (it == blocks_.end()) return;
  if (it->second.evictable) lru_.erase(it->second.lru);
  blocks_.erase(it);
}

void LruCachePolicy::touch(std::span<const BlockHash> keys) {
  // lru.py touch: walks the keys backwards moving idle ones to the MRU end, so the first
  // key ends up most recently used; active blocks are untouched.
  for (auto it = keys.rbegin(); it != keys.rend(); ++it) {
    const auto b = blocks_.find(*it);
    if (b == blocks_.end() || !b->second.evictable) continue;
    lru_.splice(lru_.end(), lru_, b->second.lru);
  }
}

bool LruCachePolicy::evict(std::int64_t n, std::span<const BlockHash> protected_keys,
                           EvictedBlocks& out) {
  // lru.py evict: the first n evictable blocks from the LRU front, skipping protected ones;
  // atomic (nothing changes unless all n are found).
  out.clear();
  if (n == 0) return true;
  scratch_.clear();
  for (auto it = lru_.begin(); it != lru_.end(); ++it) {
    if (contains(protected_keys, *it)) continue;
    scratch_.push_back(it);
    if (static_cast<std::int64_t>(scratch_.size()) == n) break;
  }
  if (static_cast<std::int64_t>(scratch_.size()) < n) return false;
  for (const auto& it : scratch_) {
    const auto b = blocks_.find(*it);
    out.emplace_back(*it, b->second.block);
    blocks_.erase(b);
    lru_.erase(it);
  }
  return true;
}

void LruCachePolicy::clear() {
  lru_.clear();
  blocks_.clear();
}

void LruCachePolicy::mark_evictable(const BlockHash& key) {
  // lru.py mark_evictable: `evictable_blocks[key] = None` appends a key not yet in the list
  // (and leaves one already there in place).
  const auto it = blocks_.find(key);
  if (it == blocks_.end() || it->second.evictable) return;
  it->second.lru = lru_.insert(lru_.end(), key);
  it->second.evictable = true;
}

void LruCachePolicy::mark_non_evictable(const BlockHash& key) {
  const auto it = blocks_.find(key);
  if (it == blocks_.end() || !it->second.evictable) return;
  lru_.erase(it->second.lru);
  it->second.evictable = false;
}

// ---- arc.py ARCCachePolicy ----

OffloadBlock* ArcCachePolicy::get(const BlockHash& key) {
  // arc.py get: `t1.get(key) or t2.get(key)` (a BlockStatus is always truthy).
  const auto it = blocks_.find(key);
  return it == blocks_.end() ? nullptr : &it->second.block;
}

void ArcCachePolicy::ghost_pop(std::list<BlockHash>& list, Positions& pos, const BlockHash& key) {
  const auto it = pos.find(key);
  if (it == pos.end()) return;
  list.erase(it->second);
  pos.erase(it);
}

void ArcCachePolicy::insert(const BlockHash& key, const OffloadBlock& block) {
  // arc.py insert: new blocks always enter T1 (MRU end) and leave the ghost lists.
  Entry& e = blocks_[key];
  e.block = block;
  e.in_t2 = false;
  e.pos = t1_.insert(t1_.end(), key);
  ghost_pop(b1_, b1_pos_, key);
  ghost_pop(b2_, b2_pos_, key);
}

void ArcCachePolicy::remove(const BlockHash& key) {
  // arc.py remove: from T1, else from T2.
  const auto it = blocks_.find(key);
  if (it == blocks_.end()) return;
  (it->second.in_t2 ? t2_ : t1_).erase(it->second.pos);
  blocks_.erase(it);
}

void ArcCachePolicy::touch(std::span<const BlockHash> keys) {
  // arc.py touch, keys in reverse order.
  const auto capacity = static_cast<double>(cache_capacity());
  for (auto k = keys.rbegin(); k != keys.rend(); ++k) {
    const auto it = blocks_.find(*k);
    if (it != blocks_.end()) {
      Entry& e = it->second;
      if (!e.in_t2) {
        // T1 -> T2 (seen again); a block whose store is still in flight was only prepared,
        // not touched twice: it stays in T1, most recently used.
        if (e.block.is_ready()) {
          t2_.splice(t2_.end(), t1_, e.pos);
          e.in_t2 = true;
        } else {
          t1_.splice(t1_.end(), t1_, e.pos);
        }
      } else {
        t2_.splice(t2_.end(), t2_, e.pos);  // MRU end of T2
      }
      continue;
    }
    if (const auto g = b1_pos_.find(*k); g != b1_pos_.end()) {
      // B1 hit: recency matters more, grow T1's target (true division, then the cap).
      const double delta =
          std::max(1.0, static_cast<double>(b2_.size()) / static_cast<double>(b1_.size()));
      target_t1_size_ = std::min(target_t1_size_ + delta, capacity);
      b1_.splice(b1_.end(), b1_, g->second);
    } else if (const auto h = b2_pos_.find(*k); h != b2_pos_.end()) {
      // B2 hit: frequency matters more, shrink T1's target.
      const double delta =
          std::max(1.0, static_cast<double>(b1_.size()) / static_cast<double>(b2_.size()));
      target_t1_size_ = std::max(target_t1_size_ - delta, 0.0);
      b2_.splice(b2_.end(), b2_, h->second);
    }
  }
}

bool ArcCachePolicy::evict(std::int64_t n, std::span<const BlockHash> protected_keys,
                           EvictedBlocks& out) {
  // arc.py evict: pick all n candidates first (T1 while its virtual size is at least
  // int(target_t1_size), else T2; each list scanned once from its LRU end for idle,
  // unprotected blocks), then apply them and trim the ghost lists to cache_capacity.
  out.clear();
  if (n == 0) return true;
  scratch_.clear();
  auto virtual_t1_size = static_cast<std::int64_t>(t1_.size());
  const auto target = static_cast<std::int64_t>(target_t1_size_);  // int(): >= 0, truncates
  auto t1_it = t1_.begin();
  auto t2_it = t2_.begin();
  const auto next_candidate = [&](std::list<BlockHash>::iterator& it, std::list<BlockHash>& list) {
    for (; it != list.end(); ++it) {
      if (blocks_.at(*it).block.ref_cnt == 0 && !contains(protected_keys, *it)) return true;
    }
    return false;
  };
  for (std::int64_t i = 0; i < n; ++i) {
    if (virtual_t1_size >= target && next_candidate(t1_it, t1_)) {
      scratch_.push_back({t1_it++, true});
      --virtual_t1_size;
      continue;
    }
    if (!next_candidate(t2_it, t2_)) return false;
    scratch_.push_back({t2_it++, false});
  }
  for (const Candidate& c : scratch_) {
    const BlockHash key = *c.pos;
    const auto b = blocks_.find(key);
    out.emplace_back(key, b->second.block);
    blocks_.erase(b);
    std::list<BlockHash>& ghost = c.from_t1 ? b1_ : b2_;
    Positions& pos = c.from_t1 ? b1_pos_ : b2_pos_;
    (c.from_t1 ? t1_ : t2_).erase(c.pos);
    if (pos.count(key) == 0) pos.emplace(key, ghost.insert(ghost.end(), key));
  }
  // Trim each ghost list to cache_capacity (popitem(last=False): the oldest first).
  const auto trim = [&](std::list<BlockHash>& ghost, Positions& pos) {
    while (static_cast<std::int64_t>(ghost.size()) > cache_capacity()) {
      pos.erase(ghost.front());
      ghost.pop_front();
    }
  };
  trim(b1_, b1_pos_);
  trim(b2_, b2_pos_);
  return true;
}

void ArcCachePolicy::clear() {
  t1_.clear();
  t2_.clear();
  b1_.clear();
  b2_.clear();
  b1_pos_.clear();
  b2_pos_.clear();
  blocks_.clear();
  target_t1_size_ = 0.0;
}

std::unique_ptr<CachePolicy> make_cache_policy(CachePolicyKind kind, std::int64_t cache_capacity) {
  if (kind == CachePolicyKind::kArc) return std::make_unique<ArcCachePolicy>(cache_capacity);
  return std::make_unique<LruCachePolicy>(cache_capacity);
}

}  // namespace blis::vllm
