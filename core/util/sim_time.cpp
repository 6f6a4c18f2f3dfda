#include "util/sim_time.h"

#include <cmath>
#include <stdexcept>

namespace blis {

namespace {
SimTime round_to_micros(double micros) {
  if (!std::isfinite(micros)) throw std::invalid_argument("time is not a finite number");
  if (micros >= 9.2e18 || micros <= -9.2e18) throw std::out_of_range("time out of range");
  return static_cast<SimTime>(std::llround(micros));
}
}  // namespace

SimTime from_seconds(double seconds) {
  return round_to_micros(seconds * 1e6);
}
SimTime from_millis(double millis) {
  return round_to_micros(millis * 1e3);
}

}  // namespace blis
