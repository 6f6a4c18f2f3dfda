#include "conform/conform_ext_connector_input.h"

#include <cmath>

namespace blis::vllm::conform {
namespace {

using json = nlohmann::json;

bool read_steps_value(const json& v, const std::string& ptr, std::int32_t& out,
                      Diagnostics& diags) {
  if (!v.is_number_integer() || v.get<std::int64_t>() < 0 || v.get<std::int64_t>() > 100000) {
    diags.push_back({ptr, "expected a step count (integer in [0, 100000])"});
    return false;
  }
  out = static_cast<std::int32_t>(v.get<std::int64_t>());
  return true;
}

bool read_string(const json& v, const std::string& ptr, std::string& out, Diagnostics& diags) {
  if (!v.is_string()) {
    diags.push_back({ptr, "expected a string"});
    return false;
  }
  out = v.get<std::string>();
  return true;
}

void take_extra_config(const json& e, const std::string& ptr, ConnectorInput& out,
                       Diagnostics& diags) {
  if (!e.is_object()) {
    diags.push_back({ptr, "expected an object"});
    return;
  }
  for (auto it = e.begin(); it != e.end(); ++it) {
    const std::string p = json_pointer_append(ptr, it.key());
    const json& v = it.value();
    if (it.key() == "kv_lease_duration") {
      if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() <= 0 ||
          v.get<double>() > 1e6) {
        diags.push_back({p, "expected seconds in (0, 1000000]"});
      } else {
        out.kv_lease_duration = v.get<double>();
      }
    } else if (it.key() == "eviction_policy") {
      if (!v.is_string() || v.get<std::string>() != "lru")
        diags.push_back({p, "only \"lru\" is modelled"});
    } else if (it.key() == "blocks_per_chunk") {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 1 || v.get<std::int64_t>() > 1024) {
        diags.push_back({p, "expected an integer in [1, 1024]"});
      } else {
        out.blocks_per_chunk = static_cast<std::int32_t>(v.get<std::int64_t>());
      }
    } else if (it.key() == "offload_prompt_only") {
      if (!v.is_boolean()) {
        diags.push_back({p, "expected a boolean"});
      } else {
        out.offload_prompt_only = v.get<bool>();
      }
    } else {
      diags.push_back({p, "unknown key"});
    }
  }
}

void take_params(const json& v, const std::string& ptr, ConnectorRequest& r, Diagnostics& diags) {
  if (v.is_null()) return;
  if (!v.is_object()) {
    diags.push_back({ptr, "expected an object"});
    return;
  }
  r.has_params = !v.empty();  // `if not params`: {} is no params
  engine::KvTransferParams& p = r.params;
  for (auto it = v.begin(); it != v.end(); ++it) {
    const std::string q = json_pointer_append(ptr, it.key());
    const json& x = it.value();
    const std::string& k = it.key();
    if (k == "do_remote_prefill" || k == "do_remote_decode") {
      if (!x.is_boolean() && !x.is_null()) {
        diags.push_back({q, "expected a boolean"});
        continue;
      }
      (k == "do_remote_prefill" ? p.do_remote_prefill : p.do_remote_decode) =
          x.is_boolean() && x.get<bool>();
    } else if (k == "remote_block_ids") {
      // One KV group: [[ids]] (a flat list is accepted as the single group).
      const json* g = &x;
      if (x.is_array() && x.size() == 1 && x[0].is_array()) g = &x[0];
      if (!g->is_array()) {
        diags.push_back({q, "expected [[block ids]] (one KV group)"});
        continue;
      }
      for (std::size_t i = 0; i < g->size(); ++i) {
        if (!(*g)[i].is_number_integer() || (*g)[i].get<std::int64_t>() < 0 ||
            (*g)[i].get<std::int64_t>() > 100000000) {
          diags.push_back({json_pointer_append(q, i), "expected a block id"});
          break;
        }
        p.remote_block_ids.push_back(static_cast<std::int32_t>((*g)[i].get<std::int64_t>()));
      }
    } else if (k == "remote_engine_id" || k == "remote_request_id" || k == "remote_host") {
      std::string s;
      if (!read_string(x, q, s, diags)) continue;
      (k == "remote_engine_id"    ? p.remote_engine_id
       : k == "remote_request_id" ? p.remote_request_id
                                  : p.remote_host) = s;
    } else if (k == "remote_port" || k == "tp_size") {
      if (!x.is_number_integer() || x.get<std::int64_t>() < 0 || x.get<std::int64_t>() > 65535) {
        diags.push_back({q, "expected an integer in [0, 65535]"});
        continue;
      }
      (k == "remote_port" ? p.remote_port : p.tp_size) =
          static_cast<std::int32_t>(x.get<std::int64_t>());
    }
    // Other keys (pp_size, ...) are carried by vLLM but not read by the scheduler side.
  }
}

