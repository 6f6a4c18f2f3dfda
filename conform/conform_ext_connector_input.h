#pragma once
// The connector keys of an ext conformance input (tests/conformance/data/ext/FORMAT.md
// section 1): the top-level "connector" object and, per request, kv_transfer_params and the
// mock worker's recv_steps / read_steps. Internal to the conformance driver.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine.h"
#include "engine/vllm/connector/cache_policy_name.h"
#include "util/diagnostic.h"

namespace blis::vllm::conform {

// Requests of an input with a connector at most (conform_input.h kMaxRequests for the rest).
inline constexpr std::size_t kMaxConnectorRequests = 10000;

struct ConnectorRequest {
  bool has_params = false;  // kv_transfer_params given (and not empty)
  engine::KvTransferParams params;
  std::optional<std::int32_t> recv_steps;  // overrides the connector default
  bool has_read_steps = false;             // read_steps given (null = never read)
  std::optional<std::int32_t> read_steps;
};

struct ConnectorInput {
  bool nixl = true;  // kind: "nixl" or "offloading"
  bool kv_consumer = true;
  bool kv_producer = true;
  std::string engine_id;
  // NIXL
  double kv_lease_duration = 30;
  std::int32_t recv_steps = 1;
  std::int32_t read_steps = 2;
  // Offloading
  std::int32_t load_steps = 1;
  std::int32_t store_steps = 1;
  std::int64_t num_cpu_blocks = 0;
  std::int32_t blocks_per_chunk = 1;
  bool offload_prompt_only = true;
  // kv_offload/cpu/spec.py: eviction_policy (default "lru"), store_threshold (default 0),
  // max_tracker_size (default 64000).
  CachePolicyKind eviction_policy = CachePolicyKind::kLru;
  std::int64_t store_threshold = 0;
  std::int64_t max_tracker_size = 64000;
  std::vector<ConnectorRequest> requests;  // by position in requests[]
};

// The per-request connector keys (kv_transfer_params, recv_steps, read_steps).
const std::vector<std::string>& connector_request_keys();

// Decodes doc["connector"] and the per-request keys, then removes them from `doc`.
void take_connector_input(nlohmann::json& doc, ConnectorInput& out, Diagnostics& diags);

}  // namespace blis::vllm::conform
