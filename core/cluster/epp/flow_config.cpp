#include "cluster/epp/flow_config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include "util/did_you_mean.h"
#include "util/text.h"

namespace blis::cluster::epp {
namespace {

using nlohmann::json;

// cmd/epp/runner/runner.go: the gates the EPP registers (loader.RegisterFeatureGate).
const std::vector<std::string> kGates = {"dataLayer", "enableLegacyMetrics", kFlowControlGate};
const std::vector<std::string> kFlowKeys = {"maxBytes",          "maxRequests",
                                            "defaultRequestTTL", "defaultPriorityBand",
                                            "priorityBands",     "usageLimitPolicyPluginRef"};
const std::vector<std::string> kBandKeys = {"priority", "maxBytes", "maxRequests",
                                            "fairnessPolicyRef", "orderingPolicyRef"};
constexpr std::size_t kMaxBands = 64;
// registry/config.go: the policies a band gets when it names none, and the usage limit.
const std::string kDefaultFairness = "global-strict-fairness-policy";
const std::string kDefaultOrdering = "fcfs-ordering-policy";
const std::string kDefaultUsageLimit = "static-usage-limit-policy";

class FlowLoader {
 public:
  FlowLoader(const std::vector<PluginSpec>& plugins,
             const std::map<std::string, std::int32_t>& by_name, const ConfigError& error)
      : plugins_(plugins), by_name_(by_name), error_(error) {}

  void gates(const json& doc, FlowControlConfig& out) {
    if (!doc.contains("featureGates") || doc["featureGates"].is_null()) return;
    const json& g = doc["featureGates"];
    if (!g.is_array()) return err("/featureGates", "expected a list of feature gate names");
    for (std::size_t i = 0; i < g.size(); ++i) {
      const std::string p = json_pointer_append("/featureGates", i);
      if (!g[i].is_string()) {
        err(p, "expected a feature gate name (a string)");
        continue;
      }
      const std::string name = g[i].get<std::string>();
      if (std::find(kGates.begin(), kGates.end(), name) == kGates.end()) {
        err(p, "unknown feature gate " + quote_excerpt(name) + did_you_mean(name, kGates) +
                   " (expected " + quoted_list(kGates) + ")");
        continue;
      }
      if (name == kFlowControlGate) out.enabled = true;
    }
  }

  void section(const json& fc, FlowControlConfig& out) {
    if (!fc.is_object()) return err("/flowControl", "expected a mapping (FlowControlConfig)");
    report_unknown_keys(fc, "/flowControl", kFlowKeys, error_);
    quantity(fc, "/flowControl", "maxBytes", out.max_bytes);
    quantity(fc, "/flowControl", "maxRequests", out.max_requests);
    if (fc.contains("defaultRequestTTL") && !fc["defaultRequestTTL"].is_null()) {
      double ms = 0;
      const json& v = fc["defaultRequestTTL"];
      if (!v.is_string() || !parse_go_duration_ms(v.get<std::string>(), ms))
        err("/flowControl/defaultRequestTTL", "expected a duration such as \"30s\" or \"500ms\"");
      else
        out.default_ttl = from_millis(ms);
    }
    if (fc.contains("defaultPriorityBand") && !fc["defaultPriorityBand"].is_null())
      out.default_band = band(fc["defaultPriorityBand"], "/flowControl/defaultPriorityBand");
    out.default_band.priority = 0;
    if (fc.contains("priorityBands") && !fc["priorityBands"].is_null()) {
      const json& bs = fc["priorityBands"];
      if (!bs.is_array()) {
        err("/flowControl/priorityBands", "expected a list of priority bands");
      } else if (bs.size() > kMaxBands) {
        err("/flowControl/priorityBands", "more than 64 priority bands");
      } else {
        std::set<std::int32_t> seen;
        for (std::size_t i = 0; i < bs.size(); ++i) {
          const std::string p = json_pointer_append("/flowControl/priorityBands", i);
          BandConfig b = band(bs[i], p);
          // registry/config.go WithPriorityBand: a priority level is configured once.
          if (!seen.insert(b.priority).second)
            err(p + "/priority", "duplicate priority level " + std::to_string(b.priority));
          out.bands.push_back(b);
        }
      }
    }
  }

 private:
  const std::vector<PluginSpec>& plugins_;
  const std::map<std::string, std::int32_t>& by_name_;
  const ConfigError& error_;

  void err(const std::string& p, const std::string& msg) { error_(p, msg, Severity::kError); }

