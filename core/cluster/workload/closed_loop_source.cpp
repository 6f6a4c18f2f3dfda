// Closed loop: N users, each with at most one request outstanding. Every user issues its
// first request at time 0; a user whose request finished at t issues its next one at
// t + think_time_s. Users are served in (ready time, order they became ready) order.

#include <algorithm>
#include <vector>

#include "cluster/workload/slot_source.h"

namespace blis::cluster {

namespace {

class ClosedLoopSource final : public SlotSource {
 public:
  ClosedLoopSource(const scenario::Load& load, SimTime horizon)
      : think_(from_seconds(load.think_time_s)), horizon_(horizon) {
    const auto n = static_cast<std::size_t>(std::max<std::int32_t>(load.concurrency, 0));
    ready_.reserve(n);
    for (std::size_t u = 0; u < n; ++u) push(0, static_cast<std::int32_t>(u));
    refresh();
  }

  const Slot* peek() const override { return ready_.empty() ? nullptr : &next_; }

  void take() override {
    if (ready_.empty()) return;
    std::pop_heap(ready_.begin(), ready_.end(), Later{});
    ready_.pop_back();
    ++out_;
    ++index_;
    refresh();
  }

  void user_returned(std::int32_t user, SimTime now) override {
    if (out_ == 0) return;  // not one of ours: nothing is outstanding
    --out_;
    const SimTime t = add_saturating(now, think_);
    if (t > horizon_) return;  // this user is done
    push(t, user);
    refresh();
  }

  bool done() const override { return ready_.empty() && out_ == 0; }

 private:
  struct Ready {
    SimTime time;
    std::uint64_t order;
    std::int32_t user;
  };
  struct Later {
    bool operator()(const Ready& a, const Ready& b) const {
      return a.time != b.time ? a.time > b.time : a.order > b.order;
    }
  };

  void push(SimTime t, std::int32_t user) {
    if (t > horizon_) return;
    ready_.push_back({t, order_++, user});
    std::push_heap(ready_.begin(), ready_.end(), Later{});
  }

  void refresh() {
    if (ready_.empty()) return;
    next_.time = ready_.front().time;
    next_.user = ready_.front().user;
    next_.index = index_;
  }

  SimTime think_;
  SimTime horizon_;
  std::vector<Ready> ready_;  // a min-heap; never more than N entries
  std::uint64_t order_ = 0;
  std::uint64_t index_ = 0;
  std::int64_t out_ = 0;  // users with a request outstanding
  Slot next_;
};

}  // namespace

std::unique_ptr<SlotSource> make_closed_loop_source(const scenario::Load& load, SimTime horizon) {
  return std::make_unique<ClosedLoopSource>(load, horizon);
}

}  // namespace blis::cluster
