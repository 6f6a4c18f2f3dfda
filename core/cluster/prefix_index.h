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

#include <cstdint>
#include <unordered_map>
#include <vector>

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
  // kMaxPrefixBlocksToMatch) into `out`.
  void hash_prompt(const std::vector<std::int32_t>& prompt, std::vector<std::uint64_t>& out) const;
  // matches[i] = leading blocks of `hashes` the index believes instance i holds
  // (EPP matchLongestPrefix: stop at the first block no instance holds).
  void match(const std::vector<std::uint64_t>& hashes, std::vector<std::int32_t>& matches) const;
  // Records that a request with these hashes was routed to `instance` (EPP PreRequest).
  void add(std::size_t instance, const std::vector<std::uint64_t>& hashes);
  std::size_t entries(std::size_t instance) const { return lrus_[instance].map.size(); }

 private:
  struct Node {
    std::uint64_t hash = 0;
    std::uint32_t prev = 0, next = 0;
  };
  // An LRU set of hashes: a map to nodes of a doubly linked list, most recent at head.
  struct Lru {
    std::unordered_map<std::uint64_t, std::uint32_t> map;
    std::vector<Node> nodes;
    std::uint32_t head = kNil, tail = kNil;
    std::int64_t capacity = kDefaultLruCapacityPerServer;
    void touch_or_insert(std::uint64_t h);
    void unlink(std::uint32_t n);
    void push_front(std::uint32_t n);
  };
  static constexpr std::uint32_t kNil = 0xffffffffu;
  std::vector<Lru> lrus_;
  std::int32_t block_size_ = 16;
  std::uint64_t salt_ = 0;
};

}  // namespace blis::cluster
