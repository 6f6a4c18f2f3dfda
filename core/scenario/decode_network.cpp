// The `network` section (docs/scenario.md, docs/networking.md): node size, NICs, switch hops
// and the placement of pools on nodes; then the placement against the pools.

#include <cmath>
#include <set>

#include "scenario/decode_internal.h"
#include "scenario/network_placement.h"
#include "scenario/schema_keys.h"
#include "util/did_you_mean.h"
#include "util/text.h"

namespace blis::scenario::detail {

namespace {

constexpr std::int64_t kMaxNode = 1000000;

// One node index of a placement array: an integer in [0, kMaxNode].
std::optional<std::int32_t> node_index(const json& v, const std::string& ptr, DecodeContext& c) {
  const std::string expected = "a node index (an integer in [0, " + std::to_string(kMaxNode) + "])";
  double d = -1;
  if (v.is_number_unsigned() || v.is_number_integer() || v.is_number_float()) d = v.get<double>();
  if (!v.is_number() || d != std::floor(d) || d < 0 || d > kMaxNode) {
    c.diags.push_back(
        {ptr, rules::show(v) + " is " + rules::describe_type(v) + ", expected " + expected});
    return std::nullopt;
  }
  return static_cast<std::int32_t>(d);
}

}  // namespace

Network decode_network(const json& v, const std::string& ptr, DecodeContext& c) {
  Network n;
  FieldReader r(v, ptr, c.diags, keys::kNetwork, "an object (network)");
  if (!r.valid()) return n;
  if (auto g = r.integer("gpus_per_node", 1, 1024, "an integer in [1, 1024]"))
    n.gpus_per_node = static_cast<std::int32_t>(*g);
  if (auto nic = r.choice("nic", {"per_gpu", "per_node"})) n.nic = *nic;
  if (auto h = r.integer("switch_hops", 0, 64, "an integer in [0, 64]"))
    n.switch_hops = static_cast<std::int32_t>(*h);
  if (const json* pl = r.raw("placement")) {
    const std::string pp = r.pointer("placement");
    if (!pl->is_object()) {
      c.diags.push_back({pp, rules::show(*pl) + " is " + rules::describe_type(*pl) +
                                 ", expected an object (pool name -> node of each instance)"});
    } else if (pl->size() > kMaxPools) {
      c.diags.push_back({pp, "names " + std::to_string(pl->size()) + " pools, at most " +
                                 std::to_string(kMaxPools) + " are accepted"});
    } else {
      for (auto it = pl->begin(); it != pl->end(); ++it) {
        const std::string ep = json_pointer_append(pp, it.key());
        if (!it->is_array()) {
          c.diags.push_back({ep, rules::show(*it) + " is " + rules::describe_type(*it) +
                                     ", expected an array (the node of each instance)"});
          continue;
        }
        if (too_many(*it, ep, 10000, "instances", c)) continue;
        std::vector<std::int32_t> nodes;
        bool ok = true;
        for (std::size_t i = 0; i < it->size(); ++i) {
          auto node = node_index((*it)[i], json_pointer_append(ep, i), c);
          ok = ok && node.has_value();
          if (node) nodes.push_back(*node);
        }
        if (ok) n.placement[it.key()] = nodes;
      }
    }
  }
  r.report_unknown_keys();
  return n;
}

void check_network(const Scenario& s, DecodeContext& c) {
  std::vector<std::string> names;
  for (const Pool& p : s.pools) names.push_back(p.name);
  for (const auto& [name, nodes] : s.network.placement) {
    const std::string ptr = json_pointer_append("/network/placement", name);
    const Pool* pool = nullptr;
    for (const Pool& p : s.pools)
      if (p.name == name) pool = &p;
    if (pool == nullptr) {
      std::string msg = "no pool is named " + quote_excerpt(name);
      const std::vector<std::string> near = closest(name, names, 1);
      msg += near.empty() ? " (the pools: " + quoted_list(names) + ")"
                          : " (did you mean '" + near.front() + "'?)";
      c.diags.push_back({ptr, msg});
    } else if (nodes.size() != static_cast<std::size_t>(pool->instances)) {
      c.diags.push_back({ptr, "places " + std::to_string(nodes.size()) + " instances, expected " +
                                  std::to_string(pool->instances) + " (the pool's instances)"});
    }
  }
  place_instances(s, &c.diags);  // a node overfilled by explicit placements
}

}  // namespace blis::scenario::detail
