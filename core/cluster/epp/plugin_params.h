#pragma once
// Reading one plugin parameter against its registry entry (plugins.h ParamInfo): the value's
// type as upstream's json.Unmarshal into the plugin's parameter struct would accept it, with
// the simulator's bounds (integers within int32, finite numbers, short lists), into PluginSpec.

#include <string>

#include <nlohmann/json.hpp>

#include "cluster/epp/config.h"
#include "cluster/epp/flow_config.h"

namespace blis::cluster::epp {

void read_param(const ParamInfo& q, const nlohmann::json& v, const std::string& kp,
                PluginSpec& spec, const ConfigError& report);

}  // namespace blis::cluster::epp
