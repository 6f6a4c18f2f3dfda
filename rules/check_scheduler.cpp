// Scheduler, cache and model checks: SchedulerConfig.verify_max_model_len (spec §C.3), the
// attention backends' block sizes, and ModelConfig's max_model_len / tensor-parallel rules.

#include <algorithm>
#include <string>

#include "rules/json_fields.h"
#include "rules/resolve_context.h"

namespace blis::rules::detail {

namespace {

std::string n(std::int64_t v) {
  return std::to_string(v);
}

void check_block_size(Context& c) {
  const BlockSizeRule& rule = c.pack.block_size;
  const std::int32_t bs = c.args.block_size;
  bool ok = true;
  std::string accepted;
  if (!rule.literal.empty()) {
    ok = std::find(rule.literal.begin(), rule.literal.end(), bs) != rule.literal.end();
    std::vector<std::string> vals;
    for (auto v : rule.literal) vals.push_back(std::to_string(v));
    accepted = join(vals);
  } else if (rule.multiple_of > 0) {
    // FlashAttentionBackend / TritonAttentionBackend.supports_block_size: % 16 == 0.
    ok = bs % rule.multiple_of == 0;
    const std::int32_t m = rule.multiple_of;
    accepted = n(m) + ", " + n(2 * m) + ", " + n(3 * m) + ", " + n(4 * m) + ", ...: multiples of " +
               n(m) + ", as the CUDA attention backends FLASH_ATTN and TRITON_ATTN require";
  }
  if (!ok) {
    c.error(c.ptr("block_size"),
            n(bs) + " is not accepted by " + c.vllm() + " (accepted: " + accepted + ")");
  }
}

void check_model(Context& c) {
  const ModelFacts& m = c.facts.model;
  if (!m.known) return;
  // vllm/config/model.py ModelConfig.get_and_verify_max_len: above the derived maximum
  // needs VLLM_ALLOW_LONG_MAX_MODEL_LEN, which BLIS does not model.
  if (c.set.max_model_len && c.args.max_model_len > m.max_model_len) {
    c.error(c.ptr("max_model_len"), n(c.args.max_model_len) +
                                        " is above the model's derived max_model_len (" +
                                        n(m.max_model_len) + "); " + c.vllm() +
                                        " refuses it unless VLLM_ALLOW_LONG_MAX_MODEL_LEN=1, which "
                                        "BLIS Playground does not model");
  }
  // vllm/config/model.py ModelConfig.verify_with_parallel_config.
  if (m.num_attention_heads > 0 && c.facts.tp > 0 && m.num_attention_heads % c.facts.tp != 0) {
    c.error(json_pointer_append(c.facts.pointer, "parallelism") + "/tp",
            n(c.facts.tp) + ": total number of attention heads (" + n(m.num_attention_heads) +
                ") must be divisible by tensor parallel size (" + n(c.facts.tp) + ") [" + c.vllm() +
                " ModelConfig.verify_with_parallel_config]");
  }
}

// vllm/config/scheduler.py SchedulerConfig.verify_max_model_len.
void verify_max_model_len(Context& c) {
  const auto& a = c.args;
  const std::int64_t mml = a.max_model_len;
  if (mml <= 0) return;  // unknown model: reported elsewhere
  const std::string mnbt = c.ptr("max_num_batched_tokens");
  if (a.max_num_batched_tokens < mml && !a.enable_chunked_prefill) {
    c.error(
        mnbt,
        n(a.max_num_batched_tokens) + ": max_num_batched_tokens (" + n(a.max_num_batched_tokens) +
            ") is smaller than max_model_len (" + n(mml) +
            ") with chunked prefill off. This effectively limits the maximum sequence length to "
            "max_num_batched_tokens and makes vLLM reject longer sequences. Please increase "
            "max_num_batched_tokens or decrease max_model_len.");
  }
  if (a.max_num_batched_tokens < a.max_num_seqs) {
    c.error(mnbt, n(a.max_num_batched_tokens) + ": max_num_batched_tokens (" +
                      n(a.max_num_batched_tokens) +
                      ") must be greater than or equal to max_num_seqs (" + n(a.max_num_seqs) +
                      ").");
  }
  if (static_cast<std::int64_t>(a.max_num_batched_tokens) >
      static_cast<std::int64_t>(a.max_num_seqs) * mml) {
    c.warning(mnbt, n(a.max_num_batched_tokens) +
                        ": max_num_batched_tokens exceeds max_num_seqs * max_model_len (" +
                        n(static_cast<std::int64_t>(a.max_num_seqs) * mml) +
                        "). This may lead to unexpected behavior.");
  }
  // The threshold check: unconditional since PR #49244, before it only with concurrent
  // partial prefills (which also needed chunked prefill).
  const bool partial = c.pack.partial_prefills && a.max_num_partial_prefills > 1;
  if (partial && !a.enable_chunked_prefill) {
    c.error(c.ptr("max_num_partial_prefills"),
            n(a.max_num_partial_prefills) +
                ": chunked prefill must be enabled to set max_num_partial_prefills > 1.");
  }
  if ((partial || !c.pack.partial_prefills) && a.long_prefill_token_threshold > mml) {
    c.error(c.ptr("long_prefill_token_threshold"),
            n(a.long_prefill_token_threshold) + ": long_prefill_token_threshold (" +
                n(a.long_prefill_token_threshold) + ") cannot be greater than the max_model_len (" +
                n(mml) + ").");
  }
  if (c.pack.partial_prefills && a.max_long_partial_prefills > a.max_num_partial_prefills) {
    c.error(c.ptr("max_long_partial_prefills"),
            n(a.max_long_partial_prefills) + ": max_long_partial_prefills (" +
                n(a.max_long_partial_prefills) +
                ") must be less than or equal to max_num_partial_prefills (" +
                n(a.max_num_partial_prefills) + ").");
  }
}

}  // namespace

void check_scheduler(Context& c) {
  check_block_size(c);
  check_model(c);
  verify_max_model_len(c);
  // vllm/config/cache.py: "kv_cache_memory_bytes (when not-None) ignores
  // gpu_memory_utilization".
  if (c.args.kv_cache_memory_bytes && c.set.gpu_memory_utilization &&
      c.args.gpu_memory_utilization != c.pack.gpu_memory_utilization_default) {
    c.warning(c.ptr("gpu_memory_utilization"),
              "ignored: kv_cache_memory_bytes is set and sizes the KV cache instead");
  }
}

}  // namespace blis::rules::detail
