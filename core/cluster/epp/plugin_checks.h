#pragma once
// The checks upstream's plugin factories make on their parameters beyond their types (a label
// that must be given, thresholds that must be positive), for the scheduling and request-control
// plugins; flow_config.h has the flow-control and saturation-detector ones.

#include <string>

#include "cluster/epp/config.h"
#include "cluster/epp/flow_config.h"

namespace blis::cluster::epp {

void check_plugin_params(const PluginSpec& spec, const std::string& ptr, const ConfigError& error);

// Appended to an unknown parameter's warning: where the parameter belongs instead, if anywhere.
std::string unknown_param_hint(const std::string& type);

}  // namespace blis::cluster::epp
