#pragma once
// The catalog as the decoder sees it: inline entries, catalog ids (with the closest ids when
// one is unknown), the GPU/model facts the rules packs need, and the fit checks through the
// kernel (weights in memory, room in KV for one max_model_len sequence).

#include <string>

#include "rules/rules.h"
#include "scenario/decode_internal.h"

namespace blis::scenario::detail {

std::string example_gpu_ids();
std::string example_model_ids();

// Adds the document's inline entries to a copy of the built-in catalog (c.catalog then
// points at it).
void add_inline_entries(const InlineCatalog& inline_entries, DecodeContext& c);

// Checks /fabric against the catalog.
void check_fabric(const Scenario& s, DecodeContext& c);

// Checks the pool's hardware and model ids and returns what the rules need to know about
// them (facts marked unknown when an id is not in the catalog).
rules::DeploymentFacts deployment_facts(const Pool& pool, const std::string& pool_pointer,
                                        DecodeContext& c);

// After the pool's engine.args resolved without error: what the kernel cannot model, and
// whether vLLM would start (weights fit the GPU at this tp/pp; the KV cache, or
// num_gpu_blocks_override blocks of it, holds one max_model_len sequence). With
// `auto_fit` (max_model_len -1 / "auto") the pool's max_model_len is first fitted to the
// KV cache as vLLM does.
void check_fit(Pool& pool, const std::string& pool_pointer, const rules::DeploymentFacts& facts,
               bool auto_fit, DecodeContext& c);

}  // namespace blis::scenario::detail
