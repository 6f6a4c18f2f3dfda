// Rules pack for vLLM 0.29.x.

#include "rules/packs/packs.h"
#include "rules/packs/shared_tables.h"

namespace blis::rules::packs {

const Pack& vllm_0_29() {
  static const Pack pack = [] {
    Pack p = shared_v029_to_v032();
    p.release = "0.29.x";
    p.accepts = {"0.29.x", "0.29"};  // plus any "0.29.<n>" (registry.cpp)
    p.sources =
        "Shared 0.29-0.32 tables (shared_tables.cpp). Release-specific: `--quantization fp8` on "
        "an unquantized checkpoint is a deprecated alias of fp8_per_tensor that logs a warning "
        "(pinned at v0.30.0 by idx:70161627715, vllm/model_executor/model_loader/"
        "weight_utils.py; taken to hold for 0.29.x, which predates the v0.31.0 refusal).";
    // weight_utils.py (v0.30.0): "--quantization fp8 is deprecated for online quantization;
    // use --quantization fp8_per_tensor instead."
    p.fp8_online_refused = false;
    p.rules.push_back(
        {"quantization.fp8_online", "warning",
         "quantization=fp8 on an unquantized checkpoint is a deprecated alias of "
         "fp8_per_tensor",
         "vllm/model_executor/model_loader/weight_utils.py (v0.30.0, idx:70161627715)"});
    return p;
  }();
  return pack;
}

}  // namespace blis::rules::packs
