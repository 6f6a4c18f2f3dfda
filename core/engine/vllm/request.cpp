#include "engine/vllm/request.h"

namespace blis::vllm {

FinishReason finish_reason(RequestStatus s) {
  switch (s) {
    case RequestStatus::kFinishedStopped:
      return FinishReason::kStop;
    case RequestStatus::kFinishedLengthCapped:
    case RequestStatus::kFinishedIgnored:
      return FinishReason::kLength;
    case RequestStatus::kFinishedAborted:
      return FinishReason::kAbort;
    case RequestStatus::kFinishedError:
      return FinishReason::kError;
    case RequestStatus::kFinishedRepetition:
      return FinishReason::kRepetition;
    default:
      return FinishReason::kNone;
  }
}

engine::FinishReason finish_reason_of(RequestStatus s) {
  return to_engine_reason(finish_reason(s));
}

const char* finish_reason_name(RequestStatus s) {
  return finish_reason_string(finish_reason(s));
}

BlockExtraKeys Request::extra_keys_for_block(std::int32_t block_index) const {
  // vllm kv_cache_utils.py generate_block_hash_extra_keys: LoRA on every block, the cache
  // salt only on the block that starts at token 0.
  BlockExtraKeys k;
  k.lora_id = lora_id;
  if (block_index == 0 && has_cache_salt) {
    k.has_cache_salt = true;
    k.cache_salt = cache_salt;
  }
  return k;
}

void set_token_ids(Request& r, std::vector<std::int32_t> tokens) {
  r.all_token_ids = std::move(tokens);
  r.num_all_tokens = static_cast<std::int32_t>(r.all_token_ids.size());
}

void append_output_token(Request& r, std::int32_t token) {
  if (token != r.output_token_base + r.num_output_tokens()) {
    materialize_outputs(r);
    r.all_token_ids.push_back(token);
  }
  ++r.num_all_tokens;
}

void materialize_outputs(Request& r) {
  const std::int32_t end = r.num_tokens();
  for (std::int32_t i = static_cast<std::int32_t>(r.all_token_ids.size()); i < end; ++i)
    r.all_token_ids.push_back(r.output_token_base + (i - r.num_prompt_tokens));
}

void update_block_hashes(Request& r, std::int32_t block_size) {
  const std::int32_t full = r.num_tokens() / block_size;
  const auto stored = static_cast<std::int64_t>(r.all_token_ids.size());
  std::vector<std::int32_t> spill;  // a block reaching into the recipe (allocated if large)
  std::int32_t local[64];
  for (std::int32_t i = static_cast<std::int32_t>(r.block_hashes.size()); i < full; ++i) {
    const BlockHash* parent = i == 0 ? nullptr : &r.block_hashes[static_cast<std::size_t>(i - 1)];
    const std::int64_t begin = static_cast<std::int64_t>(i) * block_size;
    const std::int32_t* tokens = r.all_token_ids.data() + begin;
    if (begin + block_size > stored) {
      // The block's tokens, the recipe's regenerated: the same values the stored path hashes.
      std::int32_t* buf = local;
      if (block_size > 64) {
        spill.resize(static_cast<std::size_t>(block_size));
        buf = spill.data();
      }
      for (std::int32_t k = 0; k < block_size; ++k)
        buf[k] = r.token_at(static_cast<std::int32_t>(begin) + k);
      tokens = buf;
    }
    r.block_hashes.push_back(
        hash_block_tokens(parent, tokens, block_size, r.extra_keys_for_block(i)));
  }
}

}  // namespace blis::vllm
