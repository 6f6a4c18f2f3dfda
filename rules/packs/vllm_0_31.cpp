// Rules pack for vLLM 0.31.0.

#include "rules/packs/packs.h"
#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

const Pack& vllm_0_31() {
  static const Pack pack = [] {
    Pack p = shared_v029_to_v032();
    keep_partial_prefills(p);
    p.release = "0.31.0";
    p.accepts = {"0.31.0", "0.31"};
    p.sources =
        "The 0.32.0 tables (upstream 8d9b52f7) with what this pack was written with where "
        "upstream changed later: max_num_partial_prefills and max_long_partial_prefills "
        "(removed 2026-07-21), an unchecked long_prefill_token_threshold and max_logprobs "
        "(checked from 2026-06-30), gguf and cpu_awq quantization. Fp8Config refuses online "
        "quantization of an unquantized checkpoint and names fp8_per_tensor (two v0.31.0 "
        "copies of vllm/model_executor/layers/quantization/fp8.py).";
    p.fp8_online = Fp8Online::kRefuse;
    p.rules.push_back(
        {"quantization.fp8_online", "error",
         "quantization=fp8 on an unquantized checkpoint is refused; use fp8_per_tensor",
         "vllm/model_executor/layers/quantization/fp8.py Fp8Config (a v0.31.0 copy)"});
    return p;
  }();
  return pack;
}

}  // namespace blis::rules::packs
