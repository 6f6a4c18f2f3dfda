// Rules pack for vLLM 0.29.x.

#include "rules/packs/packs.h"
#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

const Pack& vllm_0_29() {
  static const Pack pack = [] {
    Pack p = shared_v029_to_v032();
    keep_partial_prefills(p);
    p.release = "0.29.x";
    p.accepts = {"0.29.x", "0.29"};  // plus any "0.29.<n>" (registry.cpp)
    p.sources =
        "The 0.32.0 tables (upstream 8d9b52f7) with what this pack was written with where "
        "upstream changed later: max_num_partial_prefills and max_long_partial_prefills "
        "(removed 2026-07-21), an unchecked long_prefill_token_threshold and max_logprobs "
        "(checked from 2026-06-30), gguf and cpu_awq quantization. `--quantization fp8` on an "
        "unquantized checkpoint is a deprecated alias of fp8_per_tensor that logs a warning "
        "(a v0.30.0 copy of vllm/model_executor/model_loader/weight_utils.py; taken to hold "
        "for 0.29.x, which predates the v0.31.0 refusal).";
    // weight_utils.py (v0.30.0): "--quantization fp8 is deprecated for online quantization;
    // use --quantization fp8_per_tensor instead."
    p.fp8_online = Fp8Online::kWarnAlias;
    p.rules.push_back({"quantization.fp8_online", "warning",
                       "quantization=fp8 on an unquantized checkpoint is a deprecated alias of "
                       "fp8_per_tensor",
                       "vllm/model_executor/model_loader/weight_utils.py (a v0.30.0 copy)"});
    return p;
  }();
  return pack;
}

}  // namespace blis::rules::packs
