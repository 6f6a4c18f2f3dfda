// Small sections of the document: horizon, slo, slo_classes, outputs, catalog, router.

#include <algorithm>
#include <set>

#include "scenario/decode_internal.h"
#include "scenario/schema_keys.h"
#include "util/text.h"

namespace blis::scenario::detail {

Horizon decode_horizon(const json& v, const std::string& ptr, DecodeContext& c) {
  Horizon h;
  FieldReader r(v, ptr, c.diags, keys::kHorizon, "an object (horizon)");
  if (!r.valid()) return h;
  h.duration_s = r.number("duration_s", 0.0, true, 1e9, "a number of seconds > 0");
  h.max_requests = r.integer("max_requests", 1, 1000000000000LL, "an integer >= 1");
  if (auto d = r.boolean("drain")) h.drain = *d;
  if (!r.has("duration_s") && !r.has("max_requests")) {
    c.diags.push_back(
        {ptr, "needs duration_s or max_requests (arrivals stop at whichever comes first)"});
  }
  r.report_unknown_keys();
  return h;
}

Slo decode_slo_fields(FieldReader& r) {
  Slo s;
  s.ttft_ms = r.number("ttft_ms", 0.0, true, 1e12, "a number of milliseconds > 0");
  s.itl_ms = r.number("itl_ms", 0.0, true, 1e12, "a number of milliseconds > 0");
  s.e2e_ms = r.number("e2e_ms", 0.0, true, 1e12, "a number of milliseconds > 0");
  return s;
}

std::vector<SloClass> decode_slo_classes(const json& v, const std::string& ptr, DecodeContext& c) {
  std::vector<SloClass> out;
  if (!decodable_array(v, ptr, "an array of SLO classes", false, kMaxSloClasses, "SLO classes", c))
    return out;
  std::set<std::string> names;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = json_pointer_append(ptr, i);
    FieldReader r(v[i], p, c.diags, keys::kSloClass, "an object (an SLO class)");
    if (!r.valid()) continue;
    SloClass sc;
    if (auto n = r.string("name", "a non-empty string")) sc.name = *n;
    if (sc.name.empty()) {
      r.missing("name", "a non-empty string");
    } else if (const auto bad = label_problem(sc.name)) {
      r.error("name", quote_excerpt(sc.name) + " " + *bad);
    } else if (!names.insert(sc.name).second) {
      r.error("name", quote_excerpt(sc.name) + " is defined twice, expected unique class names");
    }
    sc.slo = decode_slo_fields(r);
    r.report_unknown_keys();
    out.push_back(sc);
  }
  return out;
}

Outputs decode_outputs(const json& v, const std::string& ptr, DecodeContext& c) {
  Outputs o;
  FieldReader r(v, ptr, c.diags, keys::kOutputs, "an object (outputs)");
  if (!r.valid()) return o;
  // At least 1 ms: a finer grid only multiplies the samples (one per instance per interval)
  // and would fall below the simulator's 1 µs clock.
  if (auto t =
          r.number("timeseries_interval_ms", 1.0, false, 1e12, "a number of milliseconds >= 1")) {
    o.timeseries_interval_ms = *t;
  }
  if (auto b = r.boolean("per_request")) o.per_request = *b;
  r.report_unknown_keys();
  return o;
}

InlineCatalog decode_catalog(const json& v, const std::string& ptr, DecodeContext& c) {
  InlineCatalog cat;
  FieldReader r(v, ptr, c.diags, keys::kCatalog, "an object (inline catalog entries)");
  if (!r.valid()) return cat;
  const auto read = [&](const char* key, std::vector<std::string>& out) {
    const json* list = r.raw(key);
    if (!list) return;
    if (!list->is_array()) {
      r.error(key, rules::show(*list) + " is " + rules::describe_type(*list) +
                       ", expected an array of catalog entries");
      return;
    }
    if (too_many(*list, r.pointer(key), kMaxCatalogEntries, "entries", c)) return;
    for (std::size_t i = 0; i < list->size(); ++i) {
      const json& e = (*list)[i];
      if (!e.is_object()) {
        c.diags.push_back({json_pointer_append(r.pointer(key), i),
                           rules::show(e) + " is " + rules::describe_type(e) +
                               ", expected an object (a catalog entry)"});
        continue;
      }
      // Kept as JSON text in the catalog's own schema; the catalog validates it.
      out.push_back(e.dump());
    }
  };
  read("gpus", cat.gpus);
  read("models", cat.models);
  read("fabrics", cat.fabrics);
  r.report_unknown_keys();
  return cat;
}

