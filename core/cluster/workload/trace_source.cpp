#include "cluster/workload/slot_source.h"
#include "scenario/trace_csv.h"

namespace blis::cluster {

namespace {

class TraceSource final : public LookaheadSource {
 public:
  TraceSource(std::string csv, SimTime horizon) : reader_(std::move(csv)), horizon_(horizon) {
    advance();
  }

 private:
  void advance() override {
    TraceRow row;
    if (!reader_.next(row)) {
      done_ = true;
      return;
    }
    const SimTime t = from_seconds(row.arrival_s);
    if (t > horizon_) {
      done_ = true;
      return;
    }
    next_.time = t;
    next_.index = index_++;
    next_.row = row;
  }

  scenario::TraceCsvReader reader_;
  SimTime horizon_;
  std::uint64_t index_ = 0;
};

}  // namespace

std::unique_ptr<SlotSource> make_trace_source(std::string csv, SimTime horizon) {
  return std::make_unique<TraceSource>(std::move(csv), horizon);
}

}  // namespace blis::cluster
