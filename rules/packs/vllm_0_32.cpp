// Rules pack for vLLM 0.32.0: upstream vllm-project/vllm at 8d9b52f7 (2026-08-07), the
// commit the conformance traces were made from. The shared tables are read there.

#include "rules/packs/packs.h"
#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

const Pack& vllm_0_32() {
  static const Pack pack = [] {
    Pack p = shared_v029_to_v032();
    p.release = "0.32.0";
    p.accepts = {"0.32.0", "0.32"};
    p.sources =
        "Upstream vllm-project/vllm at 8d9b52f7 (2026-08-07): vllm/config/{cache,model,"
        "scheduler,lora,speculative,kv_transfer,vllm}.py, vllm/engine/arg_utils.py, "
        "vllm/v1/core/kv_cache_utils.py, vllm/model_executor/layers/quantization/.";
    p.rules.push_back({"quantization.fp8_online", "default",
                       "quantization=fp8 on an unquantized checkpoint quantizes online, per tensor",
                       "vllm/model_executor/layers/quantization/fp8.py Fp8Config.get_quant_method "
                       "(Fp8PerTensorOnlineLinearMethod)"});
    return p;
  }();
  return pack;
}

}  // namespace blis::rules::packs
