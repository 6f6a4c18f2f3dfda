// Schema of a GPU entry (catalog/gpus/*.json); fields and units in docs/catalog.md.
#include "catalog/schema/object_reader.h"
#include "catalog/schema/schema.h"

namespace blis::catalog::schema {

namespace {

bool is_iso_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) return false;
  }
  return true;
}

}  // namespace

Diagnostics parse_gpu(const nlohmann::json& j, const std::string& pointer, Gpu* out) {
  Diagnostics d;
  ObjectReader r(j, pointer, &d);
  if (!r.ok()) return d;
  // Physical bounds, far beyond any real device, so that every kernel cost (bytes / bandwidth,
  // FLOPs / throughput) is a finite time that fits the simulator's clock: an inline GPU of
  // 1e-300 B/s is an error here, not an infinite step cast to an integer later.
  constexpr double kMinBandwidth = 1e6, kMaxBandwidth = 1e16;  // bytes/s
  constexpr double kMinTflops = 1e-3, kMaxTflops = 1e6;
  constexpr std::int64_t kMaxMemory = std::int64_t{1} << 50;  // 1 PiB
  r.text("id", &out->id, true);
  r.text("name", &out->name, true);
  r.one_of("vendor", &out->vendor, true, {"nvidia", "amd", "intel", "other"});
  r.integer("memory_bytes", &out->memory_bytes, true, 1, kMaxMemory);
  r.integer("usable_memory_bytes", &out->usable_memory_bytes, true, 1, kMaxMemory);
  r.number("hbm_bandwidth_bytes_per_s", &out->hbm_bandwidth_bytes_per_s, true, kMinBandwidth,
           kMaxBandwidth);
  r.number("bf16_dense_tflops", &out->bf16_dense_tflops, true, kMinTflops, kMaxTflops);
  r.number("fp8_dense_tflops", &out->fp8_dense_tflops, true, 0, kMaxTflops);
  r.number("fp4_dense_tflops", &out->fp4_dense_tflops, false, 0, kMaxTflops);
  // A device reports its total in bytes while vendors quote GB (10^9): the report is at most
  // 2^30 / 10^9 (1.074) times the vendor figure (MI300X: 205.8e9 reported for "192 GB").
  if (out->memory_bytes > 0 && static_cast<double>(out->usable_memory_bytes) >
                                   static_cast<double>(out->memory_bytes) * (1073741824.0 / 1e9)) {
    r.error("usable_memory_bytes", "expected at most memory_bytes x 1.074 (" +
                                       std::to_string(out->memory_bytes) +
                                       " GB-rated memory reports at most that in bytes), got " +
                                       std::to_string(out->usable_memory_bytes));
  }
  r.integer32("sm_count", &out->sm_count, true, 1);
  for (const char* key : {"scale_up", "host_link"}) {
    Link* link = std::string(key) == "scale_up" ? &out->scale_up : &out->host_link;
    const nlohmann::json* v = r.object(key, true);
    if (v == nullptr) continue;
    ObjectReader lr(*v, r.child(key), &d);
    lr.text("fabric", &link->fabric, true);
    lr.number("bandwidth_bytes_per_s", &link->bandwidth_bytes_per_s, true, kMinBandwidth,
              kMaxBandwidth);
    lr.finish();
  }
  // Optional: an entry without a price runs, and its results carry no cost.
  if (const nlohmann::json* v = r.object("price", false)) {
    ObjectReader pr(*v, r.child("price"), &d);
    pr.number("usd_per_gpu_hour", &out->usd_per_gpu_hour, true, 0, 1e6, true);
    pr.text("source", &out->price_source, true);
    pr.text("as_of", &out->price_as_of, true);
    if (!out->price_as_of.empty() && !is_iso_date(out->price_as_of)) {
      pr.error("as_of", "expected a date YYYY-MM-DD, got \"" + out->price_as_of + "\"");
    }
    pr.finish();
  }
  r.text("source", &out->source, true);
  r.string_map("sources", &out->sources);
  r.finish();
  return d;
}

}  // namespace blis::catalog::schema
