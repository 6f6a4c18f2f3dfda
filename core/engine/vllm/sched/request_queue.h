#pragma once
// The waiting queues of the scheduler (vllm v1/core/sched/request_queue.py): FCFS is a deque
// (prepend puts a request at the front), PRIORITY a heap ordered by Request.__lt__ (priority,
// then arrival time, then request id), where every "prepend" is an ordinary insert. Both hold
// request slot indices and never allocate once their buffers have grown.

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/vllm/request.h"
#include "engine/vllm/vllm_config.h"

namespace blis::vllm {

// vllm v1/request.py Request.__lt__: lower priority value first, then earlier arrival, then
// the request id as a string.
bool request_less(const Request& a, const Request& b);

class RequestQueue {
 public:
  virtual ~RequestQueue() = default;
  virtual void add_request(std::int32_t r) = 0;
  virtual std::int32_t pop_request() = 0;
  virtual std::int32_t peek_request() const = 0;
  virtual void prepend_request(std::int32_t r) = 0;
  // Puts every request of `other` in front in reverse order (FCFS: deque.extendleft), or
  // inserts them (PRIORITY). `other` is left unchanged.
  virtual void prepend_requests(const RequestQueue& other) = 0;
  // Removes the given requests (stopped or aborted while waiting); order of the rest kept.
  virtual void remove_requests(const std::vector<std::int32_t>& rs) = 0;
  virtual bool remove_request(std::int32_t r) = 0;
  virtual std::int32_t size() const = 0;
  bool empty() const { return size() == 0; }
  virtual void clear() = 0;
  // The requests in pop order (for tests and reports).
  virtual std::vector<std::int32_t> in_order() const = 0;
};

// `requests` resolves a slot index to its request (the PRIORITY heap compares requests).
std::unique_ptr<RequestQueue> create_request_queue(SchedulingPolicy policy,
                                                   const std::vector<Request>* requests);

}  // namespace blis::vllm
