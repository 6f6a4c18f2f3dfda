// kv_transfer_config: roles, the release's connector registry, what BLIS models, CPU KV
// offloading (kv_offloading_size) and the roles of prefill/decode pools.

#include <algorithm>

#include "engine/vllm/connector/cache_policy_name.h"
#include "rules/json_fields.h"
#include "rules/resolve_context.h"
#include "util/text.h"
#include "util/units.h"

namespace blis::rules::detail {

namespace {

std::string modelled_list(const Pack& p) {
  std::vector<std::string> names;
  for (const auto& ci : p.connectors) {
    if (ci.modelled) names.push_back(ci.name);
  }
  return join(names);
}

std::string roles_tuple(const Pack& p) {
  // Python prints get_args(KVRole) as a tuple of quoted strings.
  std::string s = "(";
  for (std::size_t i = 0; i < p.kv_roles.size(); ++i) {
    if (i) s += ", ";
    s += "'" + p.kv_roles[i] + "'";
  }
  return s + ")";
}

// vllm/config/vllm.py@000fc94b VllmConfig._post_init_kv_transfer_config.
void apply_offloading_size(Context& c) {
  if (!c.set.kv_offloading_size) return;
  auto& a = c.args;
  if (c.set.kv_offloading_backend == "lmcache") {
    c.error(
        c.ptr("kv_offloading_backend"),
        "\"lmcache\": kv_offloading_backend lmcache selects LMCacheMPConnector, which exists in " +
            c.vllm() +
            " but is not modelled by BLIS Playground (modelled: " + modelled_list(c.pack) + ")");
    return;
  }
  if (!a.kv_transfer_config) a.kv_transfer_config = engine_args::KvTransferConfig{};
  auto& kt = *a.kv_transfer_config;
  if (!kt.kv_connector.empty() && kt.kv_connector != "OffloadingConnector") {
    c.warning(c.ptr("kv_offloading_size"),
              "replaces kv_transfer_config.kv_connector \"" + kt.kv_connector +
                  "\" by OffloadingConnector (vLLM VllmConfig._post_init_kv_transfer_config)");
  }
  kt.kv_connector = "OffloadingConnector";
  kt.kv_role = "kv_both";
  kt.cpu_bytes_to_use = static_cast<std::int64_t>(*c.set.kv_offloading_size *
                                                  static_cast<double>(util::kBytesPerGiB));
}

// Returns false when the connector is unusable (error reported).
bool check_connector(Context& c, const engine_args::KvTransferConfig& kt, const std::string& kptr) {
  const Pack& p = c.pack;
  const std::string cptr = kptr + "/kv_connector";
  const auto it = std::find_if(p.connectors.begin(), p.connectors.end(),
                               [&](const ConnectorInfo& ci) { return ci.name == kt.kv_connector; });
  if (it != p.connectors.end()) {
    if (it->modelled) return true;
    c.error(cptr, "\"" + kt.kv_connector + "\" exists in " + c.vllm() +
                      " but is not modelled by BLIS Playground (modelled: " + modelled_list(p) +
                      ")");
    return false;
  }
  // vllm/distributed/kv_transfer/kv_connector/factory.py get_connector_class.
  std::string msg = "\"" + kt.kv_connector + "\" is not accepted by " + c.vllm() +
                    ": Unsupported connector type: " + kt.kv_connector;
  const auto removed =
      std::find_if(p.removed_connectors.begin(), p.removed_connectors.end(),
                   [&](const RemovedConnector& r) { return r.name == kt.kv_connector; });
  if (removed != p.removed_connectors.end()) {
    msg += " (" + removed->note + ")";
  } else {
    std::vector<std::string> names;
    for (const auto& ci : p.connectors) names.push_back(ci.name);
    const auto near = closest(kt.kv_connector, names, 1);
    if (!near.empty()) msg += "; did you mean \"" + near.front() + "\"?";
    msg += " (registered: " + join(names) + ")";
  }
  c.error(cptr, msg);
  return false;
}

void check_offloading(Context& c, engine_args::KvTransferConfig& kt, const std::string& kptr) {
  const std::string eptr = kptr + "/kv_connector_extra_config";
  if (!kt.cpu_bytes_to_use) {
    c.error(c.set.kv_offloading_size ? c.ptr("kv_offloading_size") : eptr + "/cpu_bytes_to_use",
            "missing: OffloadingConnector needs the CPU KV buffer size (kv_connector_extra_config."
            "cpu_bytes_to_use, or kv_offloading_size in GiB)");
  }
  const std::int32_t gpu_bs = c.args.block_size;
  if (!kt.offload_block_size) {
    kt.offload_block_size = gpu_bs;
  } else if (gpu_bs > 0 && *kt.offload_block_size % gpu_bs != 0) {
    // offloading_connector.py@0072b0b7 OffloadingConnectorScheduler.__init__ asserts it.
    c.error(eptr + "/block_size",
            std::to_string(*kt.offload_block_size) +
                ": the offloaded block size must be a multiple of the GPU block_size (" +
                std::to_string(gpu_bs) + ")");
  }
  // cpu/policies/factory.py CachePolicyFactory.get_cache_policy_cls (built in: lru, arc).
  if (kt.eviction_policy && !vllm::cache_policy_kind(*kt.eviction_policy)) {
    c.error(eptr + "/eviction_policy", quote_excerpt(*kt.eviction_policy) + " is not accepted by " +
                                           c.vllm() + ": " +
                                           vllm::unknown_cache_policy_message(*kt.eviction_policy));
  }
}

void check_pool_role(Context& c, const std::string& kptr) {
  const std::string& role = c.facts.role;
  auto& a = c.args;
  if (role != "prefill" && role != "decode") {
    if (a.kv_transfer_config && a.kv_transfer_config->kv_connector == "NixlConnector") {
      c.warning(kptr + "/kv_connector",
                "NixlConnector on a unified pool transfers nothing: only a prefill/decode pair "
                "hands KV over");
    }
    return;
  }
  if (!a.kv_transfer_config || a.kv_transfer_config->kv_connector.empty()) {
    // BLIS default for P/D pools (what llm-d deploys): NixlConnector, kv_both.
    engine_args::KvTransferConfig kt;
    kt.kv_connector = "NixlConnector";
    kt.kv_role = "kv_both";
    a.kv_transfer_config = kt;
    return;
  }
  const auto& kt = *a.kv_transfer_config;
  if (kt.kv_connector != "NixlConnector") {
    c.error(c.set.kv_offloading_size ? c.ptr("kv_offloading_size") : kptr + "/kv_connector",
            "a " + role +
                " pool hands KV over with NixlConnector, the only P/D connector BLIS Playground "
                "models; \"" +
                kt.kv_connector +
                "\" cannot (combining connectors with "
                "MultiConnector is not modelled)");
    return;
  }
  const bool produces = kt.kv_role == "kv_producer" || kt.kv_role == "kv_both";
  const bool consumes = kt.kv_role == "kv_consumer" || kt.kv_role == "kv_both";
  if (role == "prefill" && !produces) {
    c.error(kptr + "/kv_role",
            "\"" + kt.kv_role + "\": a prefill pool produces KV (kv_producer or kv_both)");
  }
  if (role == "decode" && !consumes) {
    c.error(kptr + "/kv_role",
            "\"" + kt.kv_role + "\": a decode pool consumes KV (kv_consumer or kv_both)");
  }
}

}  // namespace

void check_kv_transfer(Context& c) {
  apply_offloading_size(c);
  const std::string kptr = c.ptr("kv_transfer_config");
  auto& a = c.args;
  if (a.kv_transfer_config) {
    auto& kt = *a.kv_transfer_config;
    bool usable = true;
    // vllm/config/kv_transfer.py@007c643b KVTransferConfig.__post_init__.
    if (!kt.kv_role.empty() && std::find(c.pack.kv_roles.begin(), c.pack.kv_roles.end(),
                                         kt.kv_role) == c.pack.kv_roles.end()) {
      c.error(kptr + "/kv_role", "\"" + kt.kv_role + "\" is not accepted by " + c.vllm() +
                                     ": Unsupported kv_role: " + kt.kv_role +
                                     ". Supported roles are " + roles_tuple(c.pack));
      usable = false;
    }
    if (!kt.kv_connector.empty() && kt.kv_role.empty()) {
      c.error(kptr + "/kv_role",
              "missing: kv_role is required when kv_connector is set (vLLM: \"Please "
              "specify kv_role when kv_connector is set\"; vllm/config/kv_transfer.py "
              "KVTransferConfig.__post_init__), supported roles are " +
                  roles_tuple(c.pack));
      usable = false;
    }
    if (kt.kv_connector.empty()) {
      if (!kt.kv_role.empty()) {
        c.warning(kptr + "/kv_role",
                  "has no effect without kv_connector (no KV transfer instance)");
      }
    } else if (check_connector(c, kt, kptr) && usable && kt.kv_connector == "OffloadingConnector") {
      check_offloading(c, kt, kptr);
    }
  }
  check_pool_role(c, kptr);
}

}  // namespace blis::rules::detail
