// Bounds on what a valid scenario may ask of the machine that runs it: each kernel cost is a
// finite, plausible time, and each pool's KV blocks fit the engine's block ids and the
// memory of the simulation. The limits are documented in docs/reliability.md.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>

#include "kernel/kv_capacity.h"
#include "kernel/step_pricer.h"
#include "scenario/decode_internal.h"
#include "util/text.h"

namespace blis::scenario::detail {

namespace {

// One engine step longer than an hour is no GPU this simulator models (real steps take
// milliseconds); it also keeps every step time far inside the simulated clock.
constexpr double kMaxStepUs = 3600e6;
// KV blocks one instance holds (GPU or CPU tier): each costs the engine ~100 bytes of
// bookkeeping, allocated up front, and block ids are 32-bit.
constexpr std::int64_t kMaxBlocksPerInstance = std::int64_t{1} << 24;

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The time (µs) of a full prefill step (max_num_batched_tokens prompt tokens after `context`
// cached ones) and of a full decode step (max_num_seqs requests, one token each, at
// `context`). NaN becomes infinity (too slow), so callers compare with kMaxStepUs.
struct StepPair {
  double prefill_us = 0, decode_us = 0;
  std::int32_t prefill_tokens = 0, decode_seqs = 0;
};
StepPair price_steps(const kernel::StepPricer& pricer, const kernel::Deployment& d,
                     std::int64_t context64) {
  const auto context =
      static_cast<std::int32_t>(std::min<std::int64_t>(context64, std::int64_t{1} << 30));
  StepPair out;
  engine::Batch prefill;
  engine::ScheduledRequest r;
  r.num_tokens = std::max(1, d.max_num_batched_tokens);
  r.num_prefill_tokens = r.num_tokens;
  r.context_before = std::max(0, context - r.num_tokens);
  r.samples = true;
  prefill.requests.push_back(r);
  prefill.total_tokens = prefill.prefill_tokens = r.num_tokens;
  prefill.num_sampling = 1;
  out.prefill_tokens = r.num_tokens;
  engine::Batch decode;
  out.decode_seqs = std::max(1, std::min(d.max_num_seqs, 1 << 16));
  r.num_tokens = 1;
  r.num_prefill_tokens = 0;
  r.context_before = std::max(0, context - 1);
  decode.requests.assign(static_cast<std::size_t>(out.decode_seqs), r);
  decode.total_tokens = decode.decode_tokens = decode.num_sampling = out.decode_seqs;
  const auto finite = [](double us) { return std::isnan(us) ? HUGE_VAL : us; };
  out.prefill_us = finite(pricer.price(prefill).sum_us());
  out.decode_us = finite(pricer.price(decode).sum_us());
  return out;
}

}  // namespace

void check_blocks(const Pool& pool, const std::string& pool_pointer, const kernel::Deployment& d,
                  const kernel::KvCapacity& k, DecodeContext& c) {
  const VllmArgs& a = pool.engine.args;
  const std::string args_ptr = pool_pointer + "/engine/args";
  if (a.kv_cache_memory_bytes && *a.kv_cache_memory_bytes > k.total_memory_bytes) {
    // vLLM takes kv_cache_memory_bytes as given (no profiling) and fails allocating it.
    c.diags.push_back({args_ptr + "/kv_cache_memory_bytes",
                       std::to_string(*a.kv_cache_memory_bytes) + " bytes is more than the " +
                           std::to_string(k.total_memory_bytes) + " bytes one " +
                           quote_excerpt(pool.hardware) + " GPU has; vLLM could not allocate it"});
  }
  if (k.num_gpu_blocks < 2) {
    // vllm v1/core/block_pool.py BlockPool: block 0 is the null block, so one block holds
    // nothing (the engine refuses it: engine/vllm/vllm_config.cpp).
    c.diags.push_back({args_ptr + (a.num_gpu_blocks_override ? "/num_gpu_blocks_override"
                                                             : "/gpu_memory_utilization"),
                       std::to_string(k.num_gpu_blocks) +
                           " KV block per instance holds nothing (block 0 is vLLM's null "
                           "block); at least 2 are needed"});
  } else if ((k.num_gpu_blocks - 1) * std::max(1, a.block_size) < a.max_model_len) {
    // vllm v1/core/kv_cache_utils.py check_enough_kv_cache_memory: one request of
    // max_model_len must fit (the engine refuses to start otherwise: vllm_engine.cpp).
    c.diags.push_back(
        {args_ptr + (a.num_gpu_blocks_override ? "/num_gpu_blocks_override" : "/max_model_len"),
         std::to_string(k.num_gpu_blocks - 1) + " usable KV blocks of " +
             std::to_string(a.block_size) +
             " tokens (block 0 is the null block) cannot hold one request of max_model_len (" +
             std::to_string(a.max_model_len) + " tokens); vLLM would not start"});
  }
  if (k.num_gpu_blocks > kMaxBlocksPerInstance) {
    c.diags.push_back(
        {args_ptr + (a.num_gpu_blocks_override ? "/num_gpu_blocks_override" : "/block_size"),
         std::to_string(k.num_gpu_blocks) + " KV blocks per instance, above the " +
             std::to_string(kMaxBlocksPerInstance) +
             " this simulator holds (larger blocks, or fewer, would fit)"});
  }
  std::int64_t cpu_blocks = 0;
  const auto& kt = a.kv_transfer_config;
  if (kt && kt->kv_connector == "OffloadingConnector") {
    if (!a.enable_prefix_caching) {
      c.diags.push_back({args_ptr + "/enable_prefix_caching",
                         "false: CPU offload (OffloadingConnector) is modelled only with prefix "
                         "caching on (it finds blocks by their hashes); set it true"});
    }
    // As the cluster sizes the CPU tier (cluster/vllm_backend.cpp): cpu_bytes_to_use over
    // the instance's GPUs, one offload block = offload_block_size tokens of every GPU's KV.
    const std::int32_t gpu_block = std::max(1, a.block_size);
    const std::int64_t gpus =
        std::int64_t{pool.parallelism.tp} * pool.parallelism.pp;  // per DP rank
    const std::int64_t block_bytes = kernel::kv_bytes_per_token(d) * gpu_block * gpus *
                                     (kt->offload_block_size.value_or(gpu_block) / gpu_block);
    cpu_blocks = block_bytes > 0 ? kt->cpu_bytes_to_use.value_or(0) / block_bytes : 0;
    const std::string where = a.kv_offloading_size_gib
                                  ? args_ptr + "/kv_offloading_size"
                                  : args_ptr + "/kv_transfer_config/kv_connector_extra_config";
    if (cpu_blocks < 1) {
      c.diags.push_back({where, "the CPU tier holds no KV block (one offload block is " +
                                    std::to_string(block_bytes) +
                                    " bytes); give it at least that much memory"});
    } else if (cpu_blocks > kMaxBlocksPerInstance) {
      c.diags.push_back(
          {where, std::to_string(cpu_blocks) + " CPU KV blocks per instance, above the " +
                      std::to_string(kMaxBlocksPerInstance) + " this simulator holds"});
    }
  }
  // Every DP rank is a whole engine with its own KV cache of this size (docs/parallelism.md).
  c.pool_blocks[pool_pointer] =
      (k.num_gpu_blocks + cpu_blocks) * pool.instances * std::max(1, pool.parallelism.dp);
}

void check_step_cost(const kernel::Deployment& d, const Pool& pool, const std::string& pool_pointer,
                     DecodeContext& c) {
  double us = 0;
  try {
    const kernel::StepPricer pricer(d);
    // The largest step it can be asked for: at the end of the longest context.
    const StepPair worst = price_steps(pricer, d, d.effective_max_model_len());
    us = std::max(worst.prefill_us, worst.decode_us);
    if (us <= kMaxStepUs) {
      // Its throughput at its best (no context), for the backlog estimate (decode_work.cpp).
      const StepPair best = price_steps(pricer, d, 1);
      PoolRates& rates = c.pool_rates[pool_pointer];
      rates.prefill_tokens_per_s = pool.instances * best.prefill_tokens / (best.prefill_us / 1e6);
      rates.decode_tokens_per_s = pool.instances * best.decode_seqs / (best.decode_us / 1e6);
    }
  } catch (const std::exception& e) {
    c.diags.push_back({pool_pointer + "/hardware", "the latency kernel cannot price a step of " +
                                                       quote_excerpt(pool.model) + " on " +
                                                       quote_excerpt(pool.hardware) + ": " +
                                                       escape_excerpt(e.what(), 120)});
    return;
  }
  if (us > kMaxStepUs) {
    c.diags.push_back(
        {pool_pointer + "/hardware",
         "one engine step of " + quote_excerpt(pool.model) + " on " + quote_excerpt(pool.hardware) +
             " would take " + (std::isinf(us) ? std::string("forever") : number(us / 1e6) + " s") +
             " (at most " + number(kMaxStepUs / 1e6) +
             " s is modelled; are the GPU's bandwidth and FLOPs in the right units?)"});
  }
}

}  // namespace blis::scenario::detail
