// Schema of a fabric entry (catalog/fabrics/*.json); fields and units in docs/catalog.md.
#include "catalog/schema/object_reader.h"
#include "catalog/schema/schema.h"

namespace blis::catalog::schema {

Diagnostics parse_fabric(const nlohmann::json& j, const std::string& pointer, Fabric* out) {
  Diagnostics d;
  ObjectReader r(j, pointer, &d);
  if (!r.ok()) return d;
  r.text("id", &out->id, true);
  r.text("name", &out->name, true);
  r.one_of("scope", &out->scope, true, {"scale-up", "scale-out", "host"});
  // Bounds far beyond any real link, so a transfer time is always finite (gpu_schema.cpp).
  r.number("bandwidth_bytes_per_s", &out->bandwidth_bytes_per_s, true, 1e6, 1e16);
  r.number("latency_us", &out->latency_us, true, 0, 1e9);
  r.number("hop_latency_us", &out->hop_latency_us, false, 0, 1e6);
  // At least 1% of the nominal rate: an efficiency of 1e-300 made a pipeline hand-off cost
  // 1e301 us, beyond any integer time (hostile corpus).
  r.number("efficiency", &out->efficiency, true, 0.01, 1);
  r.text("source", &out->source, true);
  r.string_map("sources", &out->sources);
  r.finish();
  return d;
}

}  // namespace blis::catalog::schema
