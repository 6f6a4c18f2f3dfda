#pragma once
// The scenario document (schema blis/scenario/v1, docs/scenario.md) as typed,
// validated values. decode_scenario() (scenario_decode.h) builds it from JSON text; every
// default has been filled in (engine-argument defaults by the rules pack of the pool's
// release), so the cluster never looks at JSON.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blis::scenario {

inline constexpr const char* kSchemaV1 = "blis/scenario/v1";

struct Horizon {
  std::optional<double> duration_s;          // arrivals stop after this many seconds
  std::optional<std::int64_t> max_requests;  // ... or after this many requests
  bool drain = true;                         // run until every admitted request finishes
};

// A token-count distribution: {"dist": "constant" | "normal" | "lognormal" | "exponential"
// | "uniform", ...}. Samples are clamped to [min, max] and rounded to an integer >= 1.
struct LengthDist {
  enum class Kind { kConstant, kNormal, kLognormal, kExponential, kUniform };
  Kind kind = Kind::kConstant;
  double value = 0;                // constant
  double mean = 0;                 // normal, lognormal, exponential
  double std = 0;                  // normal, lognormal (of the count itself, not of its log)
  std::optional<double> min, max;  // uniform: required bounds; others: optional clamps
};

struct ArrivalProcess {
  enum class Kind { kPoisson, kConstant, kGamma };
  Kind kind = Kind::kPoisson;
  double cv = 1.0;  // gamma: coefficient of variation of inter-arrival times
};

struct LoadStage {
  double rate = 0;  // requests per second
  double duration_s = 0;
};

struct Load {
  enum class Kind { kRate, kStages, kConcurrency };
  Kind kind = Kind::kRate;
  double rate = 0;                // kRate
  std::vector<LoadStage> stages;  // kStages
  std::int32_t concurrency = 0;   // kConcurrency: closed loop with this many users
  double think_time_s = 0;        // kConcurrency
  ArrivalProcess arrival;         // kRate and kStages
};

// G shared system prompts of T tokens; each request draws one uniformly and prepends it.
struct PrefixGroups {
  std::int32_t groups = 0;
  std::int32_t tokens = 0;
};

// inference-perf's shared_prefix data type (datagen/shared_prefix_datagen.py).
struct SharedPrefix {
  std::int32_t system_prompts = 0;        // num_groups
  std::int32_t users_per_prompt = 0;      // num_prompts_per_group
  std::int32_t system_prompt_tokens = 0;  // system_prompt_len
  std::int32_t question_tokens = 0;       // question_len
  std::int32_t output_tokens = 0;         // output_len
  bool multi_turn = false;                // enable_multi_turn_chat
};

// A CSV trace: arrival time (s), prompt tokens, output tokens, optional prefix group and
// session id. The CLI resolves `path` (relative to the scenario file) into `csv` text, so the
// core never reads files.
struct Trace {
  std::string path;  // as written in the document (may be empty when given inline)
  std::string csv;   // the CSV content
};

// A LoRA adapter a client's requests may use (docs/scenario.md "LoRA adapters"). Each
// request of the client draws one adapter with probability `share` (the rest use the base
// model). The same name in several clients is the same adapter (same id, same rank).
struct LoraAdapter {
  std::string name;
  std::int32_t rank = 8;  // LoRA rank r (vLLM refuses adapters above max_lora_rank)
  double share = 0;       // fraction of the client's requests, in [0, 1]
  std::int32_t id = 0;    // resolved: the workload-wide adapter id (1, 2, ... by first use)
};

struct Client {
  std::string name;
  Load load;
  // Exactly one request shape: lengths (+ optional prefix groups), shared_prefix or trace.
  std::optional<LengthDist> prompt_tokens;
  std::optional<LengthDist> output_tokens;
  std::optional<PrefixGroups> prefix;
  std::optional<SharedPrefix> shared_prefix;
  std::optional<Trace> trace;
  bool ignore_eos = true;  // every request generates exactly its output length
  // The client gives up on a request this long after sending it and disconnects, and vLLM
  // aborts it (inference-perf's aiohttp session times out after 300 s). Unset = never.
  std::optional<double> timeout_s;
  std::int32_t priority = 0;
  std::string slo_class;              // optional; empty = the scenario's `slo`
  std::int32_t lora = 0;              // LoRA adapter id; 0 = none
  std::vector<LoraAdapter> adapters;  // per-request draws (exclusive with `lora`)
};

