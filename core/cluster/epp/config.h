#pragma once
// EppConfig: an llm-d EndpointPickerConfig (apix/config/v1alpha1/endpointpickerconfig_types.go
// in llm-d/llm-d-inference-scheduler), read from JSON or YAML text and checked against the
// plugin registry (plugins.h). The loader follows pkg/epp/config/loader: a plugin's name
// defaults to its type, a scorer's weight to 1 (DefaultScorerWeight), a profile without a
// picker gets the config's first picker (or an implicit max-score-picker), one profile and
// no handler gets single-profile-handler, and no saturationDetector means the
// utilization-detector with its defaults (defaults.go ensureSchedulingLayer,
// ensureSaturationDetector). With the flowControl feature gate, admission is the flow-control
// layer (flow_control.h) instead of the legacy sheddable check.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cluster/epp/flow_control.h"
#include "cluster/epp/plugins.h"
#include "util/diagnostic.h"

namespace blis::cluster::epp {

// One matchExpressions requirement of a Kubernetes label selector.
struct SelectorRequirement {
  std::string key, op;  // op: In, NotIn, Exists, DoesNotExist
  std::vector<std::string> values;
};

struct PluginSpec {
  std::string type, name;
  const PluginInfo* info = nullptr;
  // Parameters given (by name): numbers (ints, bools as 0/1, durations in ms), strings and
  // one-level objects of strings.
  std::map<std::string, double> num;
  std::map<std::string, std::string> str;
  std::map<std::string, std::map<std::string, std::string>> obj;
  std::map<std::string, std::vector<std::string>> lists;  // string lists (validValues)
  std::vector<SelectorRequirement> selector;              // matchExpressions
  double number(const std::string& key, double dflt) const {
    const auto it = num.find(key);
    return it == num.end() ? dflt : it->second;
  }
  std::string text(const std::string& key, const std::string& dflt) const {
    const auto it = str.find(key);
    return it == str.end() ? dflt : it->second;
  }
};

struct WeightedRef {
  std::int32_t plugin = -1;
  double weight = 1.0;
};

struct Profile {
  std::string name;
  std::vector<std::int32_t> filters;  // in the order listed
  std::vector<WeightedRef> scorers;
  std::int32_t picker = -1;  // -1: an implicit max-score-picker
};

struct EppConfig {
  std::vector<PluginSpec> plugins;
  std::vector<Profile> profiles;
  std::int32_t profile_handler = -1;      // -1: single-profile-handler
  std::int32_t saturation_detector = -1;  // -1: utilization-detector with its defaults
  // disagg-profile-handler, resolved: profile indices (-1 absent) and the prefill decider.
  std::int32_t decode_profile = -1, prefill_profile = -1;
  std::int32_t prefill_decider = -1;
  // data-parallel-profile-handler: every DP rank of a dp > 1 instance is an endpoint of its
  // own, and the request goes to the rank the profile picks (not vLLM's internal DP balancer).
  bool data_parallel = false;
  std::int32_t primary_port = 8000;  // its primaryPort (validated; the simulator has no ports)
  // featureGates / flowControl (flow_config.cpp): the flow-control layer, when enabled.
  FlowControlConfig flow;
};

// True when the profile handler runs the one scheduling profile and never splits a request
// into prefill and decode: single-profile-handler (also the default without a handler) and
// data-parallel-profile-handler (dp_profile_handler.go Pick).
bool runs_one_profile(const EppConfig& cfg);

// Reads `text` (JSON when its first non-blank character is '{', else YAML). Errors point
// at `pointer` + the JSON pointer inside the config for JSON text, and at `pointer` with the
// YAML line and column in the message for YAML text.
Diagnostics parse_epp_config(const std::string& text, const std::string& pointer, EppConfig& out);

// Go's time.ParseDuration subset ("200ms", "1.5s", "1m30s"), in milliseconds; false if not one.
bool parse_go_duration_ms(const std::string& s, double& ms);

}  // namespace blis::cluster::epp
