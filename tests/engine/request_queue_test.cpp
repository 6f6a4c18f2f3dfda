// Request queues (request_queue.py): FCFS deque semantics and the PRIORITY order.
#include "engine/vllm/sched/request_queue.h"

#include <gtest/gtest.h>

namespace blis::vllm {
namespace {

std::vector<Request> table(std::initializer_list<std::tuple<const char*, int, double>> rs) {
  std::vector<Request> v;
  for (const auto& [id, prio, arrival] : rs) {
    Request r;
    r.request_id = id;
    r.priority = prio;
    r.arrival_time = arrival;
    v.push_back(r);
  }
  return v;
}

TEST(RequestQueue, FcfsIsADeque) {
  auto q = create_request_queue(SchedulingPolicy::kFcfs, nullptr);
  for (int i = 0; i < 40; ++i) q->add_request(i);  // grows past its first buffer
  EXPECT_EQ(q->peek_request(), 0);
  EXPECT_EQ(q->pop_request(), 0);
  q->prepend_request(99);
  EXPECT_EQ(q->peek_request(), 99);
  q->remove_requests({99, 5, 39});
  EXPECT_EQ(q->size(), 37);
  EXPECT_EQ(q->pop_request(), 1);
  auto other = create_request_queue(SchedulingPolicy::kFcfs, nullptr);
  other->add_request(100);
  other->add_request(101);
  q->prepend_requests(*other);  // deque.extendleft: at the front, in reverse order
  EXPECT_EQ(q->in_order()[0], 101);
  EXPECT_EQ(q->in_order()[1], 100);
  EXPECT_EQ(q->in_order()[2], 2);
  EXPECT_TRUE(q->remove_request(100));
  EXPECT_FALSE(q->remove_request(100));
  q->clear();
  EXPECT_TRUE(q->empty());
  EXPECT_THROW(q->pop_request(), std::logic_error);
}

TEST(RequestQueue, PriorityOrdersByPriorityArrivalThenId) {
  const auto reqs =
      table({{"b", 1, 5.0}, {"a", 1, 5.0}, {"c", 1, 4.0}, {"z", 0, 9.0}, {"y", 2, 0.0}});
  auto q = create_request_queue(SchedulingPolicy::kPriority, &reqs);
  for (int i = 0; i < 5; ++i) q->add_request(i);
  EXPECT_EQ(q->in_order(), (std::vector<std::int32_t>{3, 2, 1, 0, 4}));
  q->remove_requests({2});
  EXPECT_EQ(q->pop_request(), 3);
  EXPECT_EQ(q->pop_request(), 1);
  q->prepend_request(2);  // a heap push, not the front
  EXPECT_EQ(q->pop_request(), 2);
  EXPECT_EQ(q->pop_request(), 0);
  EXPECT_EQ(q->pop_request(), 4);
  EXPECT_TRUE(request_less(reqs[1], reqs[0]));
  EXPECT_FALSE(request_less(reqs[0], reqs[0]));
}

}  // namespace
}  // namespace blis::vllm
