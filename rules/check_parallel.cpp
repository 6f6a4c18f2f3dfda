// Parallelism checks: expert parallelism against the model and the parallel sizes
// (vllm/config/model.py ModelConfig.verify_with_parallel_config,
// vllm/model_executor/layers/fused_moe/config.py FusedMoEParallelConfig.make).

#include <string>

#include "rules/resolve_context.h"

namespace blis::rules::detail {

void check_parallel(Context& c) {
  if (!c.args.enable_expert_parallel) return;
  const std::string ptr = c.ptr("enable_expert_parallel");
  // vllm/config/model.py ModelConfig._verify_with_expert_parallelism.
  if (c.facts.model.known && !c.facts.model.is_moe) {
    c.error(ptr, "true on a model without experts: " + c.vllm() +
                     " refuses it (\"Number of experts in the model must be greater than 0 when "
                     "expert parallelism is enabled\") [vllm/config/model.py "
                     "ModelConfig._verify_with_expert_parallelism]");
    return;
  }
  // FusedMoEParallelConfig.make: use_ep = dp x pcp x tp > 1 and enable_expert_parallel.
  if (c.facts.tp * c.facts.dp <= 1) {
    c.warning(ptr, "true with tp = dp = 1 shards nothing: " + c.vllm() +
                       " uses expert parallelism only over more than one rank (use_ep needs dp x "
                       "tp > 1) [vllm/model_executor/layers/fused_moe/config.py "
                       "FusedMoEParallelConfig.make]");
  }
}

}  // namespace blis::rules::detail
