#pragma once
// One client's requests: a slot source (open loop, closed loop or trace) and a request shape
// (token-length distributions with optional prefix groups, inference-perf's shared_prefix,
// or trace rows). Slots are turned into requests lazily, in (arrival, scheduling order)
// order; a multi-turn turn whose session is waiting for an answer is held until it comes.

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/workload/shared_prefix_shape.h"
#include "cluster/workload/slot_source.h"
#include "cluster/workload/workload.h"
#include "scenario/scenario.h"
#include "util/rng.h"

namespace blis::cluster {

class ClientStream {
 public:
  // A client of the scenario (`index` into workload.clients).
  ClientStream(const scenario::Client& client, std::int32_t index, std::uint64_t seed,
               SimTime horizon);
  // A whole-workload trace (workload.trace_csv), reported as client 0.
  ClientStream(const scenario::Trace& trace, std::uint64_t seed, SimTime horizon);

  // Arrival and scheduling order of the next request, or kSimTimeNever when none is ready.
  SimTime head_time() const { return ready_.empty() ? kSimTimeNever : ready_.front().time; }
  std::uint64_t head_order() const { return ready_.empty() ? 0 : ready_.front().slot.index; }
  // Builds the next request (everything but `seq`).
  void pop(GeneratedRequest& out);
  void on_finished(const GeneratedRequest& req, std::int32_t output_tokens, SimTime now);
  bool exhausted() const;

 private:
  enum class Shape { kLengths, kSharedPrefix, kTrace };
  struct Ready {
    SimTime time;
    Slot slot;
  };
  struct Later {
    bool operator()(const Ready& a, const Ready& b) const {
      return a.time != b.time ? a.time > b.time : a.slot.index > b.slot.index;
    }
  };
  // Per-session history of a trace (its previous turn's prompt and output).
  struct TraceSession {
    std::vector<std::int32_t> history;
    std::int32_t turns = 0;
  };

  void init_common(const std::string& name, std::uint64_t seed);
  void settle();
  void push_ready(SimTime time, const Slot& slot);
  void fill_lengths(const Slot& slot, GeneratedRequest& out);
  void fill_trace(const Slot& slot, GeneratedRequest& out);

  std::int32_t index_ = 0;
  Shape shape_ = Shape::kLengths;
  bool closed_loop_ = false;
  std::unique_ptr<SlotSource> source_;
  std::vector<Ready> ready_;  // a min-heap on (time, slot.index)
  SimTime now_ = 0;           // the latest instant this client has been told about

  // Request fields every request of the client carries.
  bool ignore_eos_ = true;
  std::int32_t priority_ = 0;
  std::int32_t lora_ = 0;
  std::string slo_class_;
  // LoRA adapters (scenario Client.adapters): each request draws one, or the base model.
  std::vector<scenario::LoraAdapter> adapters_;
  Rng adapter_rng_;
  std::int32_t draw_adapter();

  // Lengths shape.
  std::optional<scenario::LengthDist> prompt_dist_, output_dist_;
  std::optional<scenario::PrefixGroups> prefix_;
  Rng length_rng_, prefix_rng_;
  std::vector<std::int32_t> user_turns_;  // closed loop: requests issued per user

  // Token keys (token_ids.h).
  std::uint64_t tokens_key_ = 0, prefix_key_ = 0;

  std::unique_ptr<SharedPrefixShape> shared_prefix_;
  std::map<std::int64_t, TraceSession> trace_sessions_;
};

}  // namespace blis::cluster
