// Open-loop arrivals: a renewal process per load stage.
//
// Within a stage of rate r, the k-th arrival comes one gap after the (k-1)-th, the first one
// gap after the stage starts: constant gaps are exactly 1/r (the k-th arrival is at
// start + k/r, computed, not accumulated, so instants are exact); poisson gaps are
// exponential with mean 1/r; gamma gaps have shape 1/cv^2 and scale cv^2/r (mean 1/r,
// coefficient of variation cv). An arrival that would fall after the stage's end is dropped
// and the next stage starts its own process at its start (exact for poisson, a renewal
// restart for the others). An arrival exactly at a stage's end belongs to that stage, so a
// constant stage of rate r and duration d has floor(r*d) arrivals, as many as inference-perf
// sends (loadgen/load_generator.py run_stage: num_requests = int(rate * duration)).

#include <cmath>
#include <vector>

#include "cluster/workload/slot_source.h"
#include "util/rng.h"

namespace blis::cluster {

namespace {

using ArrivalKind = scenario::ArrivalProcess::Kind;

// Beyond this many seconds an instant no longer fits a SimTime: the process has ended.
constexpr double kLastRepresentableSecond = 9.0e12;

class OpenLoopSource final : public LookaheadSource {
 public:
  OpenLoopSource(const scenario::Load& load, SimTime horizon, Rng rng)
      : arrival_(load.arrival), horizon_(horizon), rng_(rng) {
    if (load.kind == scenario::Load::Kind::kRate) {
      stages_.push_back({load.rate, HUGE_VAL});
    } else {
      for (const auto& s : load.stages) stages_.push_back({s.rate, s.duration_s});
    }
    advance();
  }

 private:
  struct Stage {
    double rate;
    double duration_s;  // HUGE_VAL: open-ended
  };

  double gap(double rate) {
    const double mean = 1.0 / rate;
    if (arrival_.kind == ArrivalKind::kPoisson) return rng_.exponential(mean);
    const double cv2 = arrival_.cv * arrival_.cv;
    return rng_.gamma(1.0 / cv2, mean * cv2);
  }

  // Computes the next arrival (or done_).
  void advance() override {
    while (stage_ < stages_.size()) {
      const Stage& st = stages_[stage_];
      const double end_s = stage_start_s_ + st.duration_s;
      if (st.rate > 0) {
        double offset = 0;
        if (arrival_.kind == ArrivalKind::kConstant) {
          offset = static_cast<double>(count_ + 1) / st.rate;
        } else {
          offset = offset_s_ + gap(st.rate);
        }
        const double t_s = stage_start_s_ + offset;
        if (!(t_s < kLastRepresentableSecond)) break;
        const SimTime t = from_seconds(t_s);
        // Compare instants, not doubles: start + k/r may land a rounding error past `end`.
        const bool in_stage = st.duration_s == HUGE_VAL || t <= from_seconds(end_s);
        if (in_stage) {
          if (t > horizon_) break;
          offset_s_ = offset;
          ++count_;
          next_.time = t;
          next_.index = index_++;
          next_.stage = static_cast<std::int32_t>(stage_);
          return;
        }
      }
      if (st.duration_s == HUGE_VAL) break;
      // The next stage starts its own process at its start.
      stage_start_s_ = end_s;
      ++stage_;
      offset_s_ = 0;
      count_ = 0;
      if (!(stage_start_s_ < kLastRepresentableSecond) || from_seconds(stage_start_s_) > horizon_)
        break;
    }
    done_ = true;
  }

  scenario::ArrivalProcess arrival_;
  SimTime horizon_;
  Rng rng_;
  std::vector<Stage> stages_;
  std::size_t stage_ = 0;
  double stage_start_s_ = 0;
  double offset_s_ = 0;     // last arrival, seconds after the stage start
  std::int64_t count_ = 0;  // arrivals so far in this stage
  std::uint64_t index_ = 0;
};

}  // namespace

std::unique_ptr<SlotSource> make_open_loop_source(const scenario::Load& load, SimTime horizon,
                                                  std::uint64_t seed,
                                                  const std::string& stream_name) {
  return std::make_unique<OpenLoopSource>(load, horizon, Rng::stream(seed, stream_name));
}

}  // namespace blis::cluster
