#include "cluster/event_queue.h"

#include <gtest/gtest.h>

#include "util/rng.h"

namespace blis::cluster {
namespace {

TEST(EventQueue, OrdersByTimeThenClassThenPushOrder) {
  EventQueue q;
  q.push(20, EventClass::kArrival, 0, 1);
  q.push(10, EventClass::kSample, 0, 2);
  q.push(10, EventClass::kBatchDone, 0, 3);
  q.push(10, EventClass::kArrival, 0, 4);
  q.push(10, EventClass::kArrival, 0, 5);
  q.push(5, EventClass::kEngineLoop, 0, 6);
  std::vector<std::uint64_t> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{6, 3, 4, 5, 2, 1}));
}

TEST(EventQueue, MatchesASortOnRandomInput) {
  EventQueue q;
  Rng rng(3);
  std::vector<Event> ref;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const SimTime t = rng.uniform_int(0, 200);
    const auto cls = static_cast<EventClass>(rng.uniform_int(0, 9));
    q.push(t, cls, 0, i);
    ref.push_back(Event{t, cls, i, 0, i});
  }
  std::stable_sort(ref.begin(), ref.end(), [](const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.cls < b.cls;
  });
  for (const Event& e : ref) {
    ASSERT_FALSE(q.empty());
    EXPECT_EQ(q.pop().payload, e.payload);
  }
  EXPECT_TRUE(q.empty());
}

}  // namespace
}  // namespace blis::cluster
