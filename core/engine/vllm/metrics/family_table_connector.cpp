#include "engine/vllm/metrics/family_table.h"

namespace blis::vllm::metrics {
namespace {

using T = MetricType;
using C = FamilyCondition;
using B = BucketSet;

FamilySpec family(const char* name, MetricType type, const char* help, FamilyCondition cond,
                  std::vector<double> buckets = {}, const char* label = "",
                  std::vector<const char*> label_values = {}, bool on_first_use = false) {
  FamilySpec f{name,  type,
               help,  0,
               cond,  buckets.empty() ? B::kNone : B::kFixed,
               label, std::move(label_values)};
  f.children_on_first_use = on_first_use;
  f.fixed_buckets = std::move(buckets);
  return f;
}

// vllm distributed/kv_transfer/kv_connector/v1/nixl/stats.py NixlPromMetrics.__init__.
void add_nixl(std::vector<FamilySpec>& t) {
  const std::vector<double> time_buckets = {0.001, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1,
                                            0.2,   0.3,   0.5,  0.75,  1.0,  5.0};
  // "uniform 2kb to 16gb range": 2 ** (10 + i) for i in range(1, 25, 2).
  std::vector<double> byte_buckets;
  for (int i = 1; i < 25; i += 2) byte_buckets.push_back(static_cast<double>(1LL << (10 + i)));
  t.push_back(family("vllm:nixl_xfer_time_seconds", T::kHistogram,
                     "Histogram of transfer duration for NIXL KV Cache transfers.", C::kNixl,
                     std::vector<double>(time_buckets.begin() + 1, time_buckets.end())));
  t.push_back(family("vllm:nixl_post_time_seconds", T::kHistogram,
                     "Histogram of transfer post time for NIXL KV Cache transfers.", C::kNixl,
                     time_buckets));
  t.push_back(family("vllm:nixl_bytes_transferred", T::kHistogram,
                     "Histogram of bytes transferred per NIXL KV Cache transfers.", C::kNixl,
                     byte_buckets));
  // The HELP text has two spaces: "...per NIXL" "  KV Cache transfers." upstream.
  t.push_back(family("vllm:nixl_num_descriptors", T::kHistogram,
                     "Histogram of number of descriptors per NIXL  KV Cache transfers.", C::kNixl,
                     {10, 20, 30, 50, 75, 100, 200, 400, 1000, 2000, 4000, 10000, 20000, 50000}));
  t.push_back(family("vllm:nixl_num_failed_transfers", T::kCounter,
                     "Number of failed NIXL KV Cache transfers.", C::kNixl));
  t.push_back(family("vllm:nixl_num_failed_notifications", T::kCounter,
                     "Number of failed NIXL KV Cache notifications.", C::kNixl));
  t.push_back(family("vllm:nixl_num_kv_expired_reqs", T::kCounter,
                     "Number of requests that had their KV expire. NOTE: This metric is tracked "
                     "on the P instance.",
                     C::kNixl));
}

// vllm distributed/kv_transfer/kv_connector/v1/offloading/metrics.py OffloadPromMetrics:
// the deprecated transfer_type families (children pre-created), then
// CPUOffloadingSpec.build_metric_definitions (kv_offload/cpu/spec.py; stores_skipped only
// with store_threshold >= 2),
// then get_connector_metric_definitions; the flat families get their child on first use.
void add_offloading(std::vector<FamilySpec>& t) {
  const std::vector<double> size = {1e6, 5e6, 10e6, 20e6, 40e6, 60e6, 80e6, 100e6, 150e6, 200e6};
  const std::vector<const char*> types = {"CPU_to_GPU", "GPU_to_CPU"};
  t.push_back(family("vllm:kv_offload_total_bytes", T::kCounter,
                     "Number of bytes offloaded by KV connector", C::kOffloading, {},
                     "transfer_type", types));
  t.push_back(family("vllm:kv_offload_total_time", T::kCounter,
                     "Total time measured by all KV offloading operations", C::kOffloading, {},
                     "transfer_type", types));
  t.push_back(family("vllm:kv_offload_size", T::kHistogram,
                     "Histogram of KV offload transfer size, in bytes.", C::kOffloading, size,
                     "transfer_type", types));
  const bool lazy = true;
  t.push_back(family("vllm:kv_offload_cpu_cache_usage_perc", T::kGauge,
                     "Fraction of CPU KV-cache space currently pinned by active transfers (0.0 = "
                     "idle, 1.0 = saturated). Sustained high values indicate transfers (stores or "
                     "promotions) may be dropped due to insufficient capacity.",
                     C::kOffloading, {}, "", {}, lazy));
  t.push_back(family("vllm:kv_offload_cpu_cache_write_usage_perc", T::kGauge,
                     "Fraction of CPU KV-cache space currently pinned by in-flight stores that "
                     "have not yet completed (0.0 = idle, 1.0 = saturated).",
                     C::kOffloading, {}, "", {}, lazy));
  t.push_back(family("vllm:kv_offload_cpu_cache_read_usage_perc", T::kGauge,
                     "Fraction of CPU KV-cache space currently pinned by in-flight loads that "
                     "have not yet completed (0.0 = idle, 1.0 = saturated).",
                     C::kOffloading, {}, "", {}, lazy));
  t.push_back(family("vllm:kv_offload_cpu_allocation_size", T::kHistogram,
                     "Histogram of the number of CPU blocks requested by each KV offload "
                     "prepare_store call.",
                     C::kOffloading, {1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144}, "", {},
                     lazy));
  t.push_back(family("vllm:kv_offload_stores_skipped", T::kCounter,
                     "Number of KV offload stores skipped because the reuse threshold was not "
                     "reached.",
                     C::kOffloadingStoreThreshold, {}, "", {}, lazy));
  t.push_back(family("vllm:kv_offload_load_bytes", T::kCounter,
                     "Total bytes loaded from offload storage to GPU.", C::kOffloading, {}, "", {},
                     lazy));
  t.push_back(family("vllm:kv_offload_load_time", T::kCounter,
                     "Total load time from offload storage to GPU, in seconds.", C::kOffloading, {},
                     "", {}, lazy));
  t.push_back(family("vllm:kv_offload_load_size", T::kHistogram,
                     "Histogram of KV offload load operation size, in bytes.", C::kOffloading, size,
                     "", {}, lazy));
  t.push_back(family("vllm:kv_offload_store_bytes", T::kCounter,
                     "Total bytes stored from GPU to offload storage.", C::kOffloading, {}, "", {},
                     lazy));
  t.push_back(family("vllm:kv_offload_store_time", T::kCounter,
                     "Total store time from GPU to offload storage, in seconds.", C::kOffloading,
                     {}, "", {}, lazy));
  t.push_back(family("vllm:kv_offload_store_size", T::kHistogram,
                     "Histogram of KV offload store operation size, in bytes.", C::kOffloading,
                     size, "", {}, lazy));
  t.push_back(family(
      "vllm:kv_offload_lookup_sync_delay_seconds", T::kHistogram,
      "Histogram of the time spent in a single offload lookup call, in seconds.", C::kOffloading,
      {0.00001, 0.00005, 0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1}, "", {}, lazy));
  t.push_back(family("vllm:kv_offload_lookup_async_delay_seconds", T::kHistogram,
                     "Histogram of time between a request's offload lookup first deferring and "
                     "the following lookup resolving, or request finish, in seconds.",
                     C::kOffloading, {0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10},
                     "", {}, lazy));
  t.push_back(family("vllm:kv_offload_allocation_failure", T::kCounter,
                     "Number of KV offload store allocation attempts that failed.", C::kOffloading,
                     {}, "", {}, lazy));
}

}  // namespace

// KVConnectorProm (only the configured connector's rows register), then vllm/v1/metrics/
// perf.py PerfMetricsProm, whose three counters are always registered (declared with the
// "_total" suffix, which prometheus_client strips from the stored name).
std::vector<FamilySpec> connector_and_perf_families() {
  std::vector<FamilySpec> t;
  add_nixl(t);
  add_offloading(t);
  t.push_back(family("vllm:estimated_flops_per_gpu", T::kCounter,
                     "Estimated number of floating point operations per GPU (for Model Flops "
                     "Utilization calculations).",
                     C::kAlways));
  t.push_back(family("vllm:estimated_read_bytes_per_gpu", T::kCounter,
                     "Estimated number of bytes read from memory per GPU (for Model Flops "
                     "Utilization calculations).",
                     C::kAlways));
  t.push_back(family("vllm:estimated_write_bytes_per_gpu", T::kCounter,
                     "Estimated number of bytes written to memory per GPU (for Model Flops "
                     "Utilization calculations).",
                     C::kAlways));
  return t;
}

}  // namespace blis::vllm::metrics
