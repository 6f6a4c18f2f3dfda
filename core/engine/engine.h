#pragma once
// The engine-neutral contract between the cluster and an engine model (ARCHITECTURE §4).
//
// The cluster owns time: it asks the engine what the next forward pass runs (schedule),
// asks the latency kernel what that costs, and tells the engine when the pass finished
// (complete), as vLLM's EngineCore does with its executor. Every call carries `now`; nothing
// here reads a clock. Data crosses the boundary as plain records (like vLLM's
// SchedulerOutput), never as engine objects.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/kv_events.h"
#include "util/sim_time.h"

namespace blis::engine {

// The cluster's handle for a request; the engine echoes it back in every record.
using RequestKey = std::uint64_t;

// Why a request finished (vLLM's FinishReason).
enum class FinishReason : std::uint8_t { kNone, kStop, kLength, kAbort, kError };
const char* to_string(FinishReason r);

// KV-transfer parameters of a request (disaggregated prefill/decode, CPU offload), after vLLM's
// kv_transfer_params for the KV connectors (NIXL P/D; OffloadingConnector reads
// max_offload_tokens).
struct KvTransferParams {
  bool do_remote_decode = false;   // this (prefill) instance hands the KV to a decoder
  bool do_remote_prefill = false;  // this (decode) instance pulls the KV from a prefiller
  std::int32_t remote_instance = -1;
  std::int32_t remote_num_tokens = 0;  // tokens whose KV the remote side holds
  // The rest of the dict the prefiller returns (nixl/pull_scheduler.py request_finished):
  // the remote blocks (one KV group) and the endpoint. A decoder pulls only when the block
  // list is non-empty and every endpoint field is present (update_state_after_alloc).
  std::vector<std::int32_t> remote_block_ids{};
  std::optional<std::string> remote_engine_id{};
  std::optional<std::string> remote_request_id{};
  std::optional<std::string> remote_host{};
  std::optional<std::int32_t> remote_port{};
  std::optional<std::int32_t> tp_size{};
  // OffloadingConnector (offloading/scheduler.py RequestOffloadState.max_offload_tokens): at
  // most this many tokens of the request are offloaded. Set only for a non-negative int; the
  // input layer warns about and drops any other value, as vLLM does.
  std::optional<std::int64_t> max_offload_tokens{};
  bool has_remote_endpoint() const {
    return remote_engine_id && remote_request_id && remote_host && remote_port;
  }
};

struct RequestSpec {
  RequestKey key = 0;
  std::string id;  // vLLM request_id (also the priority tie-break)
  std::vector<std::int32_t> prompt_token_ids;
  std::int32_t max_tokens = 16;  // sampling_params.max_tokens
  // The workload decides the output length: the token at this output index (1-based count)
  // is an end-of-sequence token, so the request stops there (FinishReason::kStop) unless
  // max_tokens or max_model_len comes first. 0 = never (ignore_eos).
  std::int32_t eos_at_output = 0;
  // Output token ids are synthesized as output_token_base + output index, so a later turn of
  // the same session can put the same ids in its prompt (and hit the prefix cache).
  std::int32_t output_token_base = 0;
  std::int32_t priority = 0;  // lower = more important (priority policy)
  std::int32_t lora_id = 0;   // 0 = no LoRA adapter
  SimTime arrival = 0;
  std::optional<KvTransferParams> kv_transfer;
  // vllm v1/engine EngineCoreRequest.data_parallel_rank (the X-data-parallel-rank header):
  // the DP rank that serves it; -1 = the internal DP load balancer picks (cluster/dp_ranks.h).
  std::int32_t data_parallel_rank = -1;
};

// One request's share of a forward pass.
struct ScheduledRequest {
  RequestKey key = 0;
  std::int32_t num_tokens = 0;  // tokens computed in this pass (prefill chunk, 1 decode,
                                // or 1 + spec tokens)
  // Of which are prompt/recompute (prefill) tokens. A request's first pass in an engine has
  // at least one (an engine recomputes the prompt's last token even on a full cache hit), and
  // the cluster relies on that to find first schedulings.
  std::int32_t num_prefill_tokens = 0;
  std::int32_t context_before = 0;   // tokens already in the KV cache before this pass
  std::int32_t num_spec_tokens = 0;  // draft tokens verified in this pass
  bool samples = false;              // the pass samples a token for this request
  std::int32_t lora_id = 0;  // the request's LoRA adapter (0 = none); last: positional inits
  // The data-parallel rank whose pass this entry belongs to (cluster/dp_engine.h); 0 when
  // the instance has one rank.
  std::int32_t dp_rank = 0;
};

// What the next forward pass runs (vLLM's SchedulerOutput, reduced to what pricing and
// bookkeeping need). The request vector is reused between calls: no per-step allocation.
struct Batch {
  std::uint64_t id = 0;
  std::vector<ScheduledRequest> requests;  // scheduling order: running first
  std::int32_t total_tokens = 0;
  std::int32_t prefill_tokens = 0;
  std::int32_t decode_tokens = 0;  // tokens of requests past their prompt (incl. spec)
  std::int32_t num_sampling = 0;   // requests that sample a token (LM head rows)
  std::int32_t num_preempted = 0;  // requests preempted while building this batch
};

// What the executor reports back for a pass. Spec-decode acceptance is supplied by the
// caller: accepted_drafts[i] is the number of accepted draft tokens of batch.requests[i]
// (empty = all accepted / no spec decode).
struct StepOutcome {
  std::vector<std::int32_t> accepted_drafts;
};

// What happened to one request when a pass completed.
struct RequestProgress {
  RequestKey key = 0;
  std::int32_t new_tokens = 0;  // output tokens delivered by this pass
  bool first_token = false;     // they include the request's first output token
  FinishReason finish = FinishReason::kNone;
  std::int32_t num_output_tokens = 0;  // total so far
  std::int32_t num_cached_tokens = 0;  // prefix-cache hit at first admission (-1 unknown)
  std::int32_t num_preemptions = 0;
  // The kv_transfer_params the connector returned when the request finished (NIXL prefill
  // side: where the decoder reads the blocks), carried on its finishing output; null when
  // none. Held by pointer so a progress record stays small: one is built per request per
  // step, and an inline optional made each ~250 bytes to zero (perf).
  std::shared_ptr<const KvTransferParams> kv_transfer_params;
};

// What a KV transfer moves (the connector that asked for it).
enum class TransferKind : std::uint8_t {
  kRemotePull,    // NIXL: the decode instance reads a prefill instance's blocks
  kOffloadLoad,   // OffloadingConnector: CPU -> GPU
  kOffloadStore,  // OffloadingConnector: GPU -> CPU
};

// A KV transfer a connector wants the cluster to carry out: the engine says how many KV
// blocks move; the cluster turns them into bytes, prices them on the right fabric and hands
// the record back through Engine::transfer_finished when it is done.
struct TransferRequest {
  TransferKind kind = TransferKind::kRemotePull;
  std::uint64_t id = 0;  // the engine's handle for this transfer
  RequestKey key = 0;
  std::int32_t from_instance = -1, to_instance = -1;  // kRemotePull: prefill -> decode
  std::int32_t num_blocks = 0;  // 0 = nothing moves (NIXL still notifies the prefiller)
  std::int64_t bytes = 0;       // filled in by the cluster
  std::int32_t num_tokens = 0;
  // Set by the cluster when it hands the record back: the transfer failed, so none of the
  // blocks it was to fill holds valid KV (the connector reports them as invalid blocks).
  bool failed = false;
};

struct StepEvents {
  std::vector<RequestProgress> progress;   // reused between calls
  std::vector<TransferRequest> transfers;  // transfers to start now
};

// Instance state as the router and the time series see it (vLLM SchedulerStats).
struct EngineStats {
  std::int32_t num_running = 0;
  std::int32_t num_waiting = 0;
  double kv_usage = 0;  // 1 - free / (num_gpu_blocks - 1)
  std::int64_t num_free_blocks = 0;
  std::int64_t num_total_blocks = 0;  // usable blocks (excludes the null block)
  std::uint64_t prefix_queries = 0;   // cumulative tokens queried
  std::uint64_t prefix_hits = 0;      // cumulative tokens hit
  std::uint64_t preemptions = 0;      // cumulative
  // KV connector (vllm:external_prefix_cache_*): cumulative tokens queried and supplied.
  bool has_connector = false;
  std::uint64_t external_prefix_queries = 0;
  std::uint64_t external_prefix_hits = 0;
  // KV load failures (scheduler.py _handle_invalid_blocks): requests whose load hit invalid
  // blocks, and of them those finished with an error (kv_load_failure_policy "fail").
  std::uint64_t kv_load_failed_requests = 0;
  std::uint64_t kv_load_errored_requests = 0;
  std::int32_t in_flight_batches = 0;
};

// Where the engine's behaviour comes from.
struct Provenance {
  std::string kind;             // "vllm"
  std::string release;          // the vLLM release modelled, e.g. "0.32.0"
  std::string upstream_repo;    // "vllm-project/vllm"
  std::string upstream_commit;  // the commit its behaviour was checked against
};

class Engine {
 public:
  virtual ~Engine() = default;

