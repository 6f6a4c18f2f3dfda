#include "scenario/network_placement.h"

#include <algorithm>
#include <map>
#include <string>

namespace blis::scenario {

namespace {
// Nodes one explicitly placed instance may span: each is checked for room, one by one.
constexpr std::int64_t kMaxSpan = 4096;
}  // namespace

std::int64_t instance_gpus(const Pool& p) {
  return std::max<std::int64_t>(
      1, static_cast<std::int64_t>(p.parallelism.tp) * p.parallelism.pp * p.parallelism.dp);
}

std::vector<std::vector<InstancePlace>> place_instances(const Scenario& s, Diagnostics* diags) {
  const std::int64_t per_node = std::max<std::int32_t>(1, s.network.gpus_per_node);
  std::vector<std::vector<InstancePlace>> out(s.pools.size());
  std::map<std::int64_t, std::int64_t> used;  // node -> GPUs placed on it
  std::int64_t next_free = 0;                 // packed pools start after every explicit node
  // Explicit placements first, so packed pools never land on their nodes.
  for (std::size_t p = 0; p < s.pools.size(); ++p) {
    const Pool& pool = s.pools[p];
    auto it = s.network.placement.find(pool.name);
    if (it == s.network.placement.end() ||
        it->second.size() != static_cast<std::size_t>(pool.instances))
      continue;
    const std::int64_t g = instance_gpus(pool);
    const std::int64_t span = (g + per_node - 1) / per_node;
    for (std::size_t i = 0; i < it->second.size(); ++i) {
      const std::int64_t first = it->second[i];
      out[p].push_back({first, span});
      if (span > kMaxSpan) {  // checked once per pool: its instances are alike
        if (diags != nullptr && i == 0)
          diags->push_back(
              {json_pointer_append(json_pointer_append("/network/placement", pool.name), i),
               "an instance of " + std::to_string(g) + " GPUs spans " + std::to_string(span) +
                   " nodes of gpus_per_node " + std::to_string(per_node) + ", at most " +
                   std::to_string(kMaxSpan) + " are placed explicitly"});
        continue;
      }
      std::int64_t left = g;
      for (std::int64_t n = first; n < first + span; ++n) {
        const std::int64_t take = std::min(left, per_node);
        left -= take;
        used[n] += take;
        next_free = std::max(next_free, n + 1);
        if (used[n] > per_node && diags != nullptr) {
          const std::string ptr =
              json_pointer_append(json_pointer_append("/network/placement", pool.name), i);
          diags->push_back({ptr, "node " + std::to_string(n) + " would hold " +
                                     std::to_string(used[n]) + " GPUs, more than gpus_per_node " +
                                     std::to_string(per_node)});
        }
      }
    }
  }
  for (std::size_t p = 0; p < s.pools.size(); ++p) {
    if (!out[p].empty()) continue;
    const Pool& pool = s.pools[p];
    const std::int64_t g = instance_gpus(pool);
    const std::int64_t span = (g + per_node - 1) / per_node;
    std::int64_t node = next_free, fill = 0;
    for (std::int32_t i = 0; i < pool.instances; ++i) {
      if (span > 1 || fill + g > per_node) {
        if (fill > 0) ++node;
        fill = 0;
      }
      out[p].push_back({node, span});
      if (span > 1) {
        node += span;
      } else {
        fill += g;
      }
    }
    next_free = fill > 0 ? node + 1 : node;
  }
  return out;
}

}  // namespace blis::scenario
