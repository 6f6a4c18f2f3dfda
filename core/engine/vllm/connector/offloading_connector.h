#pragma once
// OffloadingConnector, scheduler side (vllm distributed/kv_transfer/kv_connector/v1/
// offloading_connector.py OffloadingConnectorScheduler with the CPU backend; spec
// vllm-metrics-connector-config.md §B.7): a CPU tier of KV blocks behind the GPU prefix cache.
//
// - lookup: the consecutive CPU hits beyond the GPU hit are loaded asynchronously (the
//   request waits in WAITING_FOR_REMOTE_KVS, like a NIXL pull);
// - store: every offload block that becomes full is written to the CPU tier (async; it
//   becomes visible to lookups when the write ends);
// - a finished request whose stores are still in flight keeps its GPU blocks until they end;
// - blocks being loaded or stored are pinned: the CPU LRU never evicts them.
// The cluster times the loads and stores over the GPU's host link (take_transfers).

#include <cstdint>
#include <list>
#include <span>
#include <unordered_map>
#include <vector>

#include "engine/vllm/connector/kv_connector.h"

namespace blis::vllm {

struct OffloadingConfig {
  std::int64_t num_cpu_blocks = 0;       // CPU tier capacity, in offload blocks
  std::int32_t gpu_block_size = 16;      // tokens per GPU (hash) block
  std::int32_t offload_block_size = 16;  // tokens per offload block (a multiple of the above)
  std::int32_t max_num_seqs = 256;       // backpressure: at most this many requests loading
};

// The CPU tier: an LRU pool of offload blocks keyed by the chained block hash of their last
// GPU block (vllm v1/kv_offload/lru_manager.py LRUOffloadingManager).
class CpuBlockLru {
 public:
  explicit CpuBlockLru(std::int64_t capacity) : capacity_(capacity) {}
  // lookup: is the block stored (and its write complete)?
  bool ready(const BlockHash& h) const;
  void touch(const BlockHash& h);  // most recently used
  void pin(const BlockHash& h);    // prepare_load
  void unpin(const BlockHash& h);  // complete_load
  // prepare_store: of `hashes`, those not yet in the tier go to `to_store` and get room
  // (pinned until complete_store), evicting least recently used ready, unpinned blocks. If
  // there is not room for all of them it changes nothing and returns false.
  bool prepare_store(std::span<const BlockHash> hashes, std::vector<BlockHash>& to_store);
  void complete_store(const BlockHash& h);  // visible to lookups, unpinned
  std::int64_t size() const { return static_cast<std::int64_t>(entries_.size()); }
  std::int64_t capacity() const { return capacity_; }
  std::uint64_t evictions() const { return evictions_; }
  bool contains(const BlockHash& h) const { return entries_.count(h) != 0; }

 private:
  struct Hasher {
    std::size_t operator()(const BlockHash& h) const {
      return static_cast<std::size_t>(h.lo ^ (h.hi * 0x9E3779B97F4A7C15ULL));
    }
  };
  struct Entry {
    bool ready = false;     // the write finished
    std::int32_t pins = 0;  // loads in flight (a write in flight pins it too: !ready)
    std::list<BlockHash>::iterator lru;
  };
  std::int64_t capacity_;
  std::uint64_t evictions_ = 0;
  std::list<BlockHash> lru_;                              // front = least recently used
  std::unordered_map<BlockHash, Entry, Hasher> entries_;  // looked up, never iterated
};

class OffloadingConnector final : public KVConnector {
 public:
  explicit OffloadingConnector(const OffloadingConfig& cfg);

  MatchedTokens get_num_new_matched_tokens(const Request& r,
                                           std::int32_t num_local_computed) override;
  void update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                std::int32_t num_external_tokens) override;
  bool request_finished(Request& r, std::span<const std::int32_t> blocks) override;
  void build_connector_meta(const SchedulerOutput& out, const Scheduler& s) override;

  void take_transfers(std::vector<engine::TransferRequest>& out) override;
  TransferEffect on_transfer_finished(const engine::TransferRequest& t) override;

  const CpuBlockLru& cpu() const { return cpu_; }
  std::size_t num_loading() const { return loads_.size(); }
  std::size_t num_storing() const { return stores_.size(); }

 private:
  struct Job {  // one load or store in flight
    std::uint64_t id = 0;
    bool load = false;
    ReqRef ref;
    engine::RequestKey key = 0;
    std::vector<BlockHash> hashes;
  };
  struct ReqState {
    std::uint32_t gen = 0;
    std::int32_t next_store = 0;  // offload blocks [0, next_store) were offered to the store
    std::int32_t stores_in_flight = 0;
    bool finished = false;  // request_finished delayed the free
  };
  BlockHash offload_hash(const Request& r, std::int32_t offload_block) const;
  ReqState& state_of(const Request& r);
  void emit(Job job, std::int32_t num_gpu_blocks);

  OffloadingConfig cfg_;
  std::int32_t factor_;  // GPU blocks per offload block
  CpuBlockLru cpu_;
  std::uint64_t next_id_ = 1;
  std::vector<engine::TransferRequest> pending_;
  std::vector<Job> loads_, stores_;                  // in flight, in start order
  std::unordered_map<std::int32_t, ReqState> reqs_;  // by scheduler slot; never iterated
  std::vector<BlockHash> loading_;                   // hashes being loaded (any request)
  std::vector<BlockHash> scratch_, to_store_;
};

}  // namespace blis::vllm