  virtual void add_request(RequestSpec spec, SimTime now) = 0;
  // Aborts a request that is waiting, running or in flight. Unknown or finished keys are
  // ignored. Aborts while a pass is in flight take effect before that pass's output, as
  // vLLM's EngineCore applies queued aborts before update_from_output.
  virtual void abort(RequestKey key, SimTime now) = 0;

  // True when a call to schedule() may produce a batch now: there is work, and fewer than
  // max_concurrent_batches passes are in flight.
  virtual bool can_schedule(SimTime now) const = 0;
  // Builds the next forward pass. Returns nullptr when there is nothing to run. The pointer
  // stays valid until the next schedule() call.
  virtual const Batch* schedule(SimTime now) = 0;
  // Applies the output of the oldest in-flight pass (which must be batch_id).
  virtual const StepEvents& complete(std::uint64_t batch_id, const StepOutcome& outcome,
                                     SimTime now) = 0;
  // KV transfers the engine's connector asked for since the last call (appended to `out`).
  // The cluster drains them after every schedule() and abort().
  virtual void take_transfers(std::vector<TransferRequest>& out) {}
  // A KV transfer the cluster carried out finished (the record take_transfers handed out).
  virtual void transfer_finished(const TransferRequest& t, SimTime now) {}
  // Requests that finished between steps (a failed KV load under kv_load_failure_policy
  // "fail": finish kError, no tokens), appended to `out`; the cluster takes them after every
  // transfer_finished, as an empty step would not report them.
  virtual void take_finished_between_steps(std::vector<RequestProgress>& out) {}
  // P/D, prefill side: the decode instance finished reading request `key`'s blocks (NIXL's
  // notification), so the blocks this engine held for it can be freed.
  virtual void remote_read_done(RequestKey key, SimTime now) {}
  // P/D, prefill side: the decoder holding request `key` renews the lease on its blocks
  // (NIXL heartbeats, sent while the decoder waits to read them).
  virtual void remote_heartbeat(RequestKey key, SimTime now) {}
  // Applies what fell due by `now` by itself (e.g. the NIXL lease of held blocks).
  virtual void poll(SimTime now) {}
  // Sends the engine's KV-cache events (kv_events.h) to `l`; engines without a prefix cache
  // ignore it. Observation only.
  virtual void set_kv_event_listener(KvEventListener* l) {}

  // The earliest instant the engine needs to be called again by itself (a delayed free, a
  // remote KV load), or kSimTimeNever.
  virtual SimTime next_wake(SimTime now) const { return kSimTimeNever; }
  // True when nothing is waiting, running or in flight.
  virtual bool idle() const = 0;
  virtual std::int32_t max_concurrent_batches() const = 0;
  virtual std::int32_t in_flight() const = 0;

  virtual EngineStats stats() const = 0;
  // The instance's vllm:* families in Prometheus text exposition format.
  virtual std::string metrics_text(SimTime now, const std::string& labels) const = 0;
  virtual Provenance provenance() const = 0;
};

}  // namespace blis::engine
