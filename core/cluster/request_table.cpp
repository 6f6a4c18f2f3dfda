#include "cluster/request_table.h"

#include "util/slot_pool.h"

namespace blis::cluster {

RequestRecord& RequestTable::allocate(std::uint64_t seq) {
  const std::uint32_t slot = take_slot(slots_, free_);
  RequestRecord& r = slots_[slot];
  // Keep the token vector's capacity: the next request reuses it.
  std::vector<std::int32_t> tokens = std::move(r.gen.prompt_token_ids);
  r = RequestRecord{};
  r.gen.prompt_token_ids = std::move(tokens);
  r.gen.prompt_token_ids.clear();
  r.key = (static_cast<engine::RequestKey>(seq) << 32) | slot;
  r.live = true;
  ++live_;
  return r;
}

RequestRecord* RequestTable::find(engine::RequestKey key) {
  const std::uint32_t slot = slot_of(key);
  if (slot >= slots_.size()) return nullptr;
  RequestRecord& r = slots_[slot];
  return (r.live && r.key == key) ? &r : nullptr;
}

void RequestTable::release(std::uint32_t slot) {
  RequestRecord& r = slots_[slot];
  if (!r.live) return;
  r.live = false;
  --live_;
  free_.push_back(slot);
}

void RequestTable::clear() {
  slots_.clear();
  free_.clear();
  live_ = 0;
}

}  // namespace blis::cluster
