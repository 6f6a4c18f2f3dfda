#pragma once
// VllmConfig: the engine arguments the vLLM engine core reads (vllm config/scheduler.py
// SchedulerConfig, config/cache.py CacheConfig, the LoRA and speculative configs), resolved
// to plain values. The scenario's rules pack fills the release's defaults; this struct's
// defaults are vLLM's class defaults (spec §8).

#include <cstdint>
#include <string>
#include <vector>

#include "util/release.h"

namespace blis::vllm {

enum class SchedulingPolicy : std::uint8_t { kFcfs, kPriority };

// How the drafts of speculative decoding are proposed (SpeculativeConfig.method). Proposers
// with a KV cache of their own (EAGLE, MTP, draft model) need lookahead slots
// (scheduler.py num_lookahead_tokens).
enum class SpecMethod : std::uint8_t { kNgram, kEagle, kMtp, kDraftModel, kNgramGpu, kEagle3 };

struct VllmConfig {
  // Identity, for the vllm:* metrics: the release whose families are exposed ("0.29",
  // "0.31", "0.32"; patch numbers allowed) and the served model name (label model_name).
  std::string release{kDefaultVllmRelease};
  std::string served_model_name;
  // CacheConfig.
  std::int32_t block_size = 16;
  std::int32_t num_gpu_blocks = 0;  // including the null block 0
  bool enable_prefix_caching = true;
  // SchedulerConfig, with the class's own defaults (vllm/config/scheduler.py); a pool's
  // engine.args, resolved by the rules pack of its release, replace them (vllm_backend.cpp).
  std::int32_t max_num_seqs = 128;
  std::int32_t max_num_batched_tokens = 2048;
  // -1 = unset (derived: token_budget()); 0 is a budget that schedules nothing, as in vLLM
  // (SchedulerConfig Field(ge=0)).
  std::int32_t max_num_scheduled_tokens = -1;
  std::int32_t max_model_len = 4096;
  bool enable_chunked_prefill = true;
  std::int32_t long_prefill_token_threshold = 0;  // 0 = no cap
  SchedulingPolicy policy = SchedulingPolicy::kFcfs;
  bool async_scheduling = true;  // vLLM's default: AsyncScheduler + batch queue of depth 2
  bool scheduler_reserve_full_isl = true;
  double watermark = 0.0;
  bool use_v2_model_runner = false;
  // ParallelConfig.pipeline_parallel_size: stages a batch crosses (the batch queue's depth).
  std::int32_t pipeline_parallel_size = 1;
  // LoRA: max adapters per step; 0 = LoRA disabled (adapter ids only key the prefix cache).
  std::int32_t max_loras = 0;
  // Speculative decoding.
  std::int32_t num_speculative_tokens = 0;
  SpecMethod speculative_method = SpecMethod::kNgram;
  // KVTransferConfig.kv_load_failure_policy == "recompute" (scheduler.py
  // recompute_kv_load_failures); the KVTransferConfig default is "fail". Read only with a
  // KV connector (only a connector reports invalid blocks).
  bool recompute_kv_load_failures = false;

  // Derived values.
  bool spec_decode() const { return num_speculative_tokens > 0; }
  // vllm config/speculative.py SpeculativeConfig.use_eagle (eagle, eagle3, mtp) and
  // uses_draft_model.
  bool use_eagle() const {
    return spec_decode() &&
           (speculative_method == SpecMethod::kEagle || speculative_method == SpecMethod::kEagle3 ||
            speculative_method == SpecMethod::kMtp);
  }
  bool uses_draft_model() const {
    return spec_decode() && speculative_method == SpecMethod::kDraftModel;
  }
  // SpeculativeConfig.max_num_new_slots_for_drafting: a draft model adds one slot per request
  // (parallel drafting is not modelled).
  std::int32_t max_num_new_slots_for_drafting() const { return uses_draft_model() ? 1 : 0; }
  // The per-step token budget (Scheduler.max_num_scheduled_tokens). vllm config/vllm.py
  // VllmConfig._set_max_num_scheduled_tokens: with spec decode and no explicit value,
  // max_num_batched_tokens - max_num_new_slots_for_drafting x max_num_seqs.
  std::int32_t token_budget() const {
    if (max_num_scheduled_tokens >= 0) return max_num_scheduled_tokens;
    if (spec_decode())
      return max_num_batched_tokens - max_num_new_slots_for_drafting() * max_num_seqs;
    return max_num_batched_tokens;
  }
  // vllm config/vllm.py VllmConfig.max_concurrent_batches: "PP requires PP-size concurrent
  // batches to fill the pipeline"; async scheduling needs 2 (pp + 1 with the V2 model runner;
  // the V1 runner keeps pp under PP).
  std::int32_t max_concurrent_batches() const {
    const std::int32_t pp = pipeline_parallel_size < 1 ? 1 : pipeline_parallel_size;
    if (async_scheduling) {
      if (use_v2_model_runner) return pp + 1;
      if (pp <= 1) return 2;
    }
    return pp;
  }
  // vllm scheduler.py Scheduler.__init__ num_lookahead_tokens: k for eagle/mtp and the draft
  // model, 0 for the n-gram proposers.
  std::int32_t num_lookahead_tokens() const {
    return use_eagle() || uses_draft_model() ? num_speculative_tokens : 0;
  }
};

struct ConfigError {
  std::string field;    // the config key, e.g. "block_size"
  std::string message;  // what was expected
};

// Everything vLLM would reject (or that cannot run) in this config; empty = valid.
std::vector<ConfigError> validate(const VllmConfig& cfg);

const char* to_string(SchedulingPolicy p);
const char* to_string(SpecMethod m);
// The method named `name` ("ngram", "ngram_gpu", "draft_model", "eagle", "eagle3", "mtp");
// false if it is not one of them.
bool spec_method_from_string(const std::string& name, SpecMethod& out);

}  // namespace blis::vllm
