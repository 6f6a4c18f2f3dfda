#include "engine/vllm/sched/request_queue.h"

#include <algorithm>
#include <stdexcept>

namespace blis::vllm {

bool request_less(const Request& a, const Request& b) {
  if (a.priority != b.priority) return a.priority < b.priority;
  if (a.arrival_time != b.arrival_time) return a.arrival_time < b.arrival_time;
  return a.request_id < b.request_id;
}

namespace {

// FCFS: a growable ring buffer (a deque that keeps its storage).
class FcfsRequestQueue final : public RequestQueue {
 public:
  void add_request(std::int32_t r) override {
    grow_if_full();
    buf_[(head_ + size_) & mask()] = r;
    ++size_;
  }
  std::int32_t pop_request() override {
    if (size_ == 0) throw std::logic_error("pop from an empty queue");
    const std::int32_t r = buf_[head_];
    head_ = (head_ + 1) & mask();
    --size_;
    return r;
  }
  std::int32_t peek_request() const override {
    if (size_ == 0) throw std::logic_error("peek from an empty queue");
    return buf_[head_];
  }
  void prepend_request(std::int32_t r) override {
    // request_queue.py FCFSRequestQueue.prepend_request: appendleft.
    grow_if_full();
    head_ = (head_ + buf_.size() - 1) & mask();
    buf_[head_] = r;
    ++size_;
  }
  void prepend_requests(const RequestQueue& other) override {
    // request_queue.py FCFSRequestQueue.prepend_requests at 8d9b52f7: extendleft(other), so
    // `other` ends up at the front in REVERSE order (golden case 33).
    const auto& o = static_cast<const FcfsRequestQueue&>(other);
    for (std::int32_t k = 0; k < o.size_; ++k) prepend_request(o.at(k));
  }
  void remove_requests(const std::vector<std::int32_t>& rs) override {
    if (rs.empty()) return;
    std::int32_t kept = 0;
    for (std::int32_t k = 0; k < size_; ++k) {
      const std::int32_t r = at(k);
      if (std::find(rs.begin(), rs.end(), r) != rs.end()) continue;
      buf_[(head_ + static_cast<std::size_t>(kept)) & mask()] = r;
      ++kept;
    }
    size_ = kept;
  }
  bool remove_request(std::int32_t r) override {
    const std::int32_t before = size_;
    remove_requests({r});
    return size_ != before;
  }
  std::int32_t size() const override { return size_; }
  void clear() override {
    head_ = 0;
    size_ = 0;
  }
  std::vector<std::int32_t> in_order() const override {
    std::vector<std::int32_t> out;
    for (std::int32_t k = 0; k < size_; ++k) out.push_back(at(k));
    return out;
  }

 private:
  std::size_t mask() const { return buf_.size() - 1; }
  std::int32_t at(std::int32_t k) const {
    return buf_[(head_ + static_cast<std::size_t>(k)) & mask()];
  }
  void grow_if_full() {
    if (static_cast<std::size_t>(size_) < buf_.size()) return;
    std::vector<std::int32_t> bigger(buf_.empty() ? 16 : buf_.size() * 2);
    for (std::int32_t k = 0; k < size_; ++k) bigger[static_cast<std::size_t>(k)] = at(k);
    buf_.swap(bigger);
    head_ = 0;
  }
  std::vector<std::int32_t> buf_;
  std::size_t head_ = 0;
  std::int32_t size_ = 0;
};

// PRIORITY: a binary min-heap under request_less. Pop order depends only on the total order
// (request ids are unique), so it matches Python's heapq whatever the heap's layout.
class PriorityRequestQueue final : public RequestQueue {
 public:
  explicit PriorityRequestQueue(const std::vector<Request>* reqs) : reqs_(reqs) {}
  void add_request(std::int32_t r) override {
    heap_.push_back(r);
    std::push_heap(heap_.begin(), heap_.end(), greater());
  }
  std::int32_t pop_request() override {
    if (heap_.empty()) throw std::logic_error("pop from an empty queue");
    std::pop_heap(heap_.begin(), heap_.end(), greater());
    const std::int32_t r = heap_.back();
    heap_.pop_back();
    return r;
  }
  std::int32_t peek_request() const override {
    if (heap_.empty()) throw std::logic_error("peek from an empty queue");
    return heap_.front();
  }
  // request_queue.py PriorityRequestQueue: prepending is an ordinary heap push.
  void prepend_request(std::int32_t r) override { add_request(r); }
  void prepend_requests(const RequestQueue& other) override {
    const auto& o = static_cast<const PriorityRequestQueue&>(other);
    for (const std::int32_t r : o.heap_) add_request(r);
  }
  void remove_requests(const std::vector<std::int32_t>& rs) override {
    if (rs.empty()) return;
    heap_.erase(std::remove_if(
                    heap_.begin(), heap_.end(),
                    [&](std::int32_t r) { return std::find(rs.begin(), rs.end(), r) != rs.end(); }),
                heap_.end());
    std::make_heap(heap_.begin(), heap_.end(), greater());
  }
  bool remove_request(std::int32_t r) override {
    const std::size_t before = heap_.size();
    remove_requests({r});
    return heap_.size() != before;
  }
  std::int32_t size() const override { return static_cast<std::int32_t>(heap_.size()); }
  void clear() override { heap_.clear(); }
  std::vector<std::int32_t> in_order() const override {
    std::vector<std::int32_t> out = heap_;
    std::sort(out.begin(), out.end(),
              [this](std::int32_t a, std::int32_t b) { return request_less(req(a), req(b)); });
    return out;
  }

 private:
  const Request& req(std::int32_t r) const { return (*reqs_)[static_cast<std::size_t>(r)]; }
  // Heap comparator: std::*_heap build a max-heap, so "greater" makes the best request top.
  struct Greater {
    const std::vector<Request>* reqs;
    bool operator()(std::int32_t a, std::int32_t b) const {
      return request_less((*reqs)[static_cast<std::size_t>(b)],
                          (*reqs)[static_cast<std::size_t>(a)]);
    }
  };
  Greater greater() const { return Greater{reqs_}; }
  const std::vector<Request>* reqs_;
  std::vector<std::int32_t> heap_;
};

}  // namespace

std::unique_ptr<RequestQueue> create_request_queue(SchedulingPolicy policy,
                                                   const std::vector<Request>* requests) {
  if (policy == SchedulingPolicy::kPriority)
    return std::make_unique<PriorityRequestQueue>(requests);
  return std::make_unique<FcfsRequestQueue>();
}

}  // namespace blis::vllm
