#pragma once
// The `featureGates` and `flowControl` sections of an EndpointPickerConfig (internal to the
// config loader, config.cpp): apix/config/v1alpha1 FlowControlConfig / PriorityBandConfig,
// with the defaults of pkg/epp/flowcontrol/registry/config.go and controller/config.go.

#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cluster/epp/config.h"

namespace blis::cluster::epp {

// (pointer inside the config, message, severity): the loader's error reporting.
using ConfigError = std::function<void(const std::string&, const std::string&, Severity)>;

// ` (did you mean "x"?)` for a name that is near one of `names`, else "".
std::string did_you_mean(const std::string& got, const std::vector<std::string>& names);

// The config's one unknown-key rule (configloader.go decodes strictly): each key of the
// mapping `obj` that is not in `accepted` is an error at its pointer below `ptr`:
// `unknown key "k" (did you mean "x"?) (expected "a", "b" or "c")`.
void report_unknown_keys(const nlohmann::json& obj, const std::string& ptr,
                         const std::vector<std::string>& accepted, const ConfigError& error);

void load_flow_control(const nlohmann::json& doc, const std::vector<PluginSpec>& plugins,
                       const std::map<std::string, std::int32_t>& by_name, FlowControlConfig& out,
                       const ConfigError& error);

// The parameter checks of the saturation detectors (utilization/config.go and
// concurrency/config.go validateConfig) and of static-usage-limit-policy (threshold in
// (0, 1], usagelimits/README.md); `ptr` is the plugin's pointer.
void check_flow_params(const PluginSpec& spec, const std::string& ptr, const ConfigError& error);

// A Kubernetes resource quantity ("100", "1k", "500M", "1Gi", 2.5e3) as an integer >= 0;
// false (with `why`) if it is not one.
bool parse_quantity(const nlohmann::json& v, std::uint64_t& out, std::string& why);

}  // namespace blis::cluster::epp
