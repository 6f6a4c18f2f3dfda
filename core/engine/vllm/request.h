#pragma once
// Request: one request inside the engine core (vllm v1/request.py Request), with the fields
// the scheduler and the KV-cache manager read and write (spec §1.1), and RequestStatus with
// vLLM's order (every status after PREEMPTED counts as finished).

#include <cstdint>
#include <string>
#include <vector>

#include "engine/engine.h"
#include "engine/vllm/finish_reason.h"
#include "engine/vllm/kv/block_hash.h"

namespace blis::vllm {

// vllm v1/request.py RequestStatus (enum order matters: is_finished is "> PREEMPTED").
enum class RequestStatus : std::uint8_t {
  kWaiting,
  kWaitingForFsm,
  kWaitingForRemoteKvs,
  kWaitingForStreamingReq,
  kRunning,
  kPreempted,
  kFinishedStopped,
  kFinishedLengthCapped,
  kFinishedAborted,
  kFinishedIgnored,
  kFinishedError,
  kFinishedRepetition,
};

inline bool is_finished(RequestStatus s) {
  return s > RequestStatus::kPreempted;
}
// vllm v1/request.py _FINISHED_REASON_MAP.
// vllm/v1/request.py _FINISHED_REASON_MAP (FINISHED_IGNORED counts as length; kNone while
// the request is not finished).
FinishReason finish_reason(RequestStatus s);
// The engine API's reason (which has no repetition: it counts as a stop).
engine::FinishReason finish_reason_of(RequestStatus s);
const char* finish_reason_name(RequestStatus s);  // "stop", "length", "abort", ...

// A request slot handle: index into the scheduler's request table plus the slot's
// generation, so an in-flight batch can tell that its request was freed (and the slot reused).
struct ReqRef {
  std::int32_t index = -1;
  std::uint32_t gen = 0;
};

// Field order: what a decode step reads and writes (scheduling, output update, stop check)
// is the record's first 64-byte line, so one request step misses once on it (perf: per-step
// cost is mostly cache misses on these records); the token list, the value stops, the drafts
// and the hashes (read at admission, at a block boundary, by real-id or spec-decode engines)
// and identity and parameters come after. The 64-byte alignment keeps line 0 one line.
struct alignas(64) Request {
  // ---- line 0: read or written every step (61 bytes) ----
  engine::RequestKey key = 0;  // the caller's handle
  std::int32_t slot = -1;      // index in the scheduler's table
  std::uint32_t gen = 0;       // slot generation
  std::int32_t num_prompt_tokens = 0;
  std::int32_t num_computed_tokens = 0;
  std::int32_t num_output_placeholders = 0;  // async: outputs scheduled, not yet received
  std::int32_t num_in_flight_tokens = 0;     // tokens of batches not yet applied
  std::int32_t num_stale_output_tokens = 0;  // in-flight tokens scheduled before a preemption
  // len(_all_token_ids): the stored tokens (all_token_ids) and, after them, the outputs held
  // as a recipe (num_recipe_outputs()). Written only by set_token_ids, append_output_token and
  // the scheduler's slot reset.
  std::int32_t num_all_tokens = 0;
  // Sampling parameters (check_stop inputs).
  std::int32_t max_tokens = 16;
  std::int32_t min_tokens = 0;
  // The output count at which the EOS token is sampled (1-based); 0 = never (ignore_eos).
  // The simulator's synthetic token ids carry no EOS value, so its EOS is positional.
  std::int32_t eos_at_output = 0;
  // Synthetic output token ids are output_token_base + output index (engine.h RequestSpec).
  std::int32_t output_token_base = 0;
  RequestStatus status = RequestStatus::kWaiting;
  bool drop_stale_output = false;
  bool is_prefill_chunk = false;
  // eos_token_id >= 0 or stop_token_ids not empty: check_stop compares the token's value.
  bool has_value_stops = false;
  // spec_token_ids is not empty (kept by set_spec_tokens / clear_spec_tokens).
  bool has_spec_tokens = false;

