#pragma once
// KeyIndex: the caller's RequestKey -> request slot handle, for aborts and finishes:
// util/flat_hash_map.h (its table grows with the number of live requests and is reused
// afterwards, so steady-state inserts and erases never allocate). The largest key,
// ~0 (kNoKey), marks free slots and is not a key a request can have.

#include <cstdint>
#include <limits>
#include <stdexcept>

#include "engine/engine.h"
#include "engine/vllm/request.h"
#include "util/flat_hash_map.h"

namespace blis::vllm {

class KeyIndex {
 public:
  static constexpr engine::RequestKey kNoKey = std::numeric_limits<engine::RequestKey>::max();
  // Inserts or replaces. kNoKey is refused (an exception, as the engine refuses other bad
  // requests) rather than silently dropped.
  void put(engine::RequestKey key, ReqRef ref) {
    if (key == kNoKey) throw std::invalid_argument("request key 2^64-1 is reserved");
    map_.put(key, ref);
  }
  // The handle, or a ref with index -1.
  ReqRef get(engine::RequestKey key) const {
    const ReqRef* r = map_.find(key);
    return r != nullptr ? *r : ReqRef{};
  }
  bool erase(engine::RequestKey key) { return map_.erase(key); }
  std::int32_t size() const { return static_cast<std::int32_t>(map_.size()); }

 private:
  FlatHashMap<ReqRef, kNoKey> map_;
};

}  // namespace blis::vllm