  void quantity(const json& o, const std::string& ptr, const std::string& key, std::uint64_t& v) {
    if (!o.contains(key) || o[key].is_null()) return;
    std::string why;
    if (!parse_quantity(o[key], v, why)) err(ptr + "/" + key, why);
  }

  // A policy reference: a configured plugin of the policy's family, or the default policy's
  // type, which the loader instantiates when absent (loader/defaults.go
  // ensureFlowControlLayer). Returns the referenced plugin's type ("" when wrong).
  std::string policy(const json& v, const std::string& p, const std::string& family,
                     const std::string& dflt) {
    if (!v.is_string() || v.get<std::string>().empty()) {
      err(p, "expected the name of a " + family + " plugin");
      return "";
    }
    const std::string ref = v.get<std::string>();
    const auto it = by_name_.find(ref);
    if (it == by_name_.end()) {
      if (ref == dflt) return dflt;
      std::vector<std::string> names{dflt};
      for (const auto& [name, idx] : by_name_) names.push_back(name);
      err(p, "no plugin named " + quote_excerpt(ref) + did_you_mean(ref, names));
      return "";
    }
    const PluginSpec& s = plugins_[static_cast<std::size_t>(it->second)];
    if (s.info->kind != PluginKind::kFlowPolicy || s.type.find(family) == std::string::npos) {
      err(p, quote_excerpt(ref) + " is a " + s.type + ", not a " + family + " plugin");
      return "";
    }
    return s.type;
  }