struct Workload {
  std::vector<Client> clients;
  std::optional<Trace> trace_csv;  // replays a whole trace instead of clients
};

// Speculative decoding with supplied acceptance (the simulator does not run a draft model).
struct SpeculativeConfig {
  std::string method;  // e.g. "eagle", "ngram", "mtp"
  std::int32_t num_speculative_tokens = 0;
  double acceptance_rate = 0.7;  // per-draft-token acceptance probability
  std::string model;             // the draft model vLLM would load ("" = none); not run
};

struct KvTransferConfig {
  std::string kv_connector;  // e.g. "NixlConnector", "OffloadingConnector"
  std::string kv_role;       // kv_producer | kv_consumer | kv_both
  // OffloadingConnector (kv_connector_extra_config): CPU tier size and its block size in
  // tokens (a multiple of the GPU block_size; unset = the GPU block_size).
  std::optional<std::int64_t> cpu_bytes_to_use;
  std::optional<std::int32_t> offload_block_size;
};

// vLLM engine arguments after the rules pack filled in the release's defaults. Names are
// vLLM's own.
struct VllmArgs {
  std::int32_t max_model_len = 0;
  std::int32_t max_num_seqs = 0;
  std::int32_t max_num_batched_tokens = 0;
  bool enable_chunked_prefill = true;
  bool enable_prefix_caching = true;
  std::int32_t block_size = 16;
  double gpu_memory_utilization = 0.9;
  std::optional<std::int64_t> kv_cache_memory_bytes;
  std::optional<std::int64_t> num_gpu_blocks_override;
  std::string kv_cache_dtype = "auto";
  std::string dtype = "auto";
  std::string quantization;  // empty = from the checkpoint
  std::int32_t long_prefill_token_threshold = 0;
  std::int32_t max_num_partial_prefills = 1;
  std::int32_t max_long_partial_prefills = 1;
  std::string scheduling_policy = "fcfs";
  bool async_scheduling = true;
  bool scheduler_reserve_full_isl = true;
  std::string prefix_caching_hash_algo = "sha256";
  bool enable_lora = false;
  std::int32_t max_loras = 1;
  std::int32_t max_lora_rank = 16;
  std::int32_t max_cpu_loras = 1;  // resolved: unset = max_loras
  std::string performance_mode = "balanced";
  bool enforce_eager = false;
  std::optional<SpeculativeConfig> speculative_config;
  std::optional<KvTransferConfig> kv_transfer_config;
  std::optional<double> kv_offloading_size_gib;  // CPU KV offload (vLLM: kv_offloading_size)
  std::string kv_offloading_backend = "native";
};

struct EngineSpec {
  std::string kind = "vllm";
  std::string release = "0.32.0";
  VllmArgs args;
};

struct Parallelism {
  std::int32_t tp = 1, pp = 1, dp = 1;
};

struct Pool {
  std::string name;
  std::string role = "unified";  // unified | prefill | decode
  std::int32_t instances = 1;
  std::string hardware;  // catalog GPU id
  std::string model;     // catalog model id (Hugging Face repo id)
  Parallelism parallelism;
  EngineSpec engine;
  // USD per GPU-hour for this pool's cost in the results; unset = the catalog GPU's
  // indicative price.
  std::optional<double> cost_per_gpu_hour;
};

struct Scorer {
  std::string name;  // queue-depth | kv-utilization | prefix-cache
  double weight = 1.0;
};

struct Router {
  std::string policy = "round-robin";  // round-robin | least-loaded | weighted | random
  std::vector<Scorer> scorers;         // weighted
  double signal_staleness_ms = 0;
};

struct Slo {
  std::optional<double> ttft_ms, itl_ms, e2e_ms;
};

struct SloClass {
  std::string name;
  Slo slo;
};

struct Outputs {
  double timeseries_interval_ms = 1000;
  bool per_request = true;
};

// Inline catalog entries, kept as JSON text in the catalog's own schema; the catalog
// validates and parses them (an inline entry with a built-in id replaces it for this run).
struct InlineCatalog {
  std::vector<std::string> gpus, models, fabrics;
};

struct Scenario {
  std::string schema = kSchemaV1;
  std::string name;
  std::uint64_t seed = 1;
  Horizon horizon;
  InlineCatalog catalog;
  std::vector<Pool> pools;
  Router router;
  std::string fabric;  // catalog fabric id; empty when unused
  Workload workload;
  Slo slo;
  std::vector<SloClass> slo_classes;
  Outputs outputs;
};

}  // namespace blis::scenario
