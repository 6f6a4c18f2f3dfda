#pragma once
// EventQueue: the cluster's one event queue. A binary heap keyed by (time, event class,
// sequence number), so events at the same instant run in a fixed class order and, within a
// class, in the order they were pushed: ties are deterministic. Push and pop are O(log n) in
// the number of pending events and allocation-free once the heap has grown.

#include <cstdint>
#include <vector>

#include "util/sim_time.h"

namespace blis::cluster {

// Events at the same instant run in this order. Completions come first so that their effects
// (freed KV blocks, finished requests) are visible to everything else that happens at that
// instant; arrivals come before the engine loop so that requests arriving together are all in
// the waiting queue when the engine schedules; samples come last so they see the instant's
// final state.
enum class EventClass : std::uint8_t {
  kBatchDone = 0,    // an in-flight forward pass finished on the GPU
  kTransferDone,     // a KV transfer between instances finished (P/D)
  kEngineWake,       // the engine asked to be called at this instant (next_wake)
  kRequestFinished,  // the client received a request's last token
  kClientTimeout,    // the client gave up on a request
  kArrival,          // the client sent the next request (router decides)
  kEngineArrival,    // a request reached the engine (after HTTP + tokenization)
  kEngineLoop,       // the engine-core thread runs one busy-loop iteration
  kFlowControl,      // the EPP's flow controller: its dispatch ticker, or a queued TTL expiry
  kHorizonEnd,       // the run stops (horizon without drain)
  kSample,           // time-series sample
};

struct Event {
  SimTime time = 0;
  EventClass cls = EventClass::kSample;
  std::uint64_t seq = 0;      // assigned by push(): FIFO among equal (time, class)
  std::uint32_t target = 0;   // instance index (or unused)
  std::uint64_t payload = 0;  // request slot, batch id, ...
};

class EventQueue {
 public:
  void push(SimTime time, EventClass cls, std::uint32_t target = 0, std::uint64_t payload = 0);
  // The earliest event. Requires !empty().
  const Event& top() const { return heap_.front(); }
  Event pop();
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  std::uint64_t pushed() const { return next_seq_; }
  void clear();
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  std::vector<Event> heap_;
  std::uint64_t next_seq_ = 0;
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
};

}  // namespace blis::cluster
