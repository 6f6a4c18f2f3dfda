// Rules pack for vLLM 0.32.0 (the spec's target, commit 5df63a72, which the index does not
// hold; the newest copies it does hold are cited instead).

#include "rules/packs/packs.h"
#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

const Pack& vllm_0_32() {
  static const Pack pack = [] {
    Pack p = shared_v029_to_v032();
    p.release = "0.32.0";
    p.accepts = {"0.32.0", "0.32"};
    p.sources =
        "Shared 0.29-0.32 tables (shared_tables.cpp), read from the newest copies in the index "
        "(cache.py and arg_utils.py@002f10e0, config/vllm.py@000fc94b, scheduler.py@1f8758d5). "
        "The refusal of online `fp8` carries over from v0.31.0 (fp8.py).";
    p.fp8_online_refused = true;
    p.rules.push_back(
        {"quantization.fp8_online", "error",
         "quantization=fp8 on an unquantized checkpoint is refused; use fp8_per_tensor",
         "vllm/model_executor/layers/quantization/fp8.py@v0.31.0 Fp8Config (kept in "
         "0.32.0)"});
    return p;
  }();
  return pack;
}

}  // namespace blis::rules::packs
