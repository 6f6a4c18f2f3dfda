#include "conform/conform_ext_connector_input.h"

#include <limits>

#include "conform/conform_fields.h"
#include "util/text.h"

namespace blis::vllm::conform {
namespace {

using json = nlohmann::json;

// The mock worker's step counts (FORMAT.md section 4).
constexpr std::int64_t kMaxWorkerSteps = 100000;
constexpr std::int64_t kMaxBlockId = 100000000;

bool take_steps(FieldReader& r, const char* key, std::int32_t& out) {
  return take_int(r, key, false, 0, kMaxWorkerSteps, out);
}

// cpu/spec.py eviction_policy, resolved by cpu/policies/factory.py CachePolicyFactory: a
// built-in name, else its ValueError (out-of-tree policies are not modelled).
void take_eviction_policy(FieldReader& r, ConnectorInput& out) {
  const char* key = "eviction_policy";
  std::string name;
  if (!take_string(r, key, false, name)) return;
  if (const auto kind = cache_policy_kind(name)) {
    out.eviction_policy = *kind;
    return;
  }
  r.error(key,
          quote_excerpt(name) + " is not accepted by vLLM: " + unknown_cache_policy_message(name));
}

// kv_connector_extra_config: the keys the NIXL and offloading schedulers read.
void take_extra_config(const json& e, const std::string& ptr, ConnectorInput& out,
                       Diagnostics& diags) {
  FieldReader r = reader(e, ptr, diags,
                         {"kv_lease_duration", "eviction_policy", "blocks_per_chunk",
                          "offload_prompt_only", "store_threshold", "max_tracker_size"});
  if (!r.valid()) return;
  take_number(r, "kv_lease_duration", false, 0.0, true, 1e6, "seconds in (0, 1000000]",
              out.kv_lease_duration);
  take_eviction_policy(r, out);
  take_int(r, "blocks_per_chunk", false, 1, 1024, out.blocks_per_chunk);
  take_bool(r, "offload_prompt_only", false, out.offload_prompt_only);
  // int(extra_config.get("store_threshold", 0)): below 2 no filtering.
  take_int64(r, "store_threshold", false, -kMaxBlockId, kMaxBlockId, out.store_threshold);
  // The lookup counter's bound (a new key drops the oldest one once it holds this many).
  take_int64(r, "max_tracker_size", false, 1, kMaxBlockId, out.max_tracker_size);
  r.report_unknown_keys();
}

// RequestOffloadState.__post_init__: `type(raw) is int and raw >= 0` sets the cap; any other
// non-None value is ignored with vLLM's warning.
void take_max_offload_tokens(FieldReader& q, engine::KvTransferParams& p) {
  const char* key = "max_offload_tokens";
  const json* v = q.raw(key);
  if (v == nullptr || v->is_null()) return;
  if (v->is_number_unsigned()) {
    // A Python int beyond int64 caps nothing a request holds.
    const auto u = v->get<std::uint64_t>();
    p.max_offload_tokens = u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
                               ? std::numeric_limits<std::int64_t>::max()
                               : static_cast<std::int64_t>(u);
    return;
  }
  q.warning(key, "max_offload_tokens must be a non-negative int, got " + show(*v) +
                     "; ignoring (vLLM's warning; no cap)");
}

// The remote blocks of one KV group: [[ids]], a flat list accepted as the single group.
void take_remote_blocks(FieldReader& r, engine::KvTransferParams& p) {
  const char* key = "remote_block_ids";
  const json* x = r.array(key, "[[block ids]] (one KV group)");
  if (x == nullptr) return;
  std::string ptr = r.pointer(key);
  if (x->size() == 1 && (*x)[0].is_array()) {
    x = &(*x)[0];
    ptr = json_pointer_append(ptr, 0);
  }
  const auto ids = integer_array(*x, ptr, 0, kMaxBlockId,
                                 "a block id (" + int_range(0, kMaxBlockId) + ")", r.diagnostics());
  if (!ids) return;
  for (const std::int64_t id : *ids) p.remote_block_ids.push_back(static_cast<std::int32_t>(id));
}

// kv_transfer_params as NixlConnectorScheduler reads it. Other keys (pp_size, ...) are carried
// by vLLM but not read by the scheduler side, so they are not reported.
void take_params(FieldReader& req, ConnectorRequest& r) {
  const char* key = "kv_transfer_params";
  if (!req.has(key) || given_null(req, key)) return;
  const json& v = *req.raw(key);
  FieldReader q = reader(v, req.pointer(key), req.diagnostics(), {});
  if (!q.valid()) return;
  r.has_params = !v.empty();  // `if not params`: {} is no params
  engine::KvTransferParams& p = r.params;
  // params.get("do_remote_prefill"): null is false.
  if (!given_null(q, "do_remote_prefill"))
    take_bool(q, "do_remote_prefill", false, p.do_remote_prefill);
  if (!given_null(q, "do_remote_decode"))
    take_bool(q, "do_remote_decode", false, p.do_remote_decode);
  take_remote_blocks(q, p);
  std::string s;
  if (take_string(q, "remote_engine_id", false, s)) p.remote_engine_id = s;
  if (take_string(q, "remote_request_id", false, s)) p.remote_request_id = s;
  if (take_string(q, "remote_host", false, s)) p.remote_host = s;
  std::int32_t n = 0;
  if (take_int(q, "remote_port", false, 0, 65535, n)) p.remote_port = n;
  if (take_int(q, "tp_size", false, 0, 65535, n)) p.tp_size = n;
  take_max_offload_tokens(q, p);
}

void take_connector_object(const json& c, ConnectorInput& out, Diagnostics& diags) {
  FieldReader r =
      reader(c, "/connector", diags,
             {"kind", "kv_connector", "kv_role", "engine_id", "extra_config", "recv_steps",
              "read_steps", "load_steps", "store_steps", "num_cpu_blocks"});
  if (!r.valid()) return;
  std::string kind = "nixl";
  take_choice(r, "kind", false, {"nixl", "offloading"}, kind);
  out.nixl = kind == "nixl";
  std::string connector;
  take_choice(r, "kv_connector", false, {"NixlConnector", "OffloadingConnector"}, connector);
  std::string role;
  if (take_choice(r, "kv_role", false, {"kv_consumer", "kv_producer", "kv_both"}, role)) {
    // KVTransferConfig.is_kv_consumer / is_kv_producer.
    out.kv_consumer = role != "kv_producer";
    out.kv_producer = role != "kv_consumer";
  }
  take_string(r, "engine_id", false, out.engine_id);
  if (const json* e = r.raw("extra_config")) {
    take_extra_config(*e, r.pointer("extra_config"), out, diags);
  }
  take_steps(r, "recv_steps", out.recv_steps);
  take_steps(r, "read_steps", out.read_steps);
  take_steps(r, "load_steps", out.load_steps);
  take_steps(r, "store_steps", out.store_steps);
  take_int64(r, "num_cpu_blocks", false, 0, kMaxBlockId, out.num_cpu_blocks);
  r.report_unknown_keys();
}

}  // namespace

const std::vector<std::string>& connector_request_keys() {
  static const std::vector<std::string> keys = {"kv_transfer_params", "recv_steps", "read_steps"};
  return keys;
}

void take_connector_input(json& doc, ConnectorInput& out, Diagnostics& diags) {
  take_connector_object(doc["connector"], out, diags);
  doc.erase("connector");
  const auto reqs = doc.find("requests");
  if (reqs == doc.end() || !reqs->is_array()) return;  // the base reader reports it
  // The connector cases' trace records every in-flight transfer at every step (vLLM's
  // metadata as the golden traces hold it), so their work grows with requests x steps:
  // bounded tighter than a scheduler trace's requests.
  if (reqs->size() > kMaxConnectorRequests) {
    diags.push_back({"/requests", "at most " + std::to_string(kMaxConnectorRequests) +
                                      " requests with a connector, got " +
                                      std::to_string(reqs->size())});
  }
  out.requests.resize(reqs->size());
  for (std::size_t i = 0; i < reqs->size(); ++i) {
    json& r = (*reqs)[i];
    if (!r.is_object()) continue;  // the base reader reports it
    // The connector's request keys; the base reader checks the rest once they are removed.
    FieldReader req =
        reader(r, json_pointer_append("/requests", i), diags, connector_request_keys());
    ConnectorRequest& cr = out.requests[i];
    take_params(req, cr);
    std::int32_t v = 0;
    if (take_steps(req, "recv_steps", v)) cr.recv_steps = v;
    // read_steps: null means the decoder never reads the blocks.
    cr.has_read_steps = req.has("read_steps");
    if (!given_null(req, "read_steps") && take_steps(req, "read_steps", v)) cr.read_steps = v;
    for (const std::string& key : connector_request_keys()) r.erase(key);
  }
}

}  // namespace blis::vllm::conform