  // ---- line 1 on: read at a block boundary, by value stops or with drafts ----
  // The stored tokens: the prompt and the outputs held as values. Outputs past them are not
  // stored: output k's id is output_token_base + k (the engine's synthetic ids), so a decode
  // step stores no token (perf: the token tail was one more cache line per request step). A
  // sampled id off the recipe (real-id engines, the conformance driver) materializes them
  // first (append_output_token), so the sequence is the same.
  std::vector<std::int32_t> all_token_ids;
  // SamplingParams.eos_token_id and stop_token_ids, matched against the sampled token's value
  // (engines that are fed real token ids, e.g. the conformance driver); -1 = none.
  std::int32_t eos_token_id = -1;
  std::vector<std::int32_t> stop_token_ids;
  // Request.spec_token_ids: the drafts proposed for the next step (update_draft_token_ids),
  // or the async scheduler's -1 placeholders. Only their number decides scheduling.
  std::vector<std::int32_t> spec_token_ids;
  // One chained hash per full block of all_token_ids (kept only with prefix caching on).
  std::vector<BlockHash> block_hashes;
  std::int32_t stop_reason = -1;        // Request.stop_reason: the stop token hit, or -1
  std::int32_t num_cached_tokens = -1;  // prefix hit at first admission
  // PrefillStats.num_cached_tokens: local + external tokens of the first admission's lookup
  // (before any preemption); -1 until then. Differs from num_cached_tokens when a connector
  // loaded the whole prompt (the last token is recomputed).
  std::int32_t prefill_cached_tokens = -1;
  // Tokens a KV connector supplied at admission (Request.num_external_computed_tokens).
  std::int32_t num_external_computed_tokens = 0;
  std::int32_t num_preemptions = 0;
  std::int32_t lora_id = 0;  // 0 = no adapter

  // ---- cold: admission, hashing, priority ties, finish ----
  std::string request_id;     // vLLM request_id (priority tie-break)
  std::int32_t priority = 0;  // lower = more important
  double arrival_time = 0;    // seconds; breaks priority ties
  bool has_cache_salt = false;
  std::uint64_t cache_salt = 0;
  bool skip_reading_prefix_cache = false;
  // kv_transfer_params (NIXL P/D); a connector may clear do_remote_prefill once it acted.
  bool has_kv_transfer = false;
  engine::KvTransferParams kv_transfer;

  std::int32_t num_tokens() const { return num_all_tokens; }
  std::int32_t num_recipe_outputs() const {
    return num_all_tokens - static_cast<std::int32_t>(all_token_ids.size());
  }
  // Token i of the sequence, stored or by the recipe.
  std::int32_t token_at(std::int32_t i) const {
    const auto stored = static_cast<std::int32_t>(all_token_ids.size());
    return i < stored ? all_token_ids[static_cast<std::size_t>(i)]
                      : output_token_base + (i - num_prompt_tokens);
  }
  std::int32_t last_token() const { return token_at(num_tokens() - 1); }
  std::int32_t num_output_tokens() const { return num_tokens() - num_prompt_tokens; }
  std::int32_t num_spec_tokens() const {
    return has_spec_tokens ? static_cast<std::int32_t>(spec_token_ids.size()) : 0;
  }
  void clear_spec_tokens() {
    if (has_spec_tokens) spec_token_ids.clear();
    has_spec_tokens = false;
  }
  void set_spec_tokens(const std::int32_t* begin, const std::int32_t* end) {
    spec_token_ids.assign(begin, end);
    has_spec_tokens = begin != end;
  }
  void set_spec_tokens(std::int32_t n, std::int32_t value) {
    spec_token_ids.assign(static_cast<std::size_t>(n), value);
    has_spec_tokens = n > 0;
  }
  std::int32_t num_tokens_with_spec() const { return num_tokens() + num_spec_tokens(); }
  ReqRef ref() const { return ReqRef{slot, gen}; }
  BlockExtraKeys extra_keys_for_block(std::int32_t block_index) const;
};

// Sets the stored tokens (the prompt, or a test's sequence); no recipe outputs follow.
void set_token_ids(Request& r, std::vector<std::int32_t> tokens);
// Appends one sampled output token: by the recipe when it is output_token_base + its output
// index, else stored (after the recipe's outputs, materialized).
void append_output_token(Request& r, std::int32_t token);
// Stores the recipe's outputs as values (num_recipe_outputs() becomes 0).
void materialize_outputs(Request& r);

// Extends request.block_hashes to cover every full block of all_token_ids (vllm
// kv_cache_utils.py get_request_block_hasher, run at creation and after each append).
void update_block_hashes(Request& r, std::int32_t block_size);

}  // namespace blis::vllm
