#pragma once
// KeyIndex: the caller's RequestKey -> request slot handle, for aborts and finishes. Open
// addressing with backward-shift deletion; its table grows with the number of live requests
// and is reused afterwards, so steady-state inserts and erases never allocate.

#include <cstdint>
#include <vector>

#include "engine/engine.h"
#include "engine/vllm/request.h"

namespace blis::vllm {

class KeyIndex {
 public:
  KeyIndex();
  // Inserts or replaces.
  void put(engine::RequestKey key, ReqRef ref);
  // The handle, or a ref with index -1.
  ReqRef get(engine::RequestKey key) const;
  bool erase(engine::RequestKey key);
  std::int32_t size() const { return size_; }

 private:
  struct Slot {
    engine::RequestKey key = 0;
    ReqRef ref;
    bool used = false;
  };
  std::size_t home(engine::RequestKey key) const;
  std::size_t find(engine::RequestKey key) const;
  void grow();
  std::vector<Slot> slots_;
  std::size_t mask_ = 0;
  std::int32_t size_ = 0;
};

}  // namespace blis::vllm
