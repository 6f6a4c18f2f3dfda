// decode_scenario: the document root, then each section, then rules that span sections.

#include <algorithm>

#include "scenario/catalog_bridge.h"
#include "scenario/decode_internal.h"
#include "scenario/json_text.h"
#include "scenario/pool_deployment.h"
#include "scenario/schema_keys.h"

namespace blis::scenario {

namespace {

using detail::DecodeContext;
using detail::FieldReader;
using nlohmann::json;

std::optional<std::uint64_t> decode_seed(const json& v, DecodeContext& c) {
  const std::string expected = "an integer in [0, 18446744073709551615]";
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer()) {
    if (v.get<std::int64_t>() >= 0) return static_cast<std::uint64_t>(v.get<std::int64_t>());
  } else if (v.is_number_float()) {
    const double d = v.get<double>();
    if (d >= 0 && d <= 9007199254740992.0 &&
        static_cast<double>(static_cast<std::uint64_t>(d)) == d) {
      return static_cast<std::uint64_t>(d);
    }
  } else {
    c.diags.push_back(
        {"/seed", rules::show(v) + " is " + rules::describe_type(v) + ", expected " + expected});
    return std::nullopt;
  }
  c.diags.push_back({"/seed", rules::show(v) + " is out of range, expected " + expected});
  return std::nullopt;
}

void decode_root(const json& doc, Scenario& s, DecodeContext& c) {
  FieldReader r(doc, "", c.diags, keys::kRoot, "an object (a blis/scenario/v1 document)");
  if (!r.valid()) return;
  const std::string expected_schema = nlohmann::json(kSchemaV1).dump();  // quoted
  if (auto schema = r.string("schema", expected_schema)) {
    if (*schema != kSchemaV1) {
      r.error("schema", rules::show(*r.raw("schema")) +
                            " is not a schema this build reads, expected " + expected_schema);
    }
  } else if (!r.has("schema")) {
    r.missing("schema", expected_schema);
  }
  if (auto n = r.string("name")) s.name = *n;
  if (const json* seed = r.raw("seed")) s.seed = decode_seed(*seed, c).value_or(s.seed);
  if (const json* h = r.raw("horizon"))
    s.horizon = detail::decode_horizon(*h, "/horizon", c);
  else
    r.missing("horizon", "an object with duration_s and/or max_requests");
  if (const json* cat = r.raw("catalog")) s.catalog = detail::decode_catalog(*cat, "/catalog", c);
  detail::add_inline_entries(s.catalog, c);
  if (auto f = r.string("fabric", "a catalog fabric id")) s.fabric = *f;
  detail::check_fabric(s, c);
  const json* pools = r.raw("pools");
  if (pools)
    s.pools = detail::decode_pools(*pools, "/pools", c);
  else
    r.missing("pools", "a non-empty array of pools");
  if (const json* router = r.raw("router")) s.router = detail::decode_router(*router, "/router", c);
  if (c.options.epp_config) {
    s.router.policy = "epp";
    s.router.scorers.clear();
    s.router.epp_config = *c.options.epp_config;
  }
  if (const json* w = r.raw("workload"))
    s.workload = detail::decode_workload(*w, "/workload", c);
  else
    r.missing("workload", "an object with clients or trace_csv");
  if (const json* slo = r.raw("slo")) {
    FieldReader sr(*slo, "/slo", c.diags, keys::kSlo, "an object ({ttft_ms, itl_ms, e2e_ms})");
    if (sr.valid()) {
      s.slo = detail::decode_slo_fields(sr);
      sr.report_unknown_keys();
    }
  }
  if (const json* classes = r.raw("slo_classes"))
    s.slo_classes = detail::decode_slo_classes(*classes, "/slo_classes", c);
  if (const json* o = r.raw("outputs")) s.outputs = detail::decode_outputs(*o, "/outputs", c);
  if (const json* n = r.raw("network")) s.network = detail::decode_network(*n, "/network", c);
  r.report_unknown_keys();

  if (pools) detail::resolve_pools(*pools, s, c);
  detail::check_cross_references(s, c);
  detail::check_network(s, c);
  // The budget multiplies what the sections decoded: only for a document without errors.
  if (!has_errors(c.diags)) detail::check_budget(s, c);
  if (!has_errors(c.diags)) {
    for (auto& d : placement_warnings(*c.catalog, s)) c.diags.push_back(std::move(d));
  }
}

}  // namespace

// At most kMaxDiagnostics are reported, then one line saying how many more there were: a
// document with a million mistakes gets a readable answer of bounded size.
void cap_diagnostics(Diagnostics& ds) {
  if (ds.size() <= kMaxDiagnostics) return;
  const std::size_t more = ds.size() - kMaxDiagnostics;
  const bool errors = std::any_of(ds.begin() + kMaxDiagnostics, ds.end(), [](const Diagnostic& d) {
    return d.severity == Severity::kError;
  });
  ds.resize(kMaxDiagnostics);
  ds.push_back({"", "\u2026 and " + std::to_string(more) + " more",
                errors ? Severity::kError : Severity::kWarning});
}

DecodeResult decode_scenario(const std::string& json_text, const DecodeOptions& options) {
  DecodeResult out;
  JsonText parsed = parse_json_text(json_text);
  if (parsed.error) {
    out.malformed_json = !parsed.duplicate_key;
    out.diagnostics.push_back(*parsed.error);
    return out;
  }
  Scenario s;
  DecodeContext c{options, out.diagnostics, &catalog::Catalog::builtin(), std::nullopt, {}, {}, {}};
  decode_root(parsed.value, s, c);
  if (!has_errors(out.diagnostics)) out.scenario = std::move(s);
  cap_diagnostics(out.diagnostics);
  return out;
}

Diagnostics validate_scenario_text(const std::string& json_text) {
  return decode_scenario(json_text, DecodeOptions{}).diagnostics;
}

}  // namespace blis::scenario
