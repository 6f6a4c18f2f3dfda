#pragma once
// The one validation every front end runs on a scenario document (`blis validate`, the WASM
// API's validateScenario and so the web editor): the decoder's diagnostics, then the checks
// the cluster library makes of a decoded scenario that the decoder cannot (the router's
// EndpointPickerConfig: Router::validate), the same Simulation::load applies. So a document
// validate calls ok loads.

#include <string>

#include "scenario/scenario_decode.h"

namespace blis::cluster {

// decode_scenario plus the cluster's checks: their diagnostics are appended, and `scenario`
// is empty when any of them is an error.
scenario::DecodeResult validate_scenario(const std::string& json_text,
                                         const scenario::DecodeOptions& options);

}  // namespace blis::cluster
