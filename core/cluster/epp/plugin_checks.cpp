#include "cluster/epp/plugin_checks.h"

namespace blis::cluster::epp {
namespace {

bool given(const PluginSpec& s, const std::string& key) {
  return s.num.count(key) != 0 || s.str.count(key) != 0 || s.lists.count(key) != 0;
}

}  // namespace

void check_plugin_params(const PluginSpec& spec, const std::string& ptr, const ConfigError& error) {
  const std::string pp = ptr + "/parameters";
  const std::string& t = spec.type;
  if (t == "context-length-aware") {
    // context_length_aware.go Factory: "'label' must be specified".
    if (spec.str.count("label") != 0 && spec.str.at("label").empty())
      error(pp + "/label", "must be a non-empty label name", Severity::kError);
  } else if (t == "by-label") {
    // bylabel/filter.go Factory: a label, and valid values unless unlabelled endpoints pass.
    if (spec.text("label", "").empty())
      error(given(spec, "label") ? pp + "/label" : ptr,
            "invalid configuration for 'by-label' filter: 'label' must be specified",
            Severity::kError);
    const auto v = spec.lists.find("validValues");
    if ((v == spec.lists.end() || v->second.empty()) && spec.number("allowsNoLabel", 0) == 0)
      error(given(spec, "validValues") ? pp + "/validValues" : ptr,
            "invalid configuration for 'by-label' filter: either 'validValues' must be non-empty "
            "or 'allowsNoLabel' must be true",
            Severity::kError);
  } else if (t == "probabilistic-admitter") {
    // probabilisticadmitter/plugin.go Factory: every parameter > 0.
    for (const char* key : {"queueDepthThreshold", "kvCacheUtilThreshold", "power", "k"}) {
      if (spec.num.count(key) != 0 && !(spec.num.at(key) > 0))
        error(pp + "/" + key,
              std::string("plugin 'probabilistic-admitter': ") + key + " must be > 0",
              Severity::kError);
    }
  } else if (t == "approx-prefix-cache-producer") {
    // approximateprefix/plugin.go newDataProducer.
    const double tokens = spec.number("blockSizeTokens", 16);
    if (spec.number("blockSize", 0) > 0 && tokens <= 0)
      error(pp + "/blockSize",
            "invalid configuration: BlockSize is deprecated; please use BlockSizeTokens instead "
            "to define the cache block size in tokens",
            Severity::kError);
    if (spec.number("autoTune", 1) == 0 && tokens <= 0)
      error(pp + "/blockSizeTokens",
            "invalid configuration: BlockSizeTokens must be > 0 when AutoTune is disabled",
            Severity::kError);
    if (spec.number("maxPrefixTokensToMatch", 0) < 0)
      error(pp + "/maxPrefixTokensToMatch",
            "invalid configuration: MaxPrefixTokensToMatch must be >= 0", Severity::kError);
  }
}

std::string unknown_param_hint(const std::string& type) {
  // scorer/prefix/plugin.go PrefixCachePluginFactory ignores its parameters: the index's
  // belong to the approximate prefix producer.
  if (type == "prefix-cache-scorer")
    return " (prefix-cache-scorer takes no parameters: the index's autoTune, "
           "lruCapacityPerServer and maxPrefixBlocksToMatch belong to an "
           "approx-prefix-cache-producer plugin)";
  return "";
}

}  // namespace blis::cluster::epp
