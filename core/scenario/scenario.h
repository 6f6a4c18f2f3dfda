#pragma once
// The scenario document (schema blis/scenario/v1, docs/scenario.md) as typed,
// validated values. decode_scenario() (scenario_decode.h) builds it from JSON text; every
// default has been filled in (engine-argument defaults by the rules pack of the pool's
// release), so the cluster never looks at JSON.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/engine_args.h"
#include "util/release.h"

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

// A client's speculative-decoding acceptance: per_position[i] is the share of drafts whose
// accepted prefix is longer than i, as vLLM's spec-decode metrics report it
// (vllm:spec_decode_num_accepted_tokens_per_pos[i] / vllm:spec_decode_num_drafts), so it is
// non-increasing. A single per-draft-token rate a is given as {a, a^2, a^3, ...}. Positions
// past the list accept nothing.
struct SpecAcceptance {
  std::optional<double> acceptance_rate;  // as written (else per_position was written)
  std::vector<double> per_position;       // as written, or expanded to k positions at use
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
  // Overrides the pool's speculative_config.acceptance_rate for this client's requests.
  std::optional<SpecAcceptance> spec_acceptance;
};

struct Workload {
  std::vector<Client> clients;
  std::optional<Trace> trace_csv;  // replays a whole trace instead of clients
};

// The engine-argument types (VllmArgs, SpeculativeConfig, KvTransferConfig) live below both
// the scenario and the rules packs (engine/engine_args.h); the scenario uses them by name.
using engine_args::KvTransferConfig;
using engine_args::SpeculativeConfig;
using engine_args::VllmArgs;

struct EngineSpec {
  std::string kind = "vllm";
  std::string release{kDefaultVllmRelease};
  // The start-up memory profile that sizes the KV cache (kernel::memory_profile_names()):
  // "current", or "vllm-0.15" for runs of vLLM <= 0.15 (which has no rules pack of its own).
  std::string memory_profile = "current";
  VllmArgs args;
};

struct Parallelism {
  // Placed on the nodes of `network` (network.gpus_per_node; kernel/parallel_cost.h): tp within
  // a node, pipeline stages and DP ranks across nodes.
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
  // Kubernetes labels of the pool's pods, as router epp's label-reading plugins see them
  // (label-selector-filter, context-length-aware); llm-d.ai/role comes from `role`.
  std::map<std::string, std::string> labels;
  // Decode pool of a P/D deployment: the probability that a KV pull fails (every block it
  // was to fill is reported invalid; kv_transfer_config.kv_load_failure_policy decides),
  // drawn per pull from the scenario seed's stream "kv_pull_failures". 0 = pulls never fail.
  double kv_pull_failure_rate = 0;
};

struct Scorer {
  std::string name;  // queue-depth | kv-utilization | prefix-cache
  double weight = 1.0;
};

struct Router {
  std::string policy = "round-robin";  // round-robin | least-loaded | weighted | random | epp
  std::vector<Scorer> scorers;         // weighted
  double signal_staleness_ms = 0;
  // epp: an llm-d EndpointPickerConfig as text (JSON, or YAML when it was given as a
  // string); the cluster's router reads and checks it (core/cluster/epp/config.h).
  std::string epp_config;
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

// Where the instances sit and how nodes are joined (docs/networking.md): nodes of
// gpus_per_node GPUs, the scenario's `fabric` between nodes through NICs per GPU or per node
// and switch_hops switches, the GPU's own scale-up link inside a node. Every scenario has one
// (these defaults when the document has no `network`).
struct Network {
  std::int32_t gpus_per_node = 8;
  std::string nic = "per_gpu";  // per_gpu | per_node
  std::int32_t switch_hops = 1;
  // Pool name -> the node of each of its instances; pools not named are packed in order,
  // each from a node of its own.
  std::map<std::string, std::vector<std::int32_t>> placement;
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
  Network network;
  Workload workload;
  Slo slo;
  std::vector<SloClass> slo_classes;
  Outputs outputs;
};

}  // namespace blis::scenario
