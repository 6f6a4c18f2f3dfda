#include "cluster/epp/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

#include <nlohmann/json.hpp>

#include "cluster/epp/flow_config.h"
#include "cluster/epp/plugin_checks.h"
#include "cluster/epp/plugin_params.h"
#include "cluster/epp/yaml_subset.h"
#include "scenario/json_text.h"
#include "util/did_you_mean.h"
#include "util/text.h"

namespace blis::cluster::epp {
namespace {

using nlohmann::json;

// apix/config/v1alpha1: the current group and the deprecated GIE one (configloader.go).
const std::vector<std::string> kApiVersions = {"llm-d.ai/v1alpha1",
                                               "inference.networking.x-k8s.io/v1alpha1"};
const std::vector<std::string> kTopKeys = {
    "apiVersion",         "kind",      "featureGates", "plugins", "schedulingProfiles",
    "saturationDetector", "dataLayer", "flowControl",  "parser"};
constexpr std::size_t kMaxPlugins = 64;
constexpr std::size_t kMaxProfiles = 16;
// As router.scorers[].weight: a scorer weight of at most 1e9, so weighted sums stay finite.
constexpr double kMaxWeight = 1e9;

class Loader {
 public:
  Loader(const std::string& base, bool yaml, std::map<std::string, YamlPos> pos, Diagnostics& ds)
      : base_(base), yaml_(yaml), pos_(std::move(pos)), ds_(ds) {}

  // report_unknown_keys through this loader's error().
  void unknown_keys(const json& obj, const std::string& ptr,
                    const std::vector<std::string>& accepted) {
    report_unknown_keys(
        obj, ptr, accepted,
        [this](const std::string& p, const std::string& m, Severity s) { error(p, m, s); });
  }

  void error(const std::string& inner, const std::string& msg, Severity sev = Severity::kError) {
    if (!yaml_) {
      ds_.push_back({base_ + inner, msg, sev});
      return;
    }
    std::string p = inner;
    auto it = pos_.find(p);
    while (it == pos_.end() && !p.empty()) {
      p = p.substr(0, p.rfind('/'));
      it = pos_.find(p);
    }
    std::string where = it == pos_.end() ? ""
                                         : "line " + std::to_string(it->second.line) + ", column " +
                                               std::to_string(it->second.column) + " ";
    ds_.push_back({base_, where + "(" + (inner.empty() ? "/" : inner) + "): " + msg, sev});
  }

  void load(const json& doc, EppConfig& out) {
    if (!doc.is_object()) {
      error("", "an EndpointPickerConfig must be a mapping / object");
      return;
    }
    unknown_keys(doc, "", kTopKeys);
    if (doc.contains("apiVersion")) {
      const json& v = doc["apiVersion"];
      if (!v.is_string() || std::find(kApiVersions.begin(), kApiVersions.end(),
                                      v.get<std::string>()) == kApiVersions.end())
        error("/apiVersion", "expected " + quoted_list(kApiVersions));
    }
    if (doc.contains("kind") &&
        !(doc["kind"].is_string() && doc["kind"].get<std::string>() == "EndpointPickerConfig"))
      error("/kind", "expected \"EndpointPickerConfig\"");
    plugins(doc, out);
    if (has_errors(ds_)) return;
    load_flow_control(
        doc, out.plugins, by_name_, out.flow,
        [this](const std::string& p, const std::string& m, Severity s) { error(p, m, s); });
    if (has_errors(ds_)) return;
    profiles(doc, out);
    if (has_errors(ds_)) return;
    handler(out);
    detector(doc, out);
  }

 private:
  std::string base_;
  bool yaml_;
  std::map<std::string, YamlPos> pos_;
  Diagnostics& ds_;
  std::map<std::string, std::int32_t> by_name_;

  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& [k, v] : by_name_) n.push_back(k);
    return n;
  }