void take_connector_object(const json& c, ConnectorInput& out, Diagnostics& diags) {
  const std::string ptr = "/connector";
  if (!c.is_object()) {
    diags.push_back({ptr, "expected an object"});
    return;
  }
  std::string kind = "nixl";
  for (auto it = c.begin(); it != c.end(); ++it) {
    const std::string p = json_pointer_append(ptr, it.key());
    const json& v = it.value();
    const std::string& k = it.key();
    if (k == "kind") {
      if (read_string(v, p, kind, diags) && kind != "nixl" && kind != "offloading")
        diags.push_back({p, "expected \"nixl\" or \"offloading\""});
    } else if (k == "kv_connector") {
      std::string s;
      if (read_string(v, p, s, diags) && s != "NixlConnector" && s != "OffloadingConnector")
        diags.push_back({p, "expected \"NixlConnector\" or \"OffloadingConnector\""});
    } else if (k == "kv_role") {
      std::string s;
      if (!read_string(v, p, s, diags)) continue;
      if (s != "kv_consumer" && s != "kv_producer" && s != "kv_both") {
        diags.push_back({p, "expected kv_consumer, kv_producer or kv_both"});
        continue;
      }
      // KVTransferConfig.is_kv_consumer / is_kv_producer.
      out.kv_consumer = s != "kv_producer";
      out.kv_producer = s != "kv_consumer";
    } else if (k == "engine_id") {
      read_string(v, p, out.engine_id, diags);
    } else if (k == "extra_config") {
      take_extra_config(v, p, out, diags);
    } else if (k == "recv_steps") {
      read_steps_value(v, p, out.recv_steps, diags);
    } else if (k == "read_steps") {
      read_steps_value(v, p, out.read_steps, diags);
    } else if (k == "load_steps") {
      read_steps_value(v, p, out.load_steps, diags);
    } else if (k == "store_steps") {
      read_steps_value(v, p, out.store_steps, diags);
    } else if (k == "num_cpu_blocks") {
      if (!v.is_number_integer() || v.get<std::int64_t>() < 0 ||
          v.get<std::int64_t>() > 100000000) {
        diags.push_back({p, "expected an integer in [0, 100000000]"});
      } else {
        out.num_cpu_blocks = v.get<std::int64_t>();
      }
    } else {
      diags.push_back({p, "unknown key"});
    }
  }
  out.nixl = kind == "nixl";
}

}  // namespace

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
    if (!r.is_object()) continue;
    const std::string ptr = json_pointer_append("/requests", i);
    ConnectorRequest& cr = out.requests[i];
    if (const auto p = r.find("kv_transfer_params"); p != r.end()) {
      take_params(*p, ptr + "/kv_transfer_params", cr, diags);
      r.erase("kv_transfer_params");
    }
    if (const auto s = r.find("recv_steps"); s != r.end()) {
      std::int32_t v = 0;
      if (read_steps_value(*s, ptr + "/recv_steps", v, diags)) cr.recv_steps = v;
      r.erase("recv_steps");
    }
    if (const auto s = r.find("read_steps"); s != r.end()) {
      cr.has_read_steps = true;
      std::int32_t v = 0;
      if (!s->is_null() && read_steps_value(*s, ptr + "/read_steps", v, diags)) cr.read_steps = v;
      r.erase("read_steps");
    }
  }
}

}  // namespace blis::vllm::conform
