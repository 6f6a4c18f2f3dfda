#pragma once
// PreciseIndex: llm-d's precise prefix-cache index (llm-d-kv-cache's kvblock index behind
// pkg/epp/framework/plugins/scheduling/scorer/preciseprefixcache): which instance holds
// which KV block, kept from the engines' own KV events (BlockStored / BlockRemoved), not from
// routing decisions. Each instance gets a listener (engine/kv_events.h); a request's blocks
// are hashed exactly as the engine hashes them (vLLM hash_block_tokens with the LoRA extra
// key), so a match is a block the engine really has cached. Events are delivered at once
// (upstream: ZMQ, milliseconds behind).

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

#include "engine/kv_events.h"

namespace blis::cluster::epp {

class PreciseIndex {
 public:
  // Listeners point back at the index: it stays where it was built.
  PreciseIndex(std::size_t instances, std::int32_t block_size);
  PreciseIndex(const PreciseIndex&) = delete;
  PreciseIndex& operator=(const PreciseIndex&) = delete;
  engine::KvEventListener* listener(std::size_t instance) { return listeners_[instance].get(); }
  // The request's full-block hashes, chained, as the engine computes them (at most
  // `max_blocks`).
  void hash_prompt(const std::vector<std::int32_t>& prompt, std::int32_t lora_id,
                   std::int32_t max_blocks, std::vector<std::uint64_t>& out_hi,
                   std::vector<std::uint64_t>& out_lo) const;
  // matches[i] = leading blocks instance i holds (stops at its first miss).
  void match(const std::vector<std::uint64_t>& hi, const std::vector<std::uint64_t>& lo,
             std::vector<std::int32_t>& matches) const;
  std::int32_t block_size() const { return block_size_; }

 private:
  struct Key {
    std::uint64_t hi, lo;
    bool operator==(const Key& o) const { return hi == o.hi && lo == o.lo; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return static_cast<std::size_t>(k.hi ^ (k.lo * 0x9e3779b97f4a7c15ull));
    }
  };
  class Listener;
  // Hash -> (instance, blocks with that hash on it); an engine may cache one hash in several
  // blocks, and the hash stays until the last is removed. Lookups only (never iterated).
  std::unordered_map<Key, std::vector<std::pair<std::int32_t, std::int32_t>>, KeyHash> held_;
  std::vector<std::unique_ptr<engine::KvEventListener>> listeners_;
  std::int32_t block_size_ = 16;

  void stored(std::int32_t instance, Key k);
  void removed(std::int32_t instance, Key k);
};

}  // namespace blis::cluster::epp