Router decode_router(const json& v, const std::string& ptr, DecodeContext& c) {
  Router router;
  FieldReader r(v, ptr, c.diags, keys::kRouter, "an object (router)");
  if (!r.valid()) return router;
  static const std::vector<std::string> kPolicies = {"round-robin", "least-loaded", "weighted",
                                                     "random", "epp"};
  static const std::vector<std::string> kScorers = {"queue-depth", "kv-utilization",
                                                    "prefix-cache"};
  if (auto p = r.choice("policy", kPolicies, "is not a router policy")) router.policy = *p;
  if (auto s = r.number("signal_staleness_ms", 0.0, false, 1e9, "a number of milliseconds >= 0")) {
    router.signal_staleness_ms = *s;
  }
  if (const json* scorers = r.raw("scorers")) {
    if (router.policy != "weighted") {
      r.error("scorers",
              "scorers are used only by policy \"weighted\" (policy is \"" + router.policy + "\")");
    } else if (!scorers->is_array()) {
      r.error("scorers", rules::show(*scorers) + " is " + rules::describe_type(*scorers) +
                             ", expected an array of {name, weight}");
    } else if (!too_many(*scorers, r.pointer("scorers"), kMaxScorers, "scorers", c)) {
      std::set<std::string> seen;
      for (std::size_t i = 0; i < scorers->size(); ++i) {
        FieldReader s((*scorers)[i], json_pointer_append(r.pointer("scorers"), i), c.diags,
                      keys::kScorer, "an object ({name, weight})");
        if (!s.valid()) continue;
        Scorer sc;
        if (auto n = s.choice("name", kScorers, "is not a scorer")) {
          sc.name = *n;
          if (!seen.insert(sc.name).second)
            s.error("name", quote_excerpt(sc.name) + " is listed twice, expected each scorer once");
        } else if (!s.has("name")) {
          s.missing("name", "one of: " + rules::join(kScorers, true));
        }
        if (auto w = s.number("weight", 0.0, false, 1e9, "a weight >= 0")) sc.weight = *w;
        s.report_unknown_keys();
        router.scorers.push_back(sc);
      }
    }
  }
  if (const json* epp = r.raw("epp_config")) {
    // An EndpointPickerConfig inline: an object (JSON) or a string (YAML, or JSON text). Kept
    // as text; the cluster's router checks it against the EPP plugin registry.
    if (router.policy != "epp") {
      r.error("epp_config",
              "epp_config is used only by policy \"epp\" (policy is \"" + router.policy + "\")");
    } else if (epp->is_object()) {
      router.epp_config = epp->dump();
    } else if (epp->is_string() && epp->get<std::string>().size() <= 256 * 1024) {
      router.epp_config = epp->get<std::string>();
    } else {
      r.error("epp_config", rules::show(*epp) + " is " + rules::describe_type(*epp) +
                                ", expected an EndpointPickerConfig object or its YAML text "
                                "(at most 256 KiB)");
    }
  } else if (router.policy == "epp") {
    r.missing("epp_config", "an EndpointPickerConfig for policy \"epp\" (an object, or YAML text)");
  }
  if (router.policy == "weighted") {
    const bool any_positive = std::any_of(router.scorers.begin(), router.scorers.end(),
                                          [](const Scorer& s) { return s.weight > 0; });
    if (!r.has("scorers") || router.scorers.empty()) {
      r.missing("scorers", "a non-empty array of {name, weight} for policy \"weighted\" (names: " +
                               rules::join(kScorers, true) + ")");
    } else if (!any_positive) {
      r.error("scorers", "every weight is 0, expected at least one scorer with weight > 0");
    }
  }
  r.report_unknown_keys();
  return router;
}

}  // namespace blis::scenario::detail
