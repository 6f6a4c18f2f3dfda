#pragma once
// Where a client's slots come from: an open-loop arrival process (rate or stages with
// poisson / constant / gamma gaps), a closed loop of users, or the rows of a trace.

#include <cstdint>
#include <memory>
#include <string>

#include "cluster/workload/slot.h"
#include "scenario/scenario.h"
#include "util/sim_time.h"

namespace blis::cluster {

class SlotSource {
 public:
  virtual ~SlotSource() = default;
  // The next slot in time order, or nullptr when none is due now (a closed loop whose users
  // are all busy) or ever (see done()).
  virtual const Slot* peek() const = 0;
  // Consumes the slot peek() returned.
  virtual void take() = 0;
  // Closed loops: `user` got its answer at `now`; it issues its next request after its
  // think time. Other sources ignore it.
  virtual void user_returned(std::int32_t user, SimTime now) {}
  // True when no slot will ever come again.
  virtual bool done() const = 0;
};

// A source that always knows its next slot (open loop, trace): advance() computes the next
// one into next_, or sets done_; the derived constructor calls it once for the first.
class LookaheadSource : public SlotSource {
 public:
  const Slot* peek() const final { return done_ ? nullptr : &next_; }
  void take() final {
    if (!done_) advance();
  }
  bool done() const final { return done_; }

 protected:
  virtual void advance() = 0;
  Slot next_;
  bool done_ = false;
};

// Open loop: `load` is kRate or kStages. Slots after `horizon` are never produced.
// `stream_name` names the RNG stream of the gaps.
std::unique_ptr<SlotSource> make_open_loop_source(const scenario::Load& load, SimTime horizon,
                                                  std::uint64_t seed,
                                                  const std::string& stream_name);

// Closed loop: load.concurrency users, each issuing its first request at time 0 and its
// next one think_time_s after its previous one finished. No slot after `horizon`.
std::unique_ptr<SlotSource> make_closed_loop_source(const scenario::Load& load, SimTime horizon);

// Trace replay: one slot per row of `csv` (scenario/trace_csv.h), at its arrival time; rows
// after `horizon` end the trace. Throws scenario::TraceCsvError on a bad header (and later on a bad
// row).
std::unique_ptr<SlotSource> make_trace_source(std::string csv, SimTime horizon);

}  // namespace blis::cluster
