#pragma once
// The router prefix index's hash -> entry map: util/flat_hash_map.h with the uint32 value the
// index stores and kMissing for "absent", the API the router's hot path uses. Key 0 is
// reserved as "empty"; callers map their keys away from it.

#include <cstdint>

#include "util/flat_hash_map.h"

namespace blis::cluster {

class FlatHashMap {
 public:
  static constexpr std::uint32_t kMissing = 0xffffffffu;
  std::uint32_t find(std::uint64_t key) const {  // kMissing when absent
    const std::uint32_t* v = map_.find(key);
    return v != nullptr ? *v : kMissing;
  }
  void prefetch(std::uint64_t key) const { map_.prefetch(key); }
  // Inserts or overwrites.
  void put(std::uint64_t key, std::uint32_t value) { map_.put(key, value); }
  void erase(std::uint64_t key) { map_.erase(key); }
  std::size_t size() const { return map_.size(); }

 private:
  blis::FlatHashMap<std::uint32_t> map_;
};

}  // namespace blis::cluster
