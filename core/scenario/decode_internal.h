#pragma once
// The decoder's sections, one file each (decode_*.cpp). Each reads its part of the JSON
// with rules::FieldReader, appends Diagnostics and fills the typed model.

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "kernel/deployment.h"
#include "kernel/kv_capacity.h"
#include "rules/json_fields.h"
#include "scenario/scenario.h"
#include "scenario/scenario_checks.h"
#include "scenario/scenario_decode.h"
#include "scenario/trace_csv.h"

namespace blis::scenario::detail {

using nlohmann::json;
using rules::FieldReader;

// A pool's throughput at its best (all instances, full steps, no context), in tokens/s.
struct PoolRates {
  double prefill_tokens_per_s = 0, decode_tokens_per_s = 0;
};

struct DecodeContext {
  const DecodeOptions& options;
  Diagnostics& diags;
  // The built-in catalog, or a copy with the document's inline entries added.
  const catalog::Catalog* catalog = &catalog::Catalog::builtin();
  std::optional<catalog::Catalog> with_inline;
  // KV blocks (GPU + CPU tier, all instances) of each pool that fits, by pool pointer.
  std::map<std::string, std::int64_t> pool_blocks;
  // What each good trace holds, by the trace's pointer.
  std::map<std::string, TraceStats> traces;
  // Each pool whose steps are priced, by pool pointer.
  std::map<std::string, PoolRates> pool_rates;
};

// decode_sections.cpp
Horizon decode_horizon(const json& v, const std::string& ptr, DecodeContext& c);
Slo decode_slo_fields(FieldReader& r);
std::vector<SloClass> decode_slo_classes(const json& v, const std::string& ptr, DecodeContext& c);
Outputs decode_outputs(const json& v, const std::string& ptr, DecodeContext& c);
InlineCatalog decode_catalog(const json& v, const std::string& ptr, DecodeContext& c);
Router decode_router(const json& v, const std::string& ptr, DecodeContext& c);

// decode_workload.cpp
Workload decode_workload(const json& v, const std::string& ptr, DecodeContext& c);
// The trace text of a `trace` object (inline csv, or path through options.read_file).
std::optional<Trace> decode_trace(const json& v, const std::string& ptr, DecodeContext& c);

// decode_lora.cpp: a client's `adapters` array (structure and ranges).
std::vector<LoraAdapter> decode_adapters(const json& v, const std::string& ptr, DecodeContext& c);
// Gives adapters their workload-wide ids and checks them against the pools (enable_lora,
// max_lora_rank) and each other (one rank per name, `lora` and `adapters` exclusive).
void check_adapters(Scenario& s, DecodeContext& c);

// decode_pools.cpp: structure of pools[] (engine.args are resolved in resolve_pools).
std::vector<Pool> decode_pools(const json& v, const std::string& ptr, DecodeContext& c);
// Resolves every pool's engine.args against its release's rules pack (defaults filled).
void resolve_pools(const json& pools_json, Scenario& s, DecodeContext& c);

// decode_budget.cpp: the largest step `d` can run takes a finite, plausible time.
void check_step_cost(const kernel::Deployment& d, const Pool& pool, const std::string& pool_pointer,
                     DecodeContext& c);
// The pool's KV blocks (GPU and CPU tier) fit the engine and the simulation's memory, and a
// CPU tier is one the simulator models; records the pool's blocks in c.pool_blocks.
void check_blocks(const Pool& pool, const std::string& pool_pointer, const kernel::Deployment& d,
                  const kernel::KvCapacity& k, DecodeContext& c);
// The whole run's work and memory (expected requests, KV blocks, time-series samples, users,
// arrivals per instant) within the documented budget.
void check_budget(const Scenario& s, DecodeContext& c);

// decode_network.cpp: the `network` section, and its placement against the pools.
Network decode_network(const json& v, const std::string& ptr, DecodeContext& c);
void check_network(const Scenario& s, DecodeContext& c);

// decode_checks.cpp: rules that span sections (P/D shape, references, lengths).
void check_cross_references(Scenario& s, DecodeContext& c);

// Arrays a document may hold, at most (docs/reliability.md): a longer one is one error at its
// pointer and is not decoded, so no document makes the decoder produce a diagnostic per
// element of a million-element array.
inline constexpr std::size_t kMaxPools = 1000, kMaxClients = 10000, kMaxSloClasses = 1000,
                             kMaxCatalogEntries = 1000, kMaxStages = 10000, kMaxScorers = 100;
// True (and reported) when `v` is an array of more than `max` elements.
inline bool too_many(const json& v, const std::string& ptr, std::size_t max, const char* what,
                     DecodeContext& c) {
  if (!v.is_array() || v.size() <= max) return false;
  c.diags.push_back({ptr, "holds " + std::to_string(v.size()) + " " + what + ", at most " +
                              std::to_string(max) + " are accepted"});
  return true;
}

// True when `v` is an array the decoder reads element by element: an array, not empty when
// `non_empty`, and not too_many; else false with one error at `ptr` (`[] is empty, expected
// <expected>`, `{} is an object, expected <expected>`, or too_many's).
inline bool decodable_array(const json& v, const std::string& ptr, const std::string& expected,
                            bool non_empty, std::size_t max, const char* what, DecodeContext& c) {
  if (!v.is_array() || (non_empty && v.empty())) {
    c.diags.push_back({ptr, show(v) + " is " +
                                (v.is_array() ? std::string("empty") : describe_type(v)) +
                                ", expected " + expected});
    return false;
  }
  return !too_many(v, ptr, max, what, c);
}

// "an integer >= 1" etc. for messages.
using blis::kInt32Max;

}  // namespace blis::scenario::detail
