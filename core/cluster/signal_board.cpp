#include "cluster/signal_board.h"

namespace blis::cluster {

SignalBoard::SignalBoard(std::size_t instances, SimTime staleness)
    : lanes_(instances), staleness_(staleness) {}

void SignalBoard::publish(std::size_t instance, SimTime t, const InstanceSignals& s) {
  Lane& lane = lanes_[instance];
  if (staleness_ <= 0) {
    lane.current = s;
    return;
  }
  // Compact the FIFO when its consumed head dominates, keeping pushes amortized O(1).
  if (lane.head > 0 && lane.head * 2 >= lane.pending.size()) {
    lane.pending.erase(lane.pending.begin(),
                       lane.pending.begin() + static_cast<std::ptrdiff_t>(lane.head));
    lane.head = 0;
  }
  // Several changes at one instant: only the last one is ever visible.
  if (lane.pending.size() > lane.head && lane.pending.back().t == t) {
    lane.pending.back().s = s;
    return;
  }
  lane.pending.push_back(Stamped{t, s});
}

const InstanceSignals& SignalBoard::view(std::size_t instance, SimTime now) {
  Lane& lane = lanes_[instance];
  const SimTime horizon = now - staleness_;
  while (lane.head < lane.pending.size() && lane.pending[lane.head].t <= horizon) {
    lane.current = lane.pending[lane.head].s;
    ++lane.head;
  }
  return lane.current;
}

}  // namespace blis::cluster
