#pragma once
// SimTime: simulated time as an integer count of microseconds since the start of a run.
// Nothing in the simulator reads a clock; every instant is a SimTime value.

#include <cstdint>

namespace blis {

using SimTime = std::int64_t;  // microseconds

inline constexpr SimTime kMicrosPerMilli = 1000;
inline constexpr SimTime kMicrosPerSecond = 1000000;
inline constexpr SimTime kSimTimeNever = INT64_MAX;

// Conversions round to the nearest microsecond, halves away from zero, so a document value
// such as 0.0000005 s maps to the same instant on every platform.
SimTime from_seconds(double seconds);
SimTime from_millis(double millis);
constexpr SimTime from_micros(std::int64_t micros) {
  return micros;
}

constexpr double to_seconds(SimTime t) {
  return static_cast<double>(t) / 1e6;
}
constexpr double to_millis(SimTime t) {
  return static_cast<double>(t) / 1e3;
}

// Saturating addition: adding to kSimTimeNever stays "never".
constexpr SimTime add_saturating(SimTime t, SimTime dt) {
  if (dt > 0 && t > kSimTimeNever - dt) return kSimTimeNever;
  if (dt < 0 && t < INT64_MIN - dt) return INT64_MIN;
  return t + dt;
}

}  // namespace blis
