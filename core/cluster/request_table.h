#pragma once
// RequestTable: the records of requests in flight, in a slab with a free list, so memory
// follows in-flight requests and lookups by engine key are O(1). The engine key encodes the
// slot: key = (seq << 32) | slot, where seq is the workload's request number.

#include <cstdint>
#include <optional>
#include <vector>

#include "cluster/workload/workload.h"
#include "engine/engine.h"
#include "util/sim_time.h"

namespace blis::cluster {

inline constexpr SimTime kUnset = -1;

// Field order: what applying a step's output reads and writes for every request of the batch
// (the key and liveness `find` checks, the token times and counts) comes first, in the
// record's first cache line (64-byte aligned); identity, the generated request and the P/D
// parameters, read at admission and finish, come after. Field order changes no value.
struct alignas(64) RequestRecord {
  // ---- hot: read or written for every request of every step ----
  engine::RequestKey key = 0;
  std::int32_t instance = -1;  // the instance serving it now (P/D: prefill, then decode)
  bool engine_done = false;    // the engine reported a finish (or it was aborted)
  bool live = false;
  std::uint8_t pd_stage = 0;     // 0 unified, 1 at the prefill pool, 2 at the decode pool
  SimTime first_token = kUnset;  // the client received the first output token
  SimTime last_token = kUnset;   // ... the latest one
  std::int32_t output_tokens = 0;
  std::int32_t cached_tokens = 0;
  std::int32_t preemptions = 0;
  // ---- cold: admission, first scheduling, finish ----
  SimTime sent = kUnset;               // the client sent it (arrival at the server)
  SimTime engine_arrival = kUnset;     // it reached EngineCore (after HTTP + tokenization)
  SimTime first_scheduled = kUnset;    // first forward pass that included it
  SimTime finish = kUnset;             // the client received the last token (or the abort)
  std::int32_t prefill_instance = -1;  // P/D: the prefill instance (holds the KV until read)
  GeneratedRequest gen;
  // P/D: the kv_transfer_params P returned with its finishing output (where D reads).
  std::optional<engine::KvTransferParams> pd_params;
  std::int32_t epp_decode = -1;   // router epp in P/D: the decode endpoint picked at arrival
  std::int32_t dp_rank = -1;      // router epp, data-parallel-profile-handler: the rank picked
  bool gateway_rejected = false;  // router epp: refused at admission (never reached an engine)
  bool kv_load_error = false;     // the engine finished it with an error (a failed KV load)
  bool flow_held = false;         // router epp, flow control: queued, or dropped from the queue
};

class RequestTable {
 public:
  // A fresh record for a generated request; its key is set. The reference stays valid until
  // the next allocate().
  RequestRecord& allocate(std::uint64_t seq);
  RequestRecord& at_slot(std::uint32_t slot) { return slots_[slot]; }
  RequestRecord* find(engine::RequestKey key);
  void release(std::uint32_t slot);
  std::size_t live() const { return live_; }
  std::size_t capacity() const { return slots_.size(); }
  static std::uint32_t slot_of(engine::RequestKey key) {
    return static_cast<std::uint32_t>(key & 0xffffffffULL);
  }
  void clear();

 private:
  std::vector<RequestRecord> slots_;
  std::vector<std::uint32_t> free_;
  std::size_t live_ = 0;
};

}  // namespace blis::cluster
