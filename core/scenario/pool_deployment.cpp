#include "scenario/pool_deployment.h"

#include <algorithm>

namespace blis::scenario {
namespace {

// vLLM's dtype aliases (vllm/config/model.py _STR_DTYPE_TO_TORCH_DTYPE) in the kernel's names.
std::string kernel_dtype(const std::string& dtype) {
  if (dtype == "half") return "float16";
  if (dtype == "float") return "float32";
  return dtype;
}

}  // namespace

bool apply_engine_args(const Pool& pool, kernel::Deployment* d) {
  const VllmArgs& a = pool.engine.args;
  d->tp = pool.parallelism.tp;
  d->pp = pool.parallelism.pp;
  d->dp = pool.parallelism.dp;
  d->enable_expert_parallel = a.enable_expert_parallel;
  d->kv_cache_dtype = a.kv_cache_dtype;
  d->block_size = a.block_size;
  d->gpu_memory_utilization = a.gpu_memory_utilization;
  d->max_num_batched_tokens = a.max_num_batched_tokens;
  d->max_num_seqs = a.max_num_seqs;
  d->max_model_len = a.max_model_len;
  d->kv_cache_memory_bytes = a.kv_cache_memory_bytes;
  d->num_gpu_blocks_override = a.num_gpu_blocks_override;
  d->enforce_eager = a.enforce_eager;
  d->cudagraph_mode = a.cudagraph_mode;
  d->cudagraph_capture_sizes = a.cudagraph_capture_sizes;
  d->max_cudagraph_capture_size = a.max_cudagraph_capture_size;
  d->num_speculative_tokens =
      a.speculative_config ? a.speculative_config->num_speculative_tokens : 0;
  d->performance_mode = a.performance_mode;
  d->memory_profile = pool.engine.memory_profile;
  d->dtype = kernel_dtype(a.dtype);
  // Quantization as the kernel prices it: "" = as the checkpoint, "fp8" = online FP8.
  const std::string& ckpt = d->model.quantization.method;
  const std::string& q = a.quantization;
  if (q.empty() || q == ckpt || q == ckpt + "_marlin") {
    d->quantization.clear();
  } else if (ckpt.empty() &&
             (q == "fp8_per_tensor" || q == "fp8_per_block" || q == "fp8_per_channel")) {
    d->quantization = "fp8";
  } else {
    return false;
  }
  return true;
}

Diagnostics placement_warnings(const catalog::Catalog& catalog, const Scenario& s) {
  Diagnostics ds;
  const std::int64_t per_node = std::max<std::int32_t>(1, s.network.gpus_per_node);
  const catalog::Fabric* f = s.fabric.empty() ? nullptr : catalog.find_fabric(s.fabric);
  const bool scale_out = f != nullptr && f->scope == "scale-out";
  for (std::size_t i = 0; i < s.pools.size(); ++i) {
    const Parallelism& p = s.pools[i].parallelism;
    const std::int64_t gpus =
        std::int64_t{std::max(1, p.tp)} * std::max(1, p.pp) * std::max(1, p.dp);
    const std::int64_t nodes = (gpus + per_node - 1) / per_node;
    if (nodes <= 1) continue;
    const std::string ptr = "/pools/" + std::to_string(i);
    if (!scale_out && catalog.find_fabric("ib-ndr") != nullptr) {
      ds.push_back({ptr + "/parallelism",
                    "the instance's " + std::to_string(gpus) + " GPUs span " +
                        std::to_string(nodes) + " nodes of " + std::to_string(per_node) +
                        " and the scenario names no scale-out fabric: the hand-offs between "
                        "nodes are priced on ib-ndr (an estimate; set /fabric)",
                    Severity::kWarning});
    }
    if (p.tp > per_node) {
      ds.push_back({ptr + "/parallelism/tp",
                    "tensor parallelism across nodes: its all-reduces are priced on the "
                    "intra-node link (not modelled across nodes)",
                    Severity::kWarning});
    }
  }
  return ds;
}

}  // namespace blis::scenario
