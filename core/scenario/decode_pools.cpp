// pools[]: structure (role, instances, ids, parallelism, engine) and the resolution of each
// pool's engine.args by the rules pack of its release.

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "kernel/deployment.h"
#include "rules/rules.h"
#include "scenario/catalog_bridge.h"
#include "scenario/decode_internal.h"
#include "scenario/schema_keys.h"
#include "util/text.h"

namespace blis::scenario::detail {

namespace {

const std::vector<std::string> kRoles = {"unified", "prefill", "decode"};
const std::vector<std::string> kEngineKinds = {"vllm"};

Parallelism decode_parallelism(const json& v, const std::string& ptr, DecodeContext& c) {
  Parallelism p;
  FieldReader r(v, ptr, c.diags, keys::kParallelism, "an object ({tp, pp, dp})");
  if (!r.valid()) return p;
  p.tp = static_cast<std::int32_t>(r.integer("tp", 1, 1024, "an integer in [1, 1024]").value_or(1));
  p.pp = static_cast<std::int32_t>(r.integer("pp", 1, 1024, "an integer in [1, 1024]").value_or(1));
  p.dp = static_cast<std::int32_t>(r.integer("dp", 1, 1024, "an integer in [1, 1024]").value_or(1));
  r.report_unknown_keys();
  return p;
}

EngineSpec decode_engine(const json& v, const std::string& ptr, DecodeContext& c) {
  EngineSpec e;
  FieldReader r(v, ptr, c.diags, keys::kEngine,
                "an object ({kind, release, memory_profile, args})");
  if (!r.valid()) return e;
  if (auto k = r.choice("kind", kEngineKinds, "is not an engine BLIS Playground models"))
    e.kind = *k;
  if (auto rel = r.string("release", "a vLLM release, e.g. \"0.32.0\"")) {
    if (rules::find_pack(*rel)) {
      e.release = *rel;
    } else {
      r.error("release", quote_excerpt(*rel) +
                             " is not a release BLIS Playground has a rules pack for (known: " +
                             rules::join(rules::known_releases()) + ")");
    }
  }
  if (auto m = r.choice("memory_profile", kernel::memory_profile_names(),
                        "is not a vLLM start-up memory profile BLIS Playground models"))
    e.memory_profile = *m;
  r.report_unknown_keys();
  return e;
}

// A Kubernetes label name (apimachinery validation IsQualifiedName's name part, or a value):
// at most 63 characters of [A-Za-z0-9-_.], starting and ending alphanumeric (a value may be
// empty).
bool label_word(const std::string& s, bool may_be_empty) {
  if (s.empty()) return may_be_empty;
  if (s.size() > 63) return false;
  const auto alnum = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) != 0; };
  if (!alnum(s.front()) || !alnum(s.back())) return false;
  return std::all_of(s.begin(), s.end(),
                     [&](char ch) { return alnum(ch) || ch == '-' || ch == '_' || ch == '.'; });
}

// A label key: [prefix/]name, the prefix a DNS subdomain of at most 253 characters.
bool label_key(const std::string& k) {
  const auto slash = k.find('/');
  if (slash == std::string::npos) return label_word(k, false);
  const std::string prefix = k.substr(0, slash), name = k.substr(slash + 1);
  if (prefix.empty() || prefix.size() > 253 || !label_word(name, false)) return false;
  return std::all_of(prefix.begin(), prefix.end(), [](char ch) {
    return std::islower(static_cast<unsigned char>(ch)) ||
           std::isdigit(static_cast<unsigned char>(ch)) || ch == '-' || ch == '.';
  });
}

// pools[].labels: the pods' Kubernetes labels (router epp's label-selector-filter and
// context-length-aware read them).
std::map<std::string, std::string> decode_labels(const json& v, const std::string& ptr,
                                                 DecodeContext& c) {
  std::map<std::string, std::string> out;
  if (!v.is_object() || v.size() > 64) {
    c.diags.push_back({ptr, rules::show(v) + " is " + rules::describe_type(v) +
                                ", expected an object of at most 64 label: value strings"});
    return out;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string kp = json_pointer_append(ptr, it.key());
    if (!label_key(it.key())) {
      c.diags.push_back({kp, quote_excerpt(it.key()) +
                                 " is not a Kubernetes label key ([prefix/]name, the name at "
                                 "most 63 characters of letters, digits, '-', '_', '.')"});
    } else if (it.key() == "llm-d.ai/role") {
      c.diags.push_back({kp, "llm-d.ai/role is the pool's \"role\" (set that instead)"});
    } else if (!it.value().is_string() || !label_word(it.value().get<std::string>(), true)) {
      c.diags.push_back({kp, rules::show(it.value()) +
                                 " is not a label value (a string of at most 63 letters, "
                                 "digits, '-', '_', '.', starting and ending alphanumeric)"});
    } else {
      out[it.key()] = it.value().get<std::string>();
    }
  }
  return out;
}

