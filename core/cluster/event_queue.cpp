#include "cluster/event_queue.h"

#include <utility>

namespace blis::cluster {
namespace {

// True when a runs before b.
bool before(const Event& a, const Event& b) {
  if (a.time != b.time) return a.time < b.time;
  if (a.cls != b.cls) return a.cls < b.cls;
  return a.seq < b.seq;
}

}  // namespace

void EventQueue::push(SimTime time, EventClass cls, std::uint32_t target, std::uint64_t payload) {
  heap_.push_back(Event{time, cls, next_seq_++, target, payload});
  sift_up(heap_.size() - 1);
}

Event EventQueue::pop() {
  Event out = heap_.front();
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
  return out;
}

void EventQueue::clear() {
  heap_.clear();
  next_seq_ = 0;
}

void EventQueue::sift_up(std::size_t i) {
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!before(heap_[i], heap_[parent])) return;
    std::swap(heap_[i], heap_[parent]);
    i = parent;
  }
}

void EventQueue::sift_down(std::size_t i) {
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t best = i;
    const std::size_t l = 2 * i + 1, r = l + 1;
    if (l < n && before(heap_[l], heap_[best])) best = l;
    if (r < n && before(heap_[r], heap_[best])) best = r;
    if (best == i) return;
    std::swap(heap_[i], heap_[best]);
    i = best;
  }
}

}  // namespace blis::cluster
