#include "engine/vllm/vllm_config.h"

#include <initializer_list>
#include <string>
#include <string_view>

namespace blis::vllm {
namespace {

std::string num(std::int64_t v) {
  return std::to_string(v);
}

// Joins message parts by appending ("literal" + std::string trips a GCC 12 -Wrestrict false
// positive).
std::string cat(std::initializer_list<std::string_view> parts) {
  std::string s;
  for (const std::string_view p : parts) s.append(p);
  return s;
}

}  // namespace

std::vector<ConfigError> validate(const VllmConfig& c) {
  std::vector<ConfigError> errs;
  auto need_positive = [&](const char* field, std::int64_t v) {
    if (v < 1) errs.push_back({field, cat({"must be >= 1, got ", num(v)})});
  };
  need_positive("block_size", c.block_size);
  // Block 0 is the null block, so at least one more is needed to hold anything.
  if (c.num_gpu_blocks < 2) {
    errs.push_back({"num_gpu_blocks", cat({"must be >= 2 (block 0 is the null block), got ",
                                           num(c.num_gpu_blocks)})});
  }
  need_positive("max_num_seqs", c.max_num_seqs);
  need_positive("max_num_batched_tokens", c.max_num_batched_tokens);
  need_positive("max_model_len", c.max_model_len);
  if (c.max_num_scheduled_tokens < -1) {
    errs.push_back({"max_num_scheduled_tokens", cat({"must be >= 0 when set (-1 = unset), got ",
                                                     num(c.max_num_scheduled_tokens)})});
  }
  if (c.long_prefill_token_threshold < 0) {
    errs.push_back({"long_prefill_token_threshold",
                    cat({"must be >= 0, got ", num(c.long_prefill_token_threshold)})});
  }
  if (!(c.watermark >= 0.0 && c.watermark < 1.0)) {
    errs.push_back({"watermark", "must be in [0, 1)"});
  }
  if (c.max_loras < 0) errs.push_back({"max_loras", cat({"must be >= 0, got ", num(c.max_loras)})});
  if (c.num_speculative_tokens < 0) {
    errs.push_back(
        {"num_speculative_tokens", cat({"must be >= 0, got ", num(c.num_speculative_tokens)})});
  }
  // vllm config/vllm.py VllmConfig._set_max_num_scheduled_tokens: the derived budget must
  // leave room for tokens.
  if (c.spec_decode() && c.max_num_batched_tokens >= 1 && c.token_budget() <= 0) {
    errs.push_back(
        {"max_num_batched_tokens", cat({"(", num(c.max_num_batched_tokens),
                                        ") leaves no token budget once the draft model's slots (",
                                        num(c.max_num_new_slots_for_drafting()), " x max_num_seqs ",
                                        num(c.max_num_seqs), ") are reserved"})});
  }
  // vllm config/scheduler.py SchedulerConfig.verify_max_model_len: without chunked prefill a
  // whole prompt must fit in one step.
  if (!c.enable_chunked_prefill && c.max_num_batched_tokens < c.max_model_len &&
      c.max_num_batched_tokens >= 1 && c.max_model_len >= 1) {
    errs.push_back(
        {"max_num_batched_tokens",
         cat({"(", num(c.max_num_batched_tokens), ") is smaller than max_model_len (",
              num(c.max_model_len),
              "): without chunked prefill the longest sequence could never be scheduled"})});
  }
  if (c.max_num_batched_tokens >= 1 && c.max_num_seqs > c.max_num_batched_tokens) {
    errs.push_back(
        {"max_num_batched_tokens", cat({"(", num(c.max_num_batched_tokens),
                                        ") must be >= max_num_seqs (", num(c.max_num_seqs), ")"})});
  }
  return errs;
}

const char* to_string(SchedulingPolicy p) {
  return p == SchedulingPolicy::kPriority ? "priority" : "fcfs";
}

const char* to_string(SpecMethod m) {
  switch (m) {
    case SpecMethod::kNgram:
      return "ngram";
    case SpecMethod::kEagle:
      return "eagle";
    case SpecMethod::kMtp:
      return "mtp";
    case SpecMethod::kDraftModel:
      return "draft_model";
    case SpecMethod::kNgramGpu:
      return "ngram_gpu";
    case SpecMethod::kEagle3:
      return "eagle3";
  }
  return "ngram";
}

bool spec_method_from_string(const std::string& name, SpecMethod& out) {
  for (const SpecMethod m : {SpecMethod::kNgram, SpecMethod::kNgramGpu, SpecMethod::kDraftModel,
                             SpecMethod::kEagle, SpecMethod::kEagle3, SpecMethod::kMtp}) {
    if (name == to_string(m)) {
      out = m;
      return true;
    }
  }
  return false;
}

}  // namespace blis::vllm
