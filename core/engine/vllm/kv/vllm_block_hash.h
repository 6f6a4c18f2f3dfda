#pragma once
// vLLM's own block hash, byte for byte, for the one place its value (not only its equality,
// see block_hash.h) shows in a trace: the iteration order of a Python set of offload keys
// (util/python_set_order.h). v1/core/kv_cache_utils.py hash_block_tokens with the default
// prefix_caching_hash_algo "sha256" (utils/hashing.py sha256: SHA-256 of
// pickle.dumps((parent, tuple(tokens), extra_keys), protocol 5)); the first parent is
// NONE_HASH, which init_none_hash makes sha256(os.environ["PYTHONHASHSEED"]) ("0" for the
// traces). Blocks without extra keys (no LoRA, no cache salt) only.

#include <array>
#include <cstdint>
#include <span>

namespace blis::vllm {

using VllmHash = std::array<std::uint8_t, 32>;

// SHA-256 (FIPS 180-4) of `data`.
VllmHash sha256(std::span<const std::uint8_t> data);

// NONE_HASH with PYTHONHASHSEED=0: sha256(pickle.dumps("0", protocol=5)).
const VllmHash& vllm_none_hash();

// hash_block_tokens(sha256, parent, tokens, None); parent null = the first block.
VllmHash vllm_hash_block_tokens(const VllmHash* parent, std::span<const std::int32_t> tokens);

// hash() of the offload key make_offload_key(block_hash, group) = block_hash + group as 4
// big-endian bytes (v1/kv_offload/base.py), as CPython 3.11 with PYTHONHASHSEED=0 gives it.
std::int64_t offload_key_py_hash(const VllmHash& block_hash, std::uint32_t group);

}  // namespace blis::vllm
