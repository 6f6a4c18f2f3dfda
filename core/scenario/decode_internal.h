#pragma once
// The decoder's sections, one file each (decode_*.cpp). Each reads its part of the JSON
// with rules::FieldReader, appends Diagnostics and fills the typed model.

#include <string>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "rules/json_fields.h"
#include "scenario/scenario.h"
#include "scenario/scenario_decode.h"

namespace blis::scenario::detail {

using nlohmann::json;
using rules::FieldReader;

struct DecodeContext {
  const DecodeOptions& options;
  Diagnostics& diags;
  // The built-in catalog, or a copy with the document's inline entries added.
  const catalog::Catalog* catalog = &catalog::Catalog::builtin();
  std::optional<catalog::Catalog> with_inline;
};

// decode_sections.cpp
Horizon decode_horizon(const json& v, const std::string& ptr, DecodeContext& c);
Slo decode_slo_fields(FieldReader& r);
std::vector<SloClass> decode_slo_classes(const json& v, const std::string& ptr, DecodeContext& c);
Outputs decode_outputs(const json& v, const std::string& ptr, DecodeContext& c);
InlineCatalog decode_catalog(const json& v, const std::string& ptr, DecodeContext& c);
Router decode_router(const json& v, const std::string& ptr, DecodeContext& c);

// decode_workload.cpp
Workload decode_workload(const json& v, const std::string& ptr, DecodeContext& c);
// The trace text of a `trace` object (inline csv, or path through options.read_file).
std::optional<Trace> decode_trace(const json& v, const std::string& ptr, DecodeContext& c);

// decode_pools.cpp: structure of pools[] (engine.args are resolved in resolve_pools).
std::vector<Pool> decode_pools(const json& v, const std::string& ptr, DecodeContext& c);
// Resolves every pool's engine.args against its release's rules pack (defaults filled).
void resolve_pools(const json& pools_json, Scenario& s, DecodeContext& c);

// decode_checks.cpp: rules that span sections (P/D shape, references, lengths).
void check_cross_references(Scenario& s, DecodeContext& c);

// "an integer >= 1" etc. for messages.
inline constexpr std::int64_t kInt32Max = 2147483647;

}  // namespace blis::scenario::detail