  void plugins(const json& doc, EppConfig& out) {
    if (!doc.contains("plugins")) {
      error("", "missing \"plugins\" (a list of {type, name, parameters})");
      return;
    }
    const json& ps = doc["plugins"];
    if (!ps.is_array()) {
      error("/plugins", "expected a list of {type, name, parameters}");
      return;
    }
    if (ps.size() > kMaxPlugins) {
      error("/plugins", "more than 64 plugins");
      return;
    }
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const std::string ptr = json_pointer_append("/plugins", i);
      const json& p = ps[i];
      if (!p.is_object()) {
        error(ptr, "expected a mapping {type, name, parameters}");
        continue;
      }
      unknown_keys(p, ptr, {"type", "name", "parameters"});
      if (!p.contains("type") || !p["type"].is_string()) {
        error(ptr + "/type", "missing plugin type (a string)");
        continue;
      }
      PluginSpec spec;
      spec.type = p["type"].get<std::string>();
      spec.info = find_plugin(spec.type);
      if (spec.info == nullptr) {
        error(ptr + "/type", "unknown plugin type " + quote_excerpt(spec.type) +
                                 did_you_mean(spec.type, plugin_types()) +
                                 " (see docs/llm-d-parity.md for the plugins the simulator knows)");
        continue;
      }
      if (spec.info->support == Support::kNotExpressible) {
        error(ptr + "/type", "plugin type " + quote_excerpt(spec.type) +
                                 " is not expressible in the simulator: " + spec.info->note);
        continue;
      }
      spec.name = spec.type;
      if (p.contains("name")) {
        if (!p["name"].is_string() || p["name"].get<std::string>().empty()) {
          error(ptr + "/name", "expected a non-empty string");
          continue;
        }
        spec.name = p["name"].get<std::string>();
      }
      if (by_name_.count(spec.name) != 0) {
        error(ptr + "/name", "plugin name " + quote_excerpt(spec.name) + " is used twice");
        continue;
      }
      if (p.contains("parameters") && !p["parameters"].is_null())
        parameters(p["parameters"], ptr + "/parameters", spec);
      const ConfigError report = [this](const std::string& p, const std::string& m, Severity s) {
        error(p, m, s);
      };
      if (spec.info->kind == PluginKind::kSaturationDetector ||
          spec.info->kind == PluginKind::kFlowPolicy)
        check_flow_params(spec, ptr, report);
      check_plugin_params(spec, ptr, report);
      by_name_[spec.name] = static_cast<std::int32_t>(out.plugins.size());
      out.plugins.push_back(std::move(spec));
    }
  }

  void parameters(const json& params, const std::string& ptr, PluginSpec& spec) {
    if (!params.is_object()) {
      error(ptr, "expected a mapping of parameters");
      return;
    }
    std::vector<std::string> known;
    for (const ParamInfo& q : spec.info->params) known.push_back(q.name);
    for (auto it = params.begin(); it != params.end(); ++it) {
      const std::string kp = json_pointer_append(ptr, it.key());
      const ParamInfo* q = nullptr;
      for (const ParamInfo& c : spec.info->params)
        if (c.name == it.key()) q = &c;
      if (q == nullptr) {
        // Upstream's factories read their parameters with json.Unmarshal, which skips fields
        // the plugin does not have: the config loads, and the name has no effect.
        error(kp,
              "unknown parameter " + quote_excerpt(it.key()) + " of " + quote_excerpt(spec.type) +
                  did_you_mean(it.key(), known) +
                  (known.empty() ? " (it takes none)" : " (expected " + quoted_list(known) + ")") +
                  ": ignored, as upstream ignores it" + unknown_param_hint(spec.type),
              Severity::kWarning);
        continue;
      }
      read_param(
          *q, it.value(), kp, spec,
          [this](const std::string& p, const std::string& m, Severity sv) { error(p, m, sv); });
    }
  }

  void profiles(const json& doc, EppConfig& out) {
    if (!doc.contains("schedulingProfiles") || doc["schedulingProfiles"].is_null() ||
        (doc["schedulingProfiles"].is_array() && doc["schedulingProfiles"].empty())) {
      // defaults.go ensureSchedulingLayer: one "default" profile with every filter, scorer
      // and picker (in the order listed here; upstream iterates a map).
      Profile p;
      p.name = "default";
      for (std::size_t i = 0; i < out.plugins.size(); ++i) add_to_profile(out, p, i, 1.0, "");
      finish_profile(out, p);
      out.profiles.push_back(p);
      return;
    }
    const json& ps = doc["schedulingProfiles"];
    if (!ps.is_array()) return error("/schedulingProfiles", "expected a list of {name, plugins}");
    if (ps.size() > kMaxProfiles) return error("/schedulingProfiles", "more than 16 profiles");
    std::set<std::string> seen;
    for (std::size_t i = 0; i < ps.size(); ++i) {
      const std::string ptr = json_pointer_append("/schedulingProfiles", i);
      const json& pr = ps[i];
      if (!pr.is_object() || !pr.contains("name") || !pr["name"].is_string()) {
        error(ptr, "expected a mapping with a string \"name\" and \"plugins\"");
        continue;
      }
      unknown_keys(pr, ptr, {"name", "plugins"});
      Profile p;
      p.name = pr["name"].get<std::string>();
      if (!seen.insert(p.name).second) error(ptr + "/name", "profile name used twice");
      const json empty = json::array();
      const json& refs = pr.contains("plugins") ? pr["plugins"] : empty;
      if (!refs.is_array()) {
        error(ptr + "/plugins", "expected a list of {pluginRef, weight}");
        continue;
      }
      for (std::size_t j = 0; j < refs.size(); ++j) {
        const std::string rp = json_pointer_append(ptr + "/plugins", j);
        const json& r = refs[j];
        if (!r.is_object() || !r.contains("pluginRef") || !r["pluginRef"].is_string()) {
          error(rp, "expected a mapping with a string \"pluginRef\"");
          continue;
        }
        unknown_keys(r, rp, {"pluginRef", "weight"});
        const std::string ref = r["pluginRef"].get<std::string>();
        const auto it = by_name_.find(ref);
        if (it == by_name_.end()) {
          error(rp + "/pluginRef",
                "no plugin named " + quote_excerpt(ref) + did_you_mean(ref, names()));
          continue;
        }
        double w = 1.0;
        if (r.contains("weight") && !r["weight"].is_null()) {
          if (!r["weight"].is_number() || !(r["weight"].get<double>() >= 0) ||
              !(r["weight"].get<double>() <= kMaxWeight)) {
            error(rp + "/weight", "expected a number from 0 to 1e9");
            continue;
          }
          w = r["weight"].get<double>();
        }
        add_to_profile(out, p, static_cast<std::size_t>(it->second), w, rp);
      }
      finish_profile(out, p);
      out.profiles.push_back(p);
    }
  }

  void add_to_profile(const EppConfig& out, Profile& p, std::size_t i, double w,
                      const std::string& rp) {
    const PluginSpec& s = out.plugins[i];
    const auto idx = static_cast<std::int32_t>(i);
    switch (s.info->kind) {
      case PluginKind::kFilter:
      case PluginKind::kSaturationDetector:  // a detector is also a Filter (detector.go)
        if (s.info->kind == PluginKind::kSaturationDetector && rp.empty()) return;
        p.filters.push_back(idx);
        return;
      case PluginKind::kScorer:
        // context-length-aware is a Filter as well (it filters when enableFiltering is set):
        // a profile adds a plugin under every interface it implements.
        if (s.type == "context-length-aware") p.filters.push_back(idx);
        p.scorers.push_back({idx, w});
        return;
      case PluginKind::kPicker:
        if (p.picker >= 0 && !rp.empty()) {
          error(rp + "/pluginRef", "a profile takes one picker; " +
                                       quote_excerpt(out.plugins[p.picker].name) +
                                       " is already its picker");
          return;
        }
        if (p.picker < 0) p.picker = idx;
        return;
      default:
        if (!rp.empty())
          error(rp + "/pluginRef", quote_excerpt(s.name) + " is a " + kind_name(s.info->kind) +
                                       ", not a filter, scorer or picker");
    }
  }

  // defaults.go: a profile without a picker gets the config's first picker.
  static void finish_profile(const EppConfig& out, Profile& p) {
    if (p.picker >= 0) return;
    for (std::size_t i = 0; i < out.plugins.size(); ++i) {
      if (out.plugins[i].info->kind == PluginKind::kPicker) {
        p.picker = static_cast<std::int32_t>(i);
        return;
      }
    }
  }

  std::int32_t profile_index(const EppConfig& out, const std::string& name) const {
    for (std::size_t i = 0; i < out.profiles.size(); ++i)
      if (out.profiles[i].name == name) return static_cast<std::int32_t>(i);
    return -1;
  }

  void handler(EppConfig& out) {
    std::int32_t found = -1;
    for (std::size_t i = 0; i < out.plugins.size(); ++i) {
      if (out.plugins[i].info->kind != PluginKind::kProfileHandler) continue;
      if (found >= 0) {
        error(json_pointer_append("/plugins", i) + "/type",
              "a config takes one profile handler; " + quote_excerpt(out.plugins[found].name) +
                  " is already one");
        return;
      }
      found = static_cast<std::int32_t>(i);
    }
    out.profile_handler = found;
    const std::string hp = json_pointer_append("/plugins", static_cast<std::size_t>(found));
    if (found >= 0 && out.plugins[found].type == "data-parallel-profile-handler")
      return data_parallel_handler(out, found, hp);
    if (found < 0 || out.plugins[found].type == "single-profile-handler") {
      if (out.profiles.size() != 1)
        error(found < 0 ? "/schedulingProfiles" : hp,
              "single-profile-handler (the default) runs exactly one scheduling profile; " +
                  std::to_string(out.profiles.size()) + " are configured");
      return;
    }
    const PluginSpec& h = out.plugins[found];
    const auto sub = [&h](const std::string& obj, const std::string& key) -> std::string {
      const auto o = h.obj.find(obj);
      if (o == h.obj.end()) return "";
      const auto k = o->second.find(key);
      return k == o->second.end() ? "" : k->second;
    };
    // disagg_profile_handler.go HandlerFactory: nested profiles/deciders, or the deprecated
    // flat parameters (mixing both is an error); pd-profile-handler takes the flat ones.
    const bool nested = h.obj.count("profiles") != 0 || h.obj.count("deciders") != 0;
    const bool flat = !h.str.empty();
    if (nested && flat)
      error(hp + "/parameters",
            "cannot mix the deprecated flat parameters with profiles/deciders: use one format");
    std::string decode = nested ? sub("profiles", "decode") : h.text("decodeProfile", "");
    std::string prefill = nested ? sub("profiles", "prefill") : h.text("prefillProfile", "");
    std::string decider = nested
                              ? sub("deciders", "prefill")
                              : h.text("prefillDeciderPluginName", h.text("deciderPluginName", ""));
    if (decode.empty()) decode = "decode";
    if (prefill.empty()) prefill = "prefill";
    if (h.type == "pd-profile-handler" && decider.empty()) decider = "prefix-based-pd-decider";
    out.decode_profile = profile_index(out, decode);
    out.prefill_profile = profile_index(out, prefill);
    if (out.decode_profile < 0)
      error(hp + "/parameters",
            "no scheduling profile named " + quote_excerpt(decode) + " (the decode profile)");
    if (!decider.empty()) {
      const auto it = by_name_.find(decider);
      if (it == by_name_.end() || out.plugins[it->second].info->kind != PluginKind::kDecider) {
        error(hp + "/parameters", "deciders.prefill " + quote_excerpt(decider) +
                                      " names no P/D decider plugin" +
                                      did_you_mean(decider, names()));
      } else {
        out.prefill_decider = it->second;
      }
    }
    // HandlerFactory: an encode decider must name a decider plugin too (its profile runs only
    // for multimodal requests, which the simulator has none of).
    const std::string encoder =
        nested ? sub("deciders", "encode") : h.text("encodeDeciderPluginName", "");
    if (!encoder.empty()) {
      const auto it = by_name_.find(encoder);
      if (it == by_name_.end() || out.plugins[it->second].info->kind != PluginKind::kDecider)
        error(hp + "/parameters", "deciders.encode " + quote_excerpt(encoder) +
                                      " names no decider plugin" + did_you_mean(encoder, names()));
    }
  }

  // dp_profile_handler.go: ProfileHandlerFactory checks primaryPort (default 8000; a value
  // other than 0 outside 1..65535 is an error, 0 is not checked); Pick runs the profiles only
  // when exactly one is configured (else none, and the request fails): an error here.
  void data_parallel_handler(EppConfig& out, std::int32_t found, const std::string& hp) {
    const PluginSpec& h = out.plugins[static_cast<std::size_t>(found)];
    const double port = h.number("primaryPort", 8000);
    if (port != 0 && (port < 1 || port > 65535))
      error(hp + "/parameters/primaryPort",
            "invalid primaryPort: must be between 1 and 65535, got " +
                std::to_string(static_cast<std::int64_t>(port)));
    if (out.profiles.size() != 1)
      error(hp, "data-parallel-profile-handler requires exactly one scheduling profile; " +
                    std::to_string(out.profiles.size()) + " are configured");
    out.data_parallel = true;
    out.primary_port = static_cast<std::int32_t>(port);
  }

  void detector(const json& doc, EppConfig& out) {
    if (!doc.contains("saturationDetector") || doc["saturationDetector"].is_null()) return;
    const json& sd = doc["saturationDetector"];
    if (!sd.is_object() || !sd.contains("pluginRef") || !sd["pluginRef"].is_string())
      return error("/saturationDetector", "expected {pluginRef: <a saturation detector plugin>}");
    const std::string ref = sd["pluginRef"].get<std::string>();
    const auto it = by_name_.find(ref);
    if (it == by_name_.end() ||
        out.plugins[it->second].info->kind != PluginKind::kSaturationDetector)
      return error(
          "/saturationDetector/pluginRef",
          "no saturation detector plugin named " + quote_excerpt(ref) + did_you_mean(ref, names()));
    out.saturation_detector = it->second;
  }
};

}  // namespace

