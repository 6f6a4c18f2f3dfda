#include "cluster/epp/plugin_params.h"

#include <algorithm>
#include <cmath>

#include "util/did_you_mean.h"
#include "util/text.h"

namespace blis::cluster::epp {
namespace {

using nlohmann::json;

constexpr double kMaxIntParam = 2147483647.0;
constexpr std::size_t kMaxListParam = 64;

// metav1.LabelSelector matchExpressions, checked as LabelSelectorAsSelector checks them:
// In / NotIn need values, Exists / DoesNotExist take none.
void read_selector(const json& v, const std::string& kp, PluginSpec& spec,
                   const ConfigError& report) {
  const auto error = [&report](const std::string& p, const std::string& m) {
    report(p, m, Severity::kError);
  };
  static const std::vector<std::string> ops = {"In", "NotIn", "Exists", "DoesNotExist"};
  if (!v.is_array() || v.size() > 64)
    return error(kp, "expected a list of at most 64 {key, operator, values}");
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string ep = json_pointer_append(kp, i);
    const json& e = v[i];
    if (!e.is_object() || !e.contains("key") || !e["key"].is_string() || !e.contains("operator") ||
        !e["operator"].is_string()) {
      error(ep, "expected {key: <label>, operator: In|NotIn|Exists|DoesNotExist, values}");
      continue;
    }
    report_unknown_keys(e, ep, {"key", "operator", "values"}, report);
    SelectorRequirement r;
    r.key = e["key"].get<std::string>();
    r.op = e["operator"].get<std::string>();
    if (std::find(ops.begin(), ops.end(), r.op) == ops.end()) {
      error(ep + "/operator", "unknown operator " + quote_excerpt(r.op) + did_you_mean(r.op, ops) +
                                  " (expected " + quoted_list(ops) + ")");
      continue;
    }
    if (e.contains("values")) {
      if (!e["values"].is_array()) {
        error(ep + "/values", "expected a list of strings");
        continue;
      }
      for (const json& x : e["values"]) {
        if (x.is_string())
          r.values.push_back(x.get<std::string>());
        else
          error(ep + "/values", "expected a list of strings");
      }
    }
    const bool set_op = r.op == "In" || r.op == "NotIn";
    if (set_op && r.values.empty())
      error(ep + "/values", "operator " + r.op + " needs at least one value");
    if (!set_op && !r.values.empty())
      error(ep + "/values", "operator " + r.op + " takes no values");
    spec.selector.push_back(std::move(r));
  }
}

}  // namespace

void read_param(const ParamInfo& q, const json& v, const std::string& kp, PluginSpec& spec,
                const ConfigError& report) {
  const auto error = [&report](const std::string& p, const std::string& m) {
    report(p, m, Severity::kError);
  };
  switch (q.type) {
    case ParamType::kInt:
      // Go's int parameters; the simulator converts them to 32- and 64-bit integers, so a
      // value outside int32 is an error here rather than an overflowing conversion later.
      if (!v.is_number_integer() &&
          !(v.is_number_float() && std::floor(v.get<double>()) == v.get<double>()))
        return error(kp, "expected an integer");
      if (!(std::fabs(v.get<double>()) <= kMaxIntParam))
        return error(kp, "expected an integer from -2147483647 to 2147483647");
      spec.num[q.name] = v.get<double>();
      return;
    case ParamType::kNumber:
      // A YAML float beyond double (1e999) reads as infinity: refused, as Go's yaml refuses
      // it (strconv.ParseFloat's range error).
      if (!v.is_number() || !std::isfinite(v.get<double>()))
        return error(kp, "expected a finite number");
      spec.num[q.name] = v.get<double>();
      return;
    case ParamType::kBool:
      if (!v.is_boolean()) return error(kp, "expected true or false");
      spec.num[q.name] = v.get<bool>() ? 1.0 : 0.0;
      return;
    case ParamType::kString:
      if (!v.is_string()) return error(kp, "expected a string");
      spec.str[q.name] = v.get<std::string>();
      return;
    case ParamType::kDuration: {
      double ms = 0;
      if (!v.is_string() || !parse_go_duration_ms(v.get<std::string>(), ms))
        return error(kp, "expected a duration such as \"200ms\" or \"1s\"");
      spec.num[q.name] = ms;
      return;
    }
    case ParamType::kSelector:
      return read_selector(v, kp, spec, report);
    case ParamType::kStringList: {
      // by-label's []string: a list (null reads as none, as Go's json does).
      if (v.is_null()) return;
      if (!v.is_array() || v.size() > kMaxListParam)
        return error(kp, "expected a list of at most 64 strings");
      std::vector<std::string> items;
      for (std::size_t i = 0; i < v.size(); ++i) {
        if (!v[i].is_string()) return error(json_pointer_append(kp, i), "expected a string");
        items.push_back(v[i].get<std::string>());
      }
      spec.lists[q.name] = std::move(items);
      return;
    }
    case ParamType::kAny:
      return;  // accepted as a whole (no effect)
    case ParamType::kObject:
      if (!v.is_object()) return error(kp, "expected a mapping");
      if (q.subkeys.empty() && !q.used) return;  // accepted as a whole (no effect)
      for (auto it = v.begin(); it != v.end(); ++it) {
        const std::string sp = json_pointer_append(kp, it.key());
        if (!q.subkeys.empty() &&
            std::find(q.subkeys.begin(), q.subkeys.end(), it.key()) == q.subkeys.end()) {
          error(sp, "unknown key " + quote_excerpt(it.key()) + did_you_mean(it.key(), q.subkeys) +
                        " (expected " + quoted_list(q.subkeys) + ")");
        } else if (!it.value().is_string()) {
          error(sp, "expected a string");
        } else {
          spec.obj[q.name][it.key()] = it.value().get<std::string>();
        }
      }
      return;
  }
}

}  // namespace blis::cluster::epp
