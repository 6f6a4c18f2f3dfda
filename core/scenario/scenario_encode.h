#pragma once
// The resolved scenario as a blis/scenario/v1 document: every default filled in, every
// key present. The output is valid input to decode_scenario() and decodes to the same
// Scenario (tests/scenario/round_trip_test.cpp).

#include <string>

#include "scenario/scenario.h"

namespace blis::scenario {

// Pretty-printed JSON (2-space indent), keys in the order docs/scenario.md lists them.
std::string encode_scenario(const Scenario& s);

}  // namespace blis::scenario
