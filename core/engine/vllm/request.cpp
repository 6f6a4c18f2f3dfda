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

void update_block_hashes(Request& r, std::int32_t block_size) {
  const std::int32_t full = r.num_tokens() / block_size;
  for (std::int32_t i = static_cast<std::int32_t>(r.block_hashes.size()); i < full; ++i) {
    const BlockHash* parent = i == 0 ? nullptr : &r.block_hashes[static_cast<std::size_t>(i - 1)];
    r.block_hashes.push_back(
        hash_block_tokens(parent, r.all_token_ids.data() + static_cast<std::size_t>(i) * block_size,
                          block_size, r.extra_keys_for_block(i)));
  }
}

}  // namespace blis::vllm
