#include "scenario/pool_deployment.h"

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

Diagnostics data_parallel_checks(const Pool& pool, const catalog::Model& model,
                                 const std::string& ptr) {
  Diagnostics ds;
  const std::string at = ptr + "/parallelism/dp";
  if (model.moe.num_experts <= 0) {
    // vllm/v1/engine/core.py run_engine_core: "Non-MoE DP ranks are completely independent,
    // so treat like DP=1".
    ds.push_back({at,
                  "dp > 1 on a dense model: vLLM runs its DP ranks as independent "
                  "engines (v1/engine/core.py run_engine_core), which BLIS Playground "
                  "models as separate instances: set instances to instances x dp and dp "
                  "to 1"});
  } else if (pool.role != "unified") {
    ds.push_back(
        {at, "data parallelism is modelled for unified pools only (role '" + pool.role + "')"});
  } else if (pool.engine.args.kv_transfer_config) {
    ds.push_back({at, "data parallelism is not modelled with a KV connector (" +
                          pool.engine.args.kv_transfer_config->kv_connector + ")"});
  }
  return ds;
}

}  // namespace blis::scenario