Pool decode_pool(const json& v, const std::string& ptr, std::size_t index, DecodeContext& c) {
  Pool p;
  FieldReader r(v, ptr, c.diags, keys::kPool, "an object (a pool)");
  if (!r.valid()) return p;
  p.name = r.string("name", "a string").value_or("pool-" + std::to_string(index));
  // Its instances' metrics are written to <out>/metrics/<name>-<i>.prom.
  if (const auto bad = file_name_problem(p.name))
    r.error("name", quote_excerpt(p.name) + " " + *bad);
  if (auto role = r.choice("role", kRoles, "is not a pool role")) p.role = *role;
  // An upper bound keeps a typo (1e9 instances) from exhausting memory in the cluster.
  p.instances = static_cast<std::int32_t>(
      r.integer("instances", 1, 10000, "an integer in [1, 10000]").value_or(p.instances));
  // A catalog id is a non-empty string; "" is refused here, since the catalog check
  // (catalog_bridge.cpp) reads it as "not given, already reported" (found by the wasm_api
  // fuzzer: "model": "" passed validate and failed load).
  const auto catalog_id = [&r](const char* key, const std::string& expected, std::string* out) {
    if (const auto id = r.string(key, expected)) {
      if (id->empty()) r.error(key, "\"\" is empty, expected " + expected);
      *out = *id;
    } else if (!r.has(key)) {
      r.missing(key, expected);
    }
  };
  catalog_id("hardware", "a catalog GPU id (e.g. " + example_gpu_ids() + ")", &p.hardware);
  catalog_id("model", "a catalog model id (e.g. " + example_model_ids() + ")", &p.model);
  if (const json* par = r.raw("parallelism"))
    p.parallelism = decode_parallelism(*par, r.pointer("parallelism"), c);
  if (const json* eng = r.raw("engine")) p.engine = decode_engine(*eng, r.pointer("engine"), c);
  p.cost_per_gpu_hour =
      r.number("cost_per_gpu_hour", 0, true, 1e6, "a price in USD per GPU-hour, > 0 and <= 1e6");
  if (const json* l = r.raw("labels")) p.labels = decode_labels(*l, r.pointer("labels"), c);
  if (const auto rate = r.number("kv_pull_failure_rate", 0, false, 1, "a probability in [0, 1]")) {
    if (p.role != "decode") {
      r.error("kv_pull_failure_rate",
              "is only for a decode pool (the pool that pulls KV from the prefill pool)");
    } else {
      p.kv_pull_failure_rate = *rate;
    }
  }
  r.report_unknown_keys();
  return p;
}

}  // namespace

std::vector<Pool> decode_pools(const json& v, const std::string& ptr, DecodeContext& c) {
  std::vector<Pool> pools;
  if (!decodable_array(v, ptr, "a non-empty array of pools", true, kMaxPools, "pools", c))
    return pools;
  std::set<std::string> names;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = json_pointer_append(ptr, i);
    Pool pool = decode_pool(v[i], p, i, c);
    if (!pool.name.empty() && !names.insert(pool.name).second) {
      c.diags.push_back({p + "/name", quote_excerpt(pool.name) +
                                          " is used by another pool, expected unique names"});
    }
    pools.push_back(std::move(pool));
  }
  return pools;
}

void resolve_pools(const json& pools_json, Scenario& s, DecodeContext& c) {
  if (!pools_json.is_array()) return;
  for (std::size_t i = 0; i < s.pools.size() && i < pools_json.size(); ++i) {
    Pool& pool = s.pools[i];
    const std::string ptr = json_pointer_append("/pools", i);
    const rules::Pack* pack = rules::find_pack(pool.engine.release);
    if (!pack) continue;  // reported by decode_engine
    const json& pj = pools_json[i];
    static const json kNull;
    const json* args = &kNull;
    if (pj.is_object()) {
      const auto eng = pj.find("engine");
      if (eng != pj.end() && eng->is_object()) {
        const auto a = eng->find("args");
        if (a != eng->end()) args = &*a;
      }
    }
    const std::size_t before = c.diags.size();
    const rules::DeploymentFacts facts = deployment_facts(pool, ptr, c);
    rules::Resolved resolved =
        rules::resolve_engine_args(*pack, *args, ptr + "/engine/args", facts);
    for (auto& d : resolved.diagnostics) c.diags.push_back(std::move(d));
    pool.engine.args = std::move(resolved.args);
    // Fit checks only make sense for a pool vLLM itself would accept.
    const bool pool_ok =
        std::none_of(c.diags.begin() + static_cast<std::ptrdiff_t>(before), c.diags.end(),
                     [](const Diagnostic& d) { return d.severity == Severity::kError; });
    if (pool_ok) check_fit(pool, ptr, facts, resolved.auto_fit_max_model_len, c);
  }
}

}  // namespace blis::scenario::detail