  BandConfig band(const json& v, const std::string& p) {
    BandConfig b;
    if (!v.is_object()) {
      err(p, "expected a mapping (PriorityBandConfig)");
      return b;
    }
    report_unknown_keys(v, p, kBandKeys, error_);
    if (v.contains("priority")) {
      const json& pr = v["priority"];
      if (!pr.is_number_integer() || pr.get<std::int64_t>() < -1'000'000'000 ||
          pr.get<std::int64_t>() > 1'000'000'000)
        err(p + "/priority", "expected an integer priority level (higher = more important)");
      else
        b.priority = static_cast<std::int32_t>(pr.get<std::int64_t>());
    }
    // registry/config.go applyDefaults: maxBytes 0 / absent -> 1,000,000,000.
    std::uint64_t bytes = 0;
    quantity(v, p, "maxBytes", bytes);
    b.max_bytes = bytes > 0 ? bytes : kDefaultBandMaxBytes;
    quantity(v, p, "maxRequests", b.max_requests);
    if (v.contains("fairnessPolicyRef") && !v["fairnessPolicyRef"].is_null()) {
      const std::string t =
          policy(v["fairnessPolicyRef"], p + "/fairnessPolicyRef", "fairness", kDefaultFairness);
      if (t == "round-robin-fairness-policy") b.fairness = Fairness::kRoundRobin;
    }
    if (v.contains("orderingPolicyRef") && !v["orderingPolicyRef"].is_null())
      policy(v["orderingPolicyRef"], p + "/orderingPolicyRef", "ordering", kDefaultOrdering);
    return b;
  }

 public:
  void usage_limit(const json& fc, FlowControlConfig& out) {
    // flowcontrol/config.go ensureUsageLimitPolicy: the named policy, else the static one
    // with threshold 1.0
    // (by name: a configured plugin named like the default stands in for it).
    std::string ref = kDefaultUsageLimit;
    if (fc.contains("usageLimitPolicyPluginRef") && !fc["usageLimitPolicyPluginRef"].is_null()) {
      const json& v = fc["usageLimitPolicyPluginRef"];
      if (policy(v, "/flowControl/usageLimitPolicyPluginRef", "usage-limit", kDefaultUsageLimit)
              .empty())
        return;
      ref = v.get<std::string>();
    }
    const auto it = by_name_.find(ref);
    if (it != by_name_.end() &&
        plugins_[static_cast<std::size_t>(it->second)].type == kDefaultUsageLimit)
      out.usage_limit = plugins_[static_cast<std::size_t>(it->second)].number("threshold", 1.0);
  }
};

}  // namespace

std::string did_you_mean(const std::string& got, const std::vector<std::string>& names) {
  const auto near = closest(got, names, 3);
  return near.empty() ? "" : " (did you mean " + quoted_list(near) + "?)";
}

void report_unknown_keys(const json& obj, const std::string& ptr,
                         const std::vector<std::string>& accepted, const ConfigError& error) {
  for (auto it = obj.begin(); it != obj.end(); ++it) {
    if (std::find(accepted.begin(), accepted.end(), it.key()) != accepted.end()) continue;
    error(json_pointer_append(ptr, it.key()),
          "unknown key " + quote_excerpt(it.key()) + did_you_mean(it.key(), accepted) +
              " (expected " + quoted_list(accepted) + ")",
          Severity::kError);
  }
}

void check_flow_params(const PluginSpec& s, const std::string& ptr, const ConfigError& error) {
  const std::string pp = ptr + "/parameters/";
  const auto bad = [&](const std::string& key, const std::string& msg) {
    if (s.num.count(key) != 0) error(pp + key, msg, Severity::kError);
  };
  if (s.type == kDefaultUsageLimit) {
    const double t = s.number("threshold", 1.0);
    if (!(t > 0 && t <= 1)) bad("threshold", "must be in (0, 1]");
    return;
  }
  if (s.number("headroom", 0) < 0) bad("headroom", "must be >= 0");
  if (s.type == "utilization-detector") {
    if (s.number("queueDepthThreshold", 5) <= 0) bad("queueDepthThreshold", "must be > 0");
    const double kv = s.number("kvCacheUtilThreshold", 0.8);
    if (!(kv > 0 && kv <= 1)) bad("kvCacheUtilThreshold", "must be in (0, 1]");
    if (s.number("metricsStalenessThreshold", 200) <= 0)
      bad("metricsStalenessThreshold", "must be > 0");
  } else if (s.type == "concurrency-detector") {
    if (s.number("maxConcurrency", 100) <= 0) bad("maxConcurrency", "must be > 0");
    if (s.number("maxTokenConcurrency", 1000000) <= 0) bad("maxTokenConcurrency", "must be > 0");
    const std::string mode = s.text("concurrencyMode", "requests");
    if (mode != "requests" && mode != "tokens")
      error(pp + "concurrencyMode", "expected \"requests\" or \"tokens\"", Severity::kError);
  }
}

bool parse_quantity(const json& v, std::uint64_t& out, std::string& why) {
  why = "expected a non-negative quantity such as 100, \"1k\", \"500M\" or \"1Gi\"";
  double value = 0;
  if (v.is_number()) {
    value = v.get<double>();
  } else if (v.is_string()) {
    // resource.Quantity: a decimal number, then an optional binary (Ki..Ei), decimal (k..E)
    // or exponent (e3) suffix.
    const std::string s = v.get<std::string>();
    if (s.empty() || s.size() > 40) return false;
    char* end = nullptr;
    value = std::strtod(s.c_str(), &end);
    if (end == s.c_str()) return false;
    const std::string suffix(end);
    static const std::vector<std::pair<std::string, double>> kSuffixes = {
        {"", 1},
        {"k", 1e3},
        {"M", 1e6},
        {"G", 1e9},
        {"T", 1e12},
        {"P", 1e15},
        {"E", 1e18},
        {"Ki", 1024},
        {"Mi", 1048576.0},
        {"Gi", 1073741824.0},
        {"Ti", 1.0995116277760e12},
        {"Pi", 1.125899906842624e15},
        {"m", 1e-3}};
    bool found = false;
    for (const auto& [name, scale] : kSuffixes) {
      if (suffix == name) {
        value *= scale;
        found = true;
      }
    }
    if (!found) return false;
  } else {
    return false;
  }
  if (!std::isfinite(value)) return false;
  if (value < 0) {
    why = "must be non-negative";
    return false;
  }
  if (value > 1e18) {
    why = "is too large (at most 1e18)";
    return false;
  }
  out = static_cast<std::uint64_t>(std::ceil(value));  // Quantity.Value rounds up
  return true;
}

void load_flow_control(const json& doc, const std::vector<PluginSpec>& plugins,
                       const std::map<std::string, std::int32_t>& by_name, FlowControlConfig& out,
                       const ConfigError& error) {
  FlowLoader l(plugins, by_name, error);
  l.gates(doc, out);
  const bool has_section = doc.contains("flowControl") && !doc["flowControl"].is_null();
  if (has_section) l.section(doc["flowControl"], out);
  l.usage_limit(has_section && doc["flowControl"].is_object() ? doc["flowControl"] : json::object(),
                out);
  // apix/config/v1alpha1: flowControl "is only respected if the flowControl FeatureGate is
  // enabled" (loader/configloader.go InstantiateAndConfigure).
  if (has_section && !out.enabled)
    error("/flowControl",
          "ignored: the flowControl feature gate is not enabled (add featureGates: "
          "[flowControl]); admission uses the saturation detector's legacy check",
          Severity::kWarning);
}

}  // namespace blis::cluster::epp