bool parse_go_duration_ms(const std::string& s, double& ms) {
  // time.ParseDuration refuses a total beyond int64 nanoseconds ("invalid duration"): about
  // 2562047 hours.
  constexpr double kMaxDurationMs = 9223372036854.775807;
  // time.ParseDuration: a sequence of decimal numbers, each with a unit.
  if (s.empty() || s.size() > 64) return false;
  std::size_t i = 0;
  double total = 0;
  if (s == "0") {
    ms = 0;
    return true;
  }
  while (i < s.size()) {
    const std::size_t start = i;
    while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || s[i] == '.')) ++i;
    if (i == start) return false;
    const double v = std::strtod(s.substr(start, i - start).c_str(), nullptr);
    std::size_t u = i;
    while (u < s.size() && std::isalpha(static_cast<unsigned char>(s[u]))) ++u;
    const std::string unit = s.substr(i, u - i);
    i = u;
    double scale = 0;
    if (unit == "ns")
      scale = 1e-6;
    else if (unit == "us")
      scale = 1e-3;
    else if (unit == "ms")
      scale = 1;
    else if (unit == "s")
      scale = 1e3;
    else if (unit == "m")
      scale = 60e3;
    else if (unit == "h")
      scale = 3600e3;
    else
      return false;
    total += v * scale;
    if (!(total <= kMaxDurationMs)) return false;
  }
  ms = total;
  return true;
}

