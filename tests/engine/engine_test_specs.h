#pragma once
// Small engine configurations and request specs shared by the engine-level tests (the
// VllmEngine contract and the connectors), so each test states only what it varies.

#include <cstdint>
#include <string>

#include "engine/engine.h"
#include "engine/vllm/vllm_config.h"

namespace blis::vllm::enginetest {

// 4-token blocks, 8 sequences and a 64-token budget: a few requests fill it.
inline VllmConfig small_engine_config(std::int32_t num_gpu_blocks, std::int32_t max_model_len,
                                      bool async) {
  VllmConfig c;
  c.block_size = 4;
  c.num_gpu_blocks = num_gpu_blocks;
  c.max_num_seqs = 8;
  c.max_num_batched_tokens = 64;
  c.max_model_len = max_model_len;
  c.async_scheduling = async;
  return c;
}

// A prompt of `len` consecutive token ids from `first_token` (requests that share a first token
// share a prefix); outputs count up from `output_base`; `eos` > 0 stops at that output.
inline engine::RequestSpec prompt_spec(engine::RequestKey key, std::int32_t len,
                                       std::int32_t first_token, std::int32_t max_tokens,
                                       std::int32_t output_base = 50000, std::int32_t eos = 0) {
  engine::RequestSpec s;
  s.key = key;
  s.id = "req-" + std::to_string(key);
  for (std::int32_t i = 0; i < len; ++i) s.prompt_token_ids.push_back(first_token + i);
  s.max_tokens = max_tokens;
  s.eos_at_output = eos;
  s.output_token_base = output_base;
  return s;
}

}  // namespace blis::vllm::enginetest
