#pragma once
// KVConnectorStats: what a KV connector reports to the metrics between two records, the
// payload of vLLM's SchedulerStats.kv_connector_stats (vllm distributed/kv_transfer/
// kv_connector/v1/metrics.py KVConnectorStats). The connector code fills it; the Prometheus
// logger applies it to the connector's families (KVConnectorProm.observe).
//
// The payload is self-describing, as OffloadingConnectorStats is upstream: a list of
// (family, kind, value) entries in the order they were recorded. NIXL's stats
// (nixl/stats.py NixlKVConnectorStats) map onto it one to one:
//   record_transfer(t)          -> observe("vllm:nixl_xfer_time_seconds", seconds),
//                                  observe("vllm:nixl_post_time_seconds", seconds),
//                                  observe("vllm:nixl_bytes_transferred", bytes),
//                                  observe("vllm:nixl_num_descriptors", count)
//   record_failed_transfer()    -> increase("vllm:nixl_num_failed_transfers")
//   record_failed_notification()-> increase("vllm:nixl_num_failed_notifications")
//   record_kv_expired_req()     -> increase("vllm:nixl_num_kv_expired_reqs")
// and the offloading ones (offloading/metrics.py OffloadingConnectorStats, kv_offload/cpu/
// manager.py) use their flat family names, e.g. increase("vllm:kv_offload_load_bytes", n),
// observe("vllm:kv_offload_lookup_sync_delay_seconds", 0.0),
// increase("vllm:kv_offload_allocation_failure"), set("vllm:kv_offload_cpu_cache_usage_perc",
// f). The logger keeps the deprecated transfer_type families in step, as OffloadPromMetrics
// does. Entries naming a family the configured connector does not register are ignored.
//
// Nothing here allocates once the entry vector reached its peak size (clear keeps capacity).

#include <cstdint>
#include <string_view>
#include <vector>

namespace blis::vllm::metrics {

// Which connector's families the engine registers (KVConnectorProm picks them from the
// configured connector class).
enum class ConnectorMetrics : std::uint8_t {
  kNone,        // no kv_transfer_config
  kNixl,        // NixlConnector: NixlPromMetrics (7 families)
  kOffloading,  // OffloadingConnector with the CPU spec: OffloadPromMetrics (16 families)
};

class KVConnectorStats {
 public:
  enum class Kind : std::uint8_t { kCounter, kGauge, kHistogram };
  struct Entry {
    std::string_view family;  // a vllm:* name from family_table() (static storage)
    Kind kind;
    double value;
  };

  // Counter += by (KVConnectorStats.increase_counter).
  void increase(std::string_view family, double by = 1) {
    entries_.push_back({family, Kind::kCounter, by});
  }
  // Gauge = value; the latest one wins (set_gauge).
  void set(std::string_view family, double value) {
    entries_.push_back({family, Kind::kGauge, value});
  }
  // One histogram observation (observe_histogram).
  void observe(std::string_view family, double value) {
    entries_.push_back({family, Kind::kHistogram, value});
  }
  // Appends another interval's entries (KVConnectorStats.aggregate).
  void aggregate(const KVConnectorStats& other) {
    entries_.insert(entries_.end(), other.entries_.begin(), other.entries_.end());
  }

  bool empty() const { return entries_.empty(); }
  void clear() { entries_.clear(); }
  const std::vector<Entry>& entries() const { return entries_; }

 private:
  std::vector<Entry> entries_;
};

}  // namespace blis::vllm::metrics
