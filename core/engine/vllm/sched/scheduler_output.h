#pragma once
// Plain records that cross the scheduler boundary (vllm v1/core/sched/output.py
// SchedulerOutput, v1/outputs.py ModelRunnerOutput, and what update_from_output reports).
// All vectors are reused between steps.

#include <cstdint>
#include <utility>
#include <vector>

#include "engine/engine.h"
#include "engine/vllm/request.h"

namespace blis::vllm {

enum class ScheduledKind : std::uint8_t { kRunning, kNew, kResumed };

// One entry of SchedulerOutput.num_scheduled_tokens (insertion order = scheduling order).
struct ScheduledRequest {
  ReqRef ref;
  engine::RequestKey key = 0;
  ScheduledKind kind = ScheduledKind::kRunning;
  std::int32_t num_tokens = 0;       // tokens computed this step (incl. draft tokens)
  std::int32_t num_spec_tokens = 0;  // scheduled draft tokens (scheduled_spec_decode_tokens)
  std::int32_t spec_begin = 0;       // their ids: SchedulerOutput::spec_token_ids range
  // Worker side, set by the engine at dispatch: how many of the scheduled drafts are real
  // proposals (padding and async placeholders for which the runner holds no draft are not),
  // the most that can be accepted.
  std::int32_t num_valid_drafts = 0;
  std::int32_t num_computed_before = 0;  // num_computed_tokens before the step (pre-advance)
  std::int32_t num_prefill_tokens = 0;   // of num_tokens, prompt or recompute tokens
  bool samples = false;                  // the step samples a token (not a prefill chunk)
  std::int32_t lora_id = 0;              // the request's adapter (the worker activates it)
  // req_to_new_blocks: the new blocks of a running request, or every block of a new or
  // resumed one; a range of SchedulerOutput::block_ids.
  std::int32_t blocks_begin = 0;
  std::int32_t blocks_end = 0;
};

struct SchedulerOutput {
  std::uint64_t step_id = 0;
  std::vector<ScheduledRequest> scheduled;
  std::vector<std::int32_t> block_ids;
  std::vector<std::int32_t> spec_token_ids;   // scheduled draft ids (-1: placeholder / padding)
  std::vector<engine::RequestKey> preempted;  // in preemption order
  std::vector<engine::RequestKey> finished_req_ids;  // finished since the previous schedule
  std::int32_t total_num_scheduled_tokens = 0;
  std::int32_t num_common_prefix_blocks = 0;

  void clear() {
    scheduled.clear();
    block_ids.clear();
    spec_token_ids.clear();
    preempted.clear();
    finished_req_ids.clear();
    total_num_scheduled_tokens = 0;
    num_common_prefix_blocks = 0;
  }
};

// What the model produced: the sampled tokens of scheduled[i] are
// tokens[offsets[i] .. offsets[i + 1]) (empty for a prefill chunk). Reused between steps.
struct ModelRunnerOutput {
  std::vector<std::int32_t> offsets;
  std::vector<std::int32_t> tokens;
  // KVConnectorOutput.invalid_block_ids: blocks the worker's connector failed to load this
  // step (a sync load of a scheduled request); handled by update_from_output.
  std::vector<std::int32_t> invalid_block_ids;
  void clear() {
    offsets.clear();
    offsets.push_back(0);
    tokens.clear();
    invalid_block_ids.clear();
  }
  void add(const std::int32_t* t, std::int32_t n) {
    if (offsets.empty()) offsets.push_back(0);
    tokens.insert(tokens.end(), t, t + n);
    offsets.push_back(static_cast<std::int32_t>(tokens.size()));
  }
  std::int32_t count(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
};

// What update_from_output did with one scheduled entry.
enum class OutputDisposition : std::uint8_t {
  kNoOutput,        // a prefill chunk: nothing sampled
  kDelivered,       // tokens appended to the request
  kStaleDelivered,  // the request was preempted after this batch was scheduled; still delivered
  kStaleDropped,    // stale output of a request reset in drop mode
  kIgnored,         // the request had finished or been aborted meanwhile
};

struct RequestUpdate {
  ReqRef ref;
  engine::RequestKey key = 0;
  OutputDisposition disposition = OutputDisposition::kNoOutput;
  std::int32_t num_sampled = 0;    // tokens the model returned
  std::int32_t num_delivered = 0;  // tokens kept (sampled, trimmed at a stop)
  // Spec decode verification (update_from_output, for SpecDecodingStats.observe_draft): the
  // scheduled drafts and how many were accepted; 0 when nothing was verified.
  std::int32_t num_draft_tokens = 0;
  std::int32_t num_accepted_tokens = 0;
  bool stale = false;        // scheduled before the request's latest preemption
  bool first_token = false;  // the delivered tokens include the first output token
  bool stopped = false;
  RequestStatus status = RequestStatus::kRunning;  // after the update
  std::int32_t num_output_tokens = 0;              // after the update
  std::int32_t num_cached_tokens = -1;
  std::int32_t num_prefill_cached_tokens = -1;  // Request.prefill_cached_tokens
  std::int32_t num_external_computed_tokens = 0;
  std::int32_t num_preemptions = 0;
  std::int32_t stop_reason = -1;  // Request.stop_reason: the stop token hit, or -1
};

// A request finished with FINISHED_ERROR, as its error output reports it.
struct ErroredRequest {
  engine::RequestKey key = 0;
  std::int32_t slot = -1;  // its (released) slot: the metrics' request handle
  std::int32_t num_output_tokens = 0;
  std::int32_t num_cached_tokens = -1;
  std::int32_t num_preemptions = 0;
};

struct UpdateResult {
  std::vector<RequestUpdate> updates;        // one per scheduled entry, same order
  std::vector<engine::RequestKey> finished;  // stopped by this update, in order
  // The kv_transfer_params the connector returned for requests stopped by this update
  // (EngineCoreOutput.kv_transfer_params), in finishing order.
  std::vector<std::pair<engine::RequestKey, engine::KvTransferParams>> kv_transfer_params;
  // Requests finished with FINISHED_ERROR since the previous update (a KV load failure under
  // kv_load_failure_policy "fail"): each gets an output with finish_reason error and no
  // tokens (scheduler.py update_from_output error_reqs), in finishing order.
  std::vector<ErroredRequest> errored;
  void clear() {
    updates.clear();
    finished.clear();
    kv_transfer_params.clear();
    errored.clear();
  }
};

}  // namespace blis::vllm
