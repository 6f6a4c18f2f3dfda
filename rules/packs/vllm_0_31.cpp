// Rules pack for vLLM 0.31.0.

#include "rules/packs/packs.h"
#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

const Pack& vllm_0_31() {
  static const Pack pack = [] {
    Pack p = shared_v029_to_v032();
    p.release = "0.31.0";
    p.accepts = {"0.31.0", "0.31"};
    p.sources =
        "Shared 0.29-0.32 tables (shared_tables.cpp). Release-specific: Fp8Config refuses online "
        "quantization of an unquantized checkpoint and names fp8_per_tensor (pinned at v0.31.0, "
        "vllm/model_executor/layers/quantization/fp8.py, by idx:71251476385 and idx:71506996998).";
    p.fp8_online_refused = true;
    p.rules.push_back(
        {"quantization.fp8_online", "error",
         "quantization=fp8 on an unquantized checkpoint is refused; use fp8_per_tensor",
         "vllm/model_executor/layers/quantization/fp8.py@v0.31.0 Fp8Config"});
    return p;
  }();
  return pack;
}

}  // namespace blis::rules::packs
