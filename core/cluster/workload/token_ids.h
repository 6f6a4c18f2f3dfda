#pragma once
// Synthesized token ids. The simulator never tokenizes text: a prompt is a sequence of ids
// drawn from a keyed stream, so two requests share ids exactly where they share content (a
// system prompt, a previous turn) and nowhere else. Ids lie in [kFirstTokenId, kVocabEnd), a
// Llama-sized vocabulary that skips the low ids tokenizers reserve for special tokens.

#include <cstdint>
#include <vector>

namespace blis::cluster {

inline constexpr std::int32_t kFirstTokenId = 100;
inline constexpr std::int32_t kVocabEnd = 32000;

// A key of its own for item `index` under `base` (e.g. question 7 of a client's question
// key). Keys of different indices are unrelated; the same (base, index) always gives the same.
std::uint64_t derive_key(std::uint64_t base, std::uint64_t index);

// Appends `n` ids of the sequence that `key` names (the same key always gives the same ids).
void append_token_ids(std::uint64_t key, std::int32_t n, std::vector<std::int32_t>& out);

// An output_token_base for a request whose key is `key`: output ids are base + index
// (engine.h), so a later turn can reproduce them.
std::int32_t output_token_base(std::uint64_t key);

}  // namespace blis::cluster