Diagnostics parse_epp_config(const std::string& text, const std::string& pointer, EppConfig& out) {
  Diagnostics ds;
  out = EppConfig{};
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  const bool is_json = first < text.size() && text[first] == '{';
  json doc;
  std::map<std::string, YamlPos> pos;
  if (is_json) {
    // JSON text is read as a scenario is: nesting, NUL bytes, duplicate keys and trailing
    // bytes refused before a tree is built (the YAML reader below bounds its own).
    scenario::JsonText parsed = scenario::parse_json_text(text, kMaxYamlDepth);
    if (parsed.error) {
      if (parsed.duplicate_key)
        ds.push_back({pointer + parsed.error->pointer, parsed.error->message});
      else
        ds.push_back({pointer, "the EPP config is not valid JSON: " + parsed.error->message});
      return ds;
    }
    doc = std::move(parsed.value);
  } else {
    YamlResult y = parse_yaml_subset(text);
    if (!y.ok) {
      ds.push_back({pointer, "EPP config YAML: " + y.error});
      return ds;
    }
    doc = std::move(y.value);
    pos = std::move(y.positions);
  }
  Loader(pointer, !is_json, std::move(pos), ds).load(doc, out);
  return ds;
}

bool runs_one_profile(const EppConfig& cfg) {
  return cfg.profile_handler < 0 || cfg.data_parallel ||
         cfg.plugins[static_cast<std::size_t>(cfg.profile_handler)].type ==
             "single-profile-handler";
}

}  // namespace blis::cluster::epp
