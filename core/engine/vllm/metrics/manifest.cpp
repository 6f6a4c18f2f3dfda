#include "engine/vllm/metrics/manifest.h"

#include <nlohmann/json.hpp>

#include "engine/vllm/provenance.h"

namespace blis::vllm::metrics {
namespace {

constexpr ManifestClass E = ManifestClass::kExact;
constexpr ManifestClass D = ManifestClass::kDerived;
constexpr ManifestClass U = ManifestClass::kUnavailable;

constexpr const char* kLoggers = "vllm/v1/metrics/loggers.py";
constexpr const char* kSpec = "vllm/v1/spec_decode/metrics.py";
constexpr const char* kPerf = "vllm/v1/metrics/perf.py";
constexpr const char* kNixl = "vllm/distributed/kv_transfer/kv_connector/v1/nixl/stats.py";
constexpr const char* kOffload =
    "vllm/distributed/kv_transfer/kv_connector/v1/offloading/metrics.py";
constexpr const char* kCpuSpec = "vllm/v1/kv_offload/cpu/spec.py";

constexpr const char* kAlways = "always";
constexpr const char* kWithSpec = "with a speculative_config";
constexpr const char* kWithNixl = "kv_connector NixlConnector";
constexpr const char* kWithOffload = "kv_connector OffloadingConnector (CPU spec)";

constexpr const char* kTime = "an interval on the simulated clock (latency model)";
constexpr const char* kTokens = "token counts decided by the scheduler and the request's limits";

}  // namespace

const char* manifest_class_name(ManifestClass c) {
  switch (c) {
    case ManifestClass::kExact:
      return "exact";
    case ManifestClass::kDerived:
      return "derived";
    case ManifestClass::kUnavailable:
      return "unavailable";
  }
  return "";
}

// Registration order of PrometheusStatLogger.__init__ first (the families the simulator
// exports, family_table.cpp), then the families it does not model.
const std::vector<ManifestEntry>& metrics_manifest() {
  static const std::vector<ManifestEntry> m = {
      {"vllm:spec_decode_num_drafts", "counter", kSpec, kWithSpec, D,
       "verifications of the drafts the drafter proposed; the proposals come from the "
       "acceptance model"},
      {"vllm:spec_decode_num_draft_tokens", "counter", kSpec, kWithSpec, D,
       "draft tokens scheduled for verification, given the drafter's proposals"},
      {"vllm:spec_decode_num_accepted_tokens", "counter", kSpec, kWithSpec, D,
       "accepted draft tokens: an outcome of the acceptance model"},
      {"vllm:spec_decode_num_accepted_tokens_per_pos", "counter", kSpec, kWithSpec, D,
       "accepted draft tokens per position: an outcome of the acceptance model"},
      {"vllm:nixl_xfer_time_seconds", "histogram", kNixl, kWithNixl, D,
       "NIXL transfer duration: the simulated transfer time of the P/D link"},
      {"vllm:nixl_post_time_seconds", "histogram", kNixl, kWithNixl, D,
       "time to post a NIXL transfer, given the simulated transfer"},
      {"vllm:nixl_bytes_transferred", "histogram", kNixl, kWithNixl, D,
       "bytes per transfer: the KV blocks the scheduler sends, times the block size in bytes"},
      {"vllm:nixl_num_descriptors", "histogram", kNixl, kWithNixl, D,
       "descriptors per transfer, given the transferred blocks"},
      {"vllm:nixl_num_failed_transfers", "counter", kNixl, kWithNixl, D,
       "failed P/D pulls: the decode pool's kv_pull_failure_rate (0 without it)"},
      {"vllm:nixl_num_failed_notifications", "counter", kNixl, kWithNixl, U,
       "notification failures need real NIXL hardware; exported at 0"},
      {"vllm:nixl_num_kv_expired_reqs", "counter", kNixl, kWithNixl, D,
       "held blocks whose lease (kv_lease_duration) ran out on the simulated clock"},
      {"vllm:kv_offload_total_bytes", "counter", kOffload, kWithOffload, D,
       "deprecated per-direction bytes: transfer outcomes of the CPU tier"},
      {"vllm:kv_offload_total_time", "counter", kOffload, kWithOffload, D,
       "deprecated per-direction transfer time: simulated transfer time"},
      {"vllm:kv_offload_size", "histogram", kOffload, kWithOffload, D,
       "deprecated per-direction transfer size: transfer outcomes of the CPU tier"},
      {"vllm:kv_offload_cpu_cache_usage_perc", "gauge", kCpuSpec, kWithOffload, E,
       "CPU blocks pinned by transfers: the CPU offloading manager's state"},
      {"vllm:kv_offload_cpu_cache_write_usage_perc", "gauge", kCpuSpec, kWithOffload, E,
       "CPU blocks pinned by pending stores: the CPU offloading manager's state"},
      {"vllm:kv_offload_cpu_cache_read_usage_perc", "gauge", kCpuSpec, kWithOffload, E,
       "CPU blocks pinned by pending loads: the CPU offloading manager's state"},
      {"vllm:kv_offload_cpu_allocation_size", "histogram", kCpuSpec, kWithOffload, E,
       "CPU blocks asked for by each prepare_store: the connector's decisions"},
      {"vllm:kv_offload_stores_skipped", "counter", kCpuSpec,
       "OffloadingConnector with store_threshold >= 2", E,
       "chunks not stored because lookup saw their key fewer than store_threshold times: the "
       "CPU offloading manager's lookup counter"},
      {"vllm:kv_offload_load_bytes", "counter", kOffload, kWithOffload, D,
       "bytes loaded from the CPU tier: transfer outcomes"},
      {"vllm:kv_offload_load_time", "counter", kOffload, kWithOffload, D,
       "load time from the CPU tier: simulated transfer time"},
      {"vllm:kv_offload_load_size", "histogram", kOffload, kWithOffload, D,
       "size of each load: transfer outcomes"},
      {"vllm:kv_offload_store_bytes", "counter", kOffload, kWithOffload, D,
       "bytes stored to the CPU tier: transfer outcomes"},
      {"vllm:kv_offload_store_time", "counter", kOffload, kWithOffload, D,
       "store time to the CPU tier: simulated transfer time"},
      {"vllm:kv_offload_store_size", "histogram", kOffload, kWithOffload, D,
       "size of each store: transfer outcomes"},
      {"vllm:kv_offload_lookup_sync_delay_seconds", "histogram", kOffload, kWithOffload, D,
       "time inside one lookup call; the simulation spends none there, so it observes 0.0 as "
       "the traces do"},
      {"vllm:kv_offload_lookup_async_delay_seconds", "histogram", kOffload, kWithOffload, D,
       "from a deferred lookup to its resolution, on the simulated clock"},
      {"vllm:kv_offload_allocation_failure", "counter", kOffload, kWithOffload, E,
       "failed prepare_store allocations: the CPU LRU manager's decisions"},
      {"vllm:estimated_flops_per_gpu", "counter", kPerf, kAlways, E,
       "vLLM fills it only with --enable-mfu-metrics (off by default); without it the counter "
       "stays 0, as exported"},
      {"vllm:estimated_read_bytes_per_gpu", "counter", kPerf, kAlways, E,
       "as vllm:estimated_flops_per_gpu: 0 unless --enable-mfu-metrics"},
      {"vllm:estimated_write_bytes_per_gpu", "counter", kPerf, kAlways, E,
       "as vllm:estimated_flops_per_gpu: 0 unless --enable-mfu-metrics"},
      {"vllm:num_requests_running", "gauge", kLoggers, kAlways, E,
       "Scheduler.make_stats: the running queue"},
      {"vllm:num_requests_waiting", "gauge", kLoggers, kAlways, E,
       "Scheduler.make_stats: waiting plus skipped-waiting queues"},
      {"vllm:num_requests_waiting_by_reason", "gauge", kLoggers, kAlways, E,
       "Scheduler.make_stats: capacity (waiting) and deferred (skipped waiting)"},
      {"vllm:engine_sleep_state", "gauge", kLoggers, kAlways, E,
       "the simulated engine is never put to sleep: awake = 1, as vLLM reports without a "
       "/sleep call"},
      {"vllm:kv_cache_usage_perc", "gauge", kLoggers, kAlways, E,
       "BlockPool.get_usage: the KV cache manager's block accounting"},
      {"vllm:prefix_cache_queries", "counter", kLoggers, kAlways, E,
       "tokens looked up at admission (PrefixCacheStats)"},
      {"vllm:prefix_cache_hits", "counter", kLoggers, kAlways, E,
       "tokens found in the prefix cache at admission"},
      {"vllm:external_prefix_cache_queries", "counter", kLoggers, kAlways, E,
       "tokens a KV connector was asked for at admission"},
      {"vllm:external_prefix_cache_hits", "counter", kLoggers, kAlways, E,
       "tokens a KV connector supplied at admission"},
      {"vllm:mm_cache_queries", "counter", kLoggers, kAlways, E,
       "the simulated requests are text only; vLLM reports 0 for text-only traffic"},
      {"vllm:mm_cache_hits", "counter", kLoggers, kAlways, E,
       "the simulated requests are text only; vLLM reports 0 for text-only traffic"},
      {"vllm:num_preemptions", "counter", kLoggers, kAlways, E,
       "PREEMPTED events, counted when the request next emits output (Request.take_events)"},
      {"vllm:prompt_tokens", "counter", kLoggers, kAlways, E,
       "the prompt of each request with its first output"},
      {"vllm:prompt_tokens_by_source", "counter", kLoggers, kAlways, E,
       "PrefillStats at first admission: computed, local cache hit, external transfer"},
      {"vllm:prompt_tokens_cached", "counter", kLoggers, kAlways, E,
       "local plus external cached prompt tokens (PrefillStats)"},
      {"vllm:generation_tokens", "counter", kLoggers, kAlways, E,
       "tokens delivered by the scheduler's outputs"},
      {"vllm:request_success", "counter", kLoggers, kAlways, E,
       "finished requests by finish reason; client aborts record nothing"},
      {"vllm:request_prompt_tokens", "histogram", kLoggers, kAlways, E, kTokens},
      {"vllm:request_generation_tokens", "histogram", kLoggers, kAlways, E, kTokens},
      {"vllm:iteration_tokens_total", "histogram", kLoggers, kAlways, E,
       "computed prompt tokens plus generated tokens of each output batch"},
      {"vllm:request_max_num_generation_tokens", "histogram", kLoggers, kAlways, E, kTokens},
      {"vllm:request_params_n", "histogram", kLoggers, kAlways, E,
       "the request's n (ParentRequest.observe_finished_request)"},
      {"vllm:request_params_max_tokens", "histogram", kLoggers, kAlways, E,
       "the request's max_tokens, when set"},
      {"vllm:time_to_first_token_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:inter_token_latency_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:request_time_per_output_token_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:e2e_request_latency_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:request_queue_time_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:request_inference_time_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:request_prefill_time_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:request_decode_time_seconds", "histogram", kLoggers, kAlways, D, kTime},
      {"vllm:request_prefill_kv_computed_tokens", "histogram", kLoggers, kAlways, E,
       "prompt minus cached tokens of each finished request"},
      {"vllm:lora_requests_info", "gauge", kLoggers, "with a lora_config", D,
       "the label values (adapters waiting and running) are the scheduler's; the value is the "
       "simulated time of the last update (set_to_current_time)"},
      {"vllm:cache_config_info", "gauge", kLoggers, "by log_engine_initialized", E,
       "CacheConfig's fields: the configuration and the KV cache size"},
      // Registered by vLLM, not modelled.
      {"vllm:corrupted_requests", "counter", kLoggers, "with VLLM_COMPUTE_NANS_IN_LOGITS", U,
       "needs NaNs in real logits; the simulation has no model outputs"},
      {"vllm:kv_block_lifetime_seconds", "histogram", kLoggers, "with --kv-cache-metrics", U,
       "opt-in sampled block lifetimes (KVCacheMetricsCollector) are not modelled"},
      {"vllm:kv_block_idle_before_evict_seconds", "histogram", kLoggers, "with --kv-cache-metrics",
       U, "opt-in sampled block idle times (KVCacheMetricsCollector) are not modelled"},
      {"vllm:kv_block_reuse_gap_seconds", "histogram", kLoggers, "with --kv-cache-metrics", U,
       "opt-in sampled block reuse gaps (KVCacheMetricsCollector) are not modelled"},
      {"vllm:diffusion_num_denoising_steps", "counter", kSpec, "diffusion models", U,
       "diffusion language models are not modelled"},
      {"vllm:diffusion_num_canvas_positions", "counter", kSpec, "diffusion models", U,
       "diffusion language models are not modelled"},
      {"vllm:diffusion_num_committed_tokens", "counter", kSpec, "diffusion models", U,
       "diffusion language models are not modelled"},
      {"vllm:kv_offload_tiering_lookup_sync_delay_seconds", "histogram",
       "vllm/v1/kv_offload/tiering/spec.py", "OffloadingConnector with a tiering spec", U,
       "the tiering (secondary storage) spec is not modelled"},
      {"vllm:kv_offload_tiering_lookup_async_delay_seconds", "histogram",
       "vllm/v1/kv_offload/tiering/spec.py", "OffloadingConnector with a tiering spec", U,
       "the tiering (secondary storage) spec is not modelled"},
      {"vllm:hf3fs_save_duration_seconds", "histogram",
       "vllm/distributed/kv_transfer/kv_connector/v1/hf3fs/hf3fs_connector.py",
       "kv_connector HF3FSKVConnector", U, "needs a 3FS file system; connector not modelled"},
      {"vllm:hf3fs_load_duration_seconds", "histogram",
       "vllm/distributed/kv_transfer/kv_connector/v1/hf3fs/hf3fs_connector.py",
       "kv_connector HF3FSKVConnector", U, "needs a 3FS file system; connector not modelled"},
      {"vllm:hf3fs_num_failed_save", "counter",
       "vllm/distributed/kv_transfer/kv_connector/v1/hf3fs/hf3fs_connector.py",
       "kv_connector HF3FSKVConnector", U, "needs a 3FS file system; connector not modelled"},
      {"vllm:hf3fs_num_failed_load", "counter",
       "vllm/distributed/kv_transfer/kv_connector/v1/hf3fs/hf3fs_connector.py",
       "kv_connector HF3FSKVConnector", U, "needs a 3FS file system; connector not modelled"},
      {"vllm:mooncake_store_operation_time_seconds", "histogram",
       "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/metrics.py",
       "kv_connector MooncakeStoreConnector", U, "needs a Mooncake store; connector not modelled"},
      {"vllm:mooncake_store_operation", "counter",
       "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/metrics.py",
       "kv_connector MooncakeStoreConnector", U, "needs a Mooncake store; connector not modelled"},
      {"vllm:mooncake_store_operation_keys", "counter",
       "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/metrics.py",
       "kv_connector MooncakeStoreConnector", U, "needs a Mooncake store; connector not modelled"},
      {"vllm:mooncake_store_operation_bytes", "counter",
       "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/metrics.py",
       "kv_connector MooncakeStoreConnector", U, "needs a Mooncake store; connector not modelled"},
      {"vllm:mooncake_store_operation_failed_keys", "counter",
       "vllm/distributed/kv_transfer/kv_connector/v1/mooncake/store/metrics.py",
       "kv_connector MooncakeStoreConnector", U, "needs a Mooncake store; connector not modelled"},
      {"vllm:tool_call_parser_invocations", "counter", "vllm/parser/metrics.py",
       "API server with a tool-call parser", U,
       "counted by the API server's tool-call parser, a process the simulation does not have"},
      {"vllm:websocket_connections_active", "gauge",
       "vllm/entrypoints/speech_to_text/realtime/metrics.py", "realtime API server", U,
       "WebSocket sessions of the API server, a process the simulation does not have"},
      {"vllm:websocket_connections", "counter",
       "vllm/entrypoints/speech_to_text/realtime/metrics.py", "realtime API server", U,
       "WebSocket sessions of the API server, a process the simulation does not have"},
      {"vllm:websocket_connection_duration_seconds", "histogram",
       "vllm/entrypoints/speech_to_text/realtime/metrics.py", "realtime API server", U,
       "WebSocket sessions of the API server, a process the simulation does not have"},
  };
  return m;
}

std::string manifest_json() {
  nlohmann::ordered_json doc = nlohmann::ordered_json::object();
  const engine::Provenance prov = engine_provenance();
  doc["upstream_repo"] = prov.upstream_repo;
  doc["upstream_commit"] = prov.upstream_commit;
  doc["classes"] = {
      {"exact", "the engine's decisions decide it"},
      {"derived", "it needs simulated time or transfer outcomes, and is reported given them"},
      {"unavailable", "it needs real hardware or a process the simulation does not have"}};
  nlohmann::ordered_json families = nlohmann::ordered_json::array();
  for (const ManifestEntry& e : metrics_manifest()) {
    families.push_back({{"name", e.name},
                        {"type", e.type},
                        {"class", manifest_class_name(e.cls)},
                        {"registered", e.registered},
                        {"source", e.source},
                        {"why", e.why}});
  }
  doc["families"] = families;
  return doc.dump(2) + "\n";
}

std::string manifest_markdown() {
  std::string out = kManifestBegin;
  out += "\n\n| family | type | class | registered | why |\n|---|---|---|---|---|\n";
  for (const ManifestEntry& e : metrics_manifest()) {
    const std::string type = e.type;
    const std::string shown = std::string(e.name) + (type == "counter" ? "_total" : "");
    out += "| `" + shown + "` | " + type + " | " + manifest_class_name(e.cls) + " | " +
           e.registered + " | " + e.why + " |\n";
  }
  out += "\n";
  out += kManifestEnd;
  out += "\n";
  return out;
}

}  // namespace blis::vllm::metrics
