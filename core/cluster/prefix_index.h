#pragma once
// PrefixIndex: the router's approximation of which instance holds which prompt prefix, after
// llm-d's EPP prefix-cache scorer (gateway-api-inference-extension
// pkg/epp/scheduling/framework/plugins/prefixcachescorer: plugin.go, indexer.go). It sees
// only what it routed: the prompt is cut into blocks, each block's hash chains the previous
// one, and after a request is routed its block hashes are added to that instance's LRU
// (capacity: the instance's GPU KV blocks, as EPP's AutoTune does). A request's score on an
// instance is the number of leading blocks the index believes it holds over the request's
// block count.
//
// EPP hashes characters (4 per token); the simulator hashes token ids with the engine's
// block size, which is what EPP's AutoTune aims at.
//
// Storage: one pool of entries (hash, instance), each on its hash's holder list (EPP's
// hashToPods); a flat hash map finds a hash's holder list. Each instance's LRU order is a
// queue of touches, oldest first: adding or refreshing an entry bumps its version and appends
// (entry, version); the least recently touched live entry is the first queue item whose
// version is still the entry's. That is the same order as a linked LRU list, without the
// neighbours' cache misses on a refresh, and eviction reads the queue sequentially, so the
// entries and map slots it will evict next are prefetched ahead. Matching costs
// O(blocks + holders) and adding O(blocks) amortized.

#include <cstdint>
#include <vector>

#include "cluster/flat_hash_map.h"

namespace blis::cluster {

// EPP DefaultMaxPrefixBlocks: input beyond this many blocks is ignored.
inline constexpr std::int32_t kMaxPrefixBlocksToMatch = 256;
// EPP DefaultLRUCapacityPerServer, used when an instance's block count is unknown.
inline constexpr std::int64_t kDefaultLruCapacityPerServer = 31250;

class PrefixIndex {
 public:
  PrefixIndex() = default;
  PrefixIndex(std::size_t instances, std::int32_t block_size, std::uint64_t model_salt);
  // Sets the LRU capacity of one instance (its GPU KV block count).
  void set_capacity(std::size_t instance, std::int64_t blocks);

  // Hashes `prompt` into chained block hashes (full blocks only, at most
  // kMaxPrefixBlocksToMatch) into `out`. Hashes are never 0.
  void hash_prompt(const std::vector<std::int32_t>& prompt, std::vector<std::uint64_t>& out) const;
  // matches[i] = leading blocks of `hashes` the index believes instance i holds
  // (EPP matchLongestPrefix: stop at the first block no instance holds).
  void match(const std::vector<std::uint64_t>& hashes, std::vector<std::int32_t>& matches) const;
  // Records that a request with these hashes was routed to `instance` (EPP PreRequest).
  void add(std::size_t instance, const std::vector<std::uint64_t>& hashes);
  std::size_t entries(std::size_t instance) const {
    return static_cast<std::size_t>(lrus_[instance].size);
  }

 private:
  static constexpr std::uint32_t kNil = 0xffffffffu;
  struct Entry {
    std::uint64_t hash = 0;
    std::uint32_t instance = 0;
    // Bumped on every touch; older queue items are stale. Wrapping needs 2^32 touches of one
    // entry, but a queue item is consumed or compacted away within ~4 x live + 1,024 pushes.
    std::uint32_t version = 0;
    std::uint32_t holder_next = kNil;  // the hash's holder list
  };
  struct Touch {  // one LRU queue item
    std::uint32_t entry = 0;
    std::uint32_t version = 0;
  };
  struct Lru {
    std::vector<Touch> queue;  // oldest first; items before `head` are consumed
    std::size_t head = 0;
    std::int64_t size = 0;  // live entries
    std::int64_t capacity = kDefaultLruCapacityPerServer;
  };
  std::vector<Entry> entries_;
  std::vector<Lru> lrus_;
  FlatHashMap holders_;  // hash -> first entry of its holder list
  std::int32_t block_size_ = 16;
  std::uint64_t salt_ = 0;

  void touch(std::uint32_t e);
  std::uint32_t pop_least_recent(Lru& lru);
  void compact(Lru& lru);
  void holder_remove(std::uint32_t e);
};

}  // namespace blis::cluster
