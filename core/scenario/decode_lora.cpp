// A client's LoRA adapters (`adapters`: name, rank, share) and the checks that span the
// document: ids by first use, one rank per name, ranks within each LoRA pool's max_lora_rank.

#include <algorithm>
#include <map>
#include <set>

#include "scenario/decode_internal.h"
#include "scenario/schema_keys.h"
#include "util/text.h"

namespace blis::scenario::detail {
namespace {

inline constexpr std::size_t kMaxAdapters = 1000;
// Shares are written as decimals: allow their binary rounding when they sum to exactly 1.
inline constexpr double kShareSlack = 1e-9;

LoraAdapter decode_adapter(const json& v, const std::string& ptr, DecodeContext& c) {
  LoraAdapter a;
  FieldReader r(v, ptr, c.diags, keys::kAdapter, "an object ({\"name\", \"rank\", \"share\"})");
  if (!r.valid()) return a;
  if (auto n = r.string("name", "the adapter's name (as the client sends it in `model`)")) {
    if (n->empty())
      r.error("name", "is empty, expected the adapter's name");
    else
      a.name = *n;
  } else if (!r.has("name")) {
    r.missing("name", "the adapter's name");
  }
  if (auto k = r.integer("rank", 1, 65536, "an integer >= 1 (the adapter's LoRA rank r)"))
    a.rank = static_cast<std::int32_t>(*k);
  else if (!r.has("rank"))
    r.missing("rank", "an integer >= 1 (the adapter's LoRA rank r)");
  if (auto s = r.number("share", 0.0, false, 1.0,
                        "a fraction in [0, 1] of the client's requests that use this adapter"))
    a.share = *s;
  else if (!r.has("share"))
    r.missing("share", "a fraction in [0, 1] of the client's requests");
  r.report_unknown_keys();
  return a;
}

}  // namespace

std::vector<LoraAdapter> decode_adapters(const json& v, const std::string& ptr, DecodeContext& c) {
  std::vector<LoraAdapter> out;
  if (!decodable_array(v, ptr, "a non-empty array of adapters", true, kMaxAdapters, "adapters", c))
    return out;
  std::set<std::string> names;
  double total = 0;
  for (std::size_t i = 0; i < v.size(); ++i) {
    const std::string p = json_pointer_append(ptr, i);
    LoraAdapter a = decode_adapter(v[i], p, c);
    if (!a.name.empty() && !names.insert(a.name).second) {
      c.diags.push_back({p + "/name", quote_excerpt(a.name) + " is listed twice for this client"});
    }
    total += a.share;
    out.push_back(std::move(a));
  }
  if (total > 1 + kShareSlack) {
    c.diags.push_back({ptr, "shares sum to " + rules::show(json(total)) +
                                ", expected at most 1 (the rest of the requests use the base "
                                "model)"});
  }
  return out;
}

void check_adapters(Scenario& s, DecodeContext& c) {
  // Adapter ids follow the largest id a client names directly with `lora`, so the two never
  // collide; a name keeps the id (and must keep the rank) of its first use.
  std::int32_t next = 1;
  for (const Client& cl : s.workload.clients) next = std::max(next, cl.lora + 1);
  std::map<std::string, std::pair<std::int32_t, std::int32_t>> seen;  // name -> id, rank
  for (std::size_t i = 0; i < s.workload.clients.size(); ++i) {
    Client& cl = s.workload.clients[i];
    if (cl.adapters.empty()) continue;
    const std::string ptr = json_pointer_append(
        json_pointer_append(json_pointer_append("/workload", "clients"), i), "adapters");
    if (cl.lora > 0) {
      c.diags.push_back({ptr, "goes with lora " + std::to_string(cl.lora) +
                                  "; give a client either lora (one adapter id) or adapters"});
    }
    std::vector<std::size_t> lora_pools;
    for (std::size_t p = 0; p < s.pools.size(); ++p)
      if (s.pools[p].engine.args.enable_lora) lora_pools.push_back(p);
    if (lora_pools.empty()) {
      c.diags.push_back({ptr, "names LoRA adapters but no pool sets engine.args.enable_lora"});
    }
    for (std::size_t k = 0; k < cl.adapters.size(); ++k) {
      LoraAdapter& a = cl.adapters[k];
      const std::string ap = json_pointer_append(ptr, k);
      if (a.name.empty()) continue;  // reported by the decoder
      auto [it, fresh] = seen.try_emplace(a.name, next, a.rank);
      if (fresh) ++next;
      a.id = it->second.first;
      if (it->second.second != a.rank) {
        c.diags.push_back({ap + "/rank", std::to_string(a.rank) + ": adapter " +
                                             quote_excerpt(a.name) + " has rank " +
                                             std::to_string(it->second.second) +
                                             " in an earlier client; one adapter has one rank"});
      }
      // vllm/lora/peft_helper.py PEFTHelper.validate_legal: "LoRA rank r is greater than
      // max_lora_rank" (the adapter fails to load; its requests are rejected).
      for (std::size_t p : lora_pools) {
        const std::int32_t max_rank = s.pools[p].engine.args.max_lora_rank;
        if (a.rank > max_rank) {
          c.diags.push_back({ap + "/rank", std::to_string(a.rank) + " is above max_lora_rank " +
                                               std::to_string(max_rank) + " of pool " +
                                               quote_excerpt(s.pools[p].name) + " (" +
                                               json_pointer_append("/pools", p) +
                                               "/engine/args/max_lora_rank)"});
        }
      }
    }
  }
}

}  // namespace blis::scenario::detail
