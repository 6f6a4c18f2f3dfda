#pragma once
// Did a run saturate? A deployment is saturated when it cannot keep up with its offered load:
// requests time out, some never finish, or the engines' waiting queues keep growing while
// requests still arrive. The capacity search (blis capacity) bisects on this verdict; the
// playground can show it for any run.

#include <cstdint>
#include <string>
#include <vector>

namespace blis::cluster {

class Simulation;

struct SaturationInputs {
  std::uint64_t arrived = 0, finished = 0, aborted = 0, unfinished = 0;
  std::vector<double> time_s;   // time-series sample instants
  std::vector<double> waiting;  // requests waiting over all instances, at each sample
  double arrivals_end_s = 0;    // when arrivals stopped (the horizon's duration); 0 = unknown
};

struct SaturationVerdict {
  bool saturated = false;
  std::string reason;  // why (or "queues stable, no timeouts")
};

// Saturated when: more than 1% of arrived requests were aborted (client timeouts), any
// request is still unfinished, or the mean waiting queue over the last third of the arrival
// window exceeds 1.5x the middle third's plus one request (a queue that grows without bound).
SaturationVerdict judge_saturation(const SaturationInputs& in);

// The inputs of a run (its summary counts and the *.waiting time-series columns).
SaturationInputs saturation_inputs_of(const Simulation& sim);

}  // namespace blis::cluster
