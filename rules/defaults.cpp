// Defaults a release fills in that depend on the model, the GPU and other arguments, in
// the order vLLM applies them (EngineArgs.create_engine_config, then
// SchedulerConfig.__post_init__).

#include <algorithm>
#include <cctype>

#include "rules/resolve_context.h"

namespace blis::rules {
namespace detail {

namespace {}  // namespace

}  // namespace detail

// vllm/engine/arg_utils.py@002f10e0 EngineArgs.get_batch_defaults, OPENAI_API_SERVER
// column. An unknown device is treated as memory 0 (vLLM does so when the device query
// fails), i.e. the last row.
const BatchDefaultsRow& batch_defaults(const Pack& pack, const HardwareFacts& hardware) {
  const double gib = hardware.known ? hardware.memory_gib : 0.0;
  const std::string name = detail::lower(hardware.name);
  for (const auto& row : pack.batch_defaults) {
    if (gib < row.min_memory_gib) continue;
    if (!row.excludes_name.empty() && name.find(row.excludes_name) != std::string::npos) continue;
    return row;
  }
  return pack.batch_defaults.back();
}

namespace detail {

void apply_defaults(Context& c) {
  auto& a = c.args;
  const std::int32_t platform_bs = c.facts.platform_block_size;
  if (!c.set.block_size) {
    a.block_size = platform_bs > 0 ? platform_bs : c.pack.block_size.default_value;
  } else if (platform_bs > 0 && a.block_size % platform_bs != 0) {
    // vllm/platforms/cuda.py CudaPlatform.check_and_update_config: FlashMLA overrides it.
    c.warning(c.ptr("block_size"), std::to_string(a.block_size) +
                                       ": forcing kv cache block size to " +
                                       std::to_string(platform_bs) + " for the FlashMLA backend (" +
                                       c.vllm() + " on this GPU and MLA model)");
    a.block_size = platform_bs;
  }
  if (!c.set.gpu_memory_utilization)
    a.gpu_memory_utilization = c.pack.gpu_memory_utilization_default;
  // vllm/config/model.py _get_and_verify_max_len: unset, -1 or "auto" -> derived maximum
  // (auto-fit shrinks it later, once the KV cache is known).
  if (!c.set.max_model_len && c.facts.model.known) {
    a.max_model_len =
        static_cast<std::int32_t>(std::min<std::int64_t>(c.facts.model.max_model_len, 2147483647));
  }

  // vllm/engine/arg_utils.py@002f10e0 _set_default_chunked_prefill_and_prefix_caching_args:
  // unset -> model_config.is_chunked_prefill_supported / is_prefix_caching_supported, both
  // True for the generative decoder-only models of the catalog.
  if (!c.set.enable_chunked_prefill) a.enable_chunked_prefill = true;
  if (!c.set.enable_prefix_caching) a.enable_prefix_caching = true;

  // _set_default_max_num_seqs_and_batched_tokens_args (8d9b52f7 arg_utils.py:2739).
  const BatchDefaultsRow& row = batch_defaults(c.pack, c.facts.hardware);
  if (!c.set.max_num_batched_tokens) {
    // (1) ParallelConfig.use_batched_dp_moe (parallel.py:698: a DeepEP low-latency or NIXL EP
    // all2all backend, expert parallelism, dp > 1):
    // SchedulerConfig.DEFAULT_MAX_NUM_BATCHED_TOKENS_FOR_BATCHED_DP = 256.
    std::string a2a;
    if (c.raw && c.raw->is_object()) {
      const auto it = c.raw->find("all2all_backend");
      if (it != c.raw->end() && it->is_string()) a2a = it->get<std::string>();
    }
    const bool batched_dp_moe = (a2a == "deepep_low_latency" || a2a == "nixl_ep") &&
                                a.enable_expert_parallel && c.facts.dp > 1;
    a.max_num_batched_tokens = batched_dp_moe ? 256 : row.max_num_batched_tokens;
  }
  if (!c.set.max_num_seqs) a.max_num_seqs = row.max_num_seqs;
  // (2) performance_mode == "throughput" doubles the values the user left unset.
  if (a.performance_mode == "throughput") {
    if (!c.set.max_num_batched_tokens) a.max_num_batched_tokens *= 2;
    if (!c.set.max_num_seqs) a.max_num_seqs *= 2;
  }
  // (3) without chunked prefill an unset budget must hold a whole max_model_len prompt.
  if (!c.set.max_num_batched_tokens && !a.enable_chunked_prefill) {
    a.max_num_batched_tokens = std::max(a.max_model_len, a.max_num_batched_tokens);
  }
  // (4) an unset budget is capped at max_num_seqs * max_model_len (arg_utils.py:2806), and (5)
  // an unset max_num_seqs at the budget (arg_utils.py:2819), so neither default can make
  // verify_max_model_len refuse the other.
  if (!c.set.max_num_batched_tokens && a.max_model_len > 0) {
    a.max_num_batched_tokens = static_cast<std::int32_t>(std::min<std::int64_t>(
        static_cast<std::int64_t>(a.max_num_seqs) * a.max_model_len, a.max_num_batched_tokens));
  }
  if (!c.set.max_num_seqs) a.max_num_seqs = std::min(a.max_num_seqs, a.max_num_batched_tokens);

  // vllm/config/scheduler.py@1f8758d5 SchedulerConfig.__post_init__.
  if (a.max_num_partial_prefills > 1 && a.long_prefill_token_threshold == 0) {
    a.long_prefill_token_threshold = static_cast<std::int32_t>(a.max_model_len * 0.04);
  }
  // A negative threshold (accepted before PR #44070) caps nothing: the engine takes it as 0.
  if (a.long_prefill_token_threshold < 0) a.long_prefill_token_threshold = 0;

  // vllm/config/lora.py LoRAConfig: max_cpu_loras None -> max_loras.
  if (!c.set.max_cpu_loras) a.max_cpu_loras = a.max_loras;
  if (c.set.kv_offloading_size) a.kv_offloading_size_gib = c.set.kv_offloading_size;
  a.kv_offloading_backend = c.set.kv_offloading_backend;
}

}  // namespace detail
}  // namespace blis::rules
