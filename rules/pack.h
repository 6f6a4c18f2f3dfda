#pragma once
// A rules pack: what one vLLM release accepts for its engine arguments, the defaults it
// fills in, and the names it registers, held as data. rules.h resolves a pool's raw
// `engine.args` against a pack; docs/rules.md describes every pack and its sources.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace blis::rules {

// Where a fact comes from: `file@commit Function` of vLLM as read, or a release pin.
using Source = std::string;

// One name in vLLM's KV-connector registry (KVConnectorFactory.register_connector).
struct ConnectorInfo {
  std::string name;
  bool modelled = false;  // BLIS Playground simulates this connector
};

// A connector name the release does not register, with what became of it.
struct RemovedConnector {
  std::string name;
  std::string note;  // e.g. "removed in vLLM PR #44854 (June 2026)"
};

// One row of EngineArgs.get_batch_defaults: devices with at least `min_memory_gib` of
// memory (and, when `excludes_name` is set, whose lower-cased name does not contain it)
// get these defaults. Rows are tried in order; the last row has min_memory_gib 0.
struct BatchDefaultsRow {
  double min_memory_gib = 0;
  std::string excludes_name;                // "a100": PR #17885 keeps A100 on the small defaults
  std::int32_t max_num_batched_tokens = 0;  // OPENAI_API_SERVER usage context
  std::int32_t max_num_seqs = 0;            // OPENAI_API_SERVER usage context
};

// How async_scheduling resolves when the user leaves it unset.
enum class AsyncDefault {
  kOff,     // SchedulerConfig.async_scheduling = False
  kAutoOn,  // None -> True unless an incompatible option (VllmConfig.__post_init__)
};

// Block sizes the release's CUDA attention backends accept. CacheConfig.block_size is
// either a Literal (older lines) or any int > 0, and the attention backend then requires
// a multiple of `multiple_of` (FLASH_ATTN and TRITON_ATTN: MultipleOf(16)).
struct BlockSizeRule {
  std::vector<std::int32_t> literal;  // non-empty: exactly these values
  std::int32_t multiple_of = 0;       // > 0: any positive multiple of this
  std::int32_t default_value = 16;    // CacheConfig.DEFAULT_BLOCK_SIZE
};

// How a release treats `quantization: "fp8"` on an unquantized (bf16/fp16) checkpoint.
enum class Fp8Online {
  kAccept,     // Fp8Config without a serialized checkpoint quantizes online, per tensor
  kWarnAlias,  // deprecated alias of fp8_per_tensor (warning)
  kRefuse,     // refused; the release names fp8_per_tensor
};

// One engine argument as the release's config classes constrain it. read_args.cpp reads
// numeric keys with these bounds, and docs/rules.md is generated from these rows, so the
// check and its documentation are one table.
struct ArgSpec {
  std::string key;
  std::string type;          // "int", "float", "bool", "string", "object"
  std::string default_text;  // what vLLM fills in when the key is absent
  std::string constraint;    // vLLM's own constraint, as written there
  std::string expected;      // for messages: "an integer >= 1"
  std::string source;        // file and class/function of vLLM
  // Bounds for int and float keys (inclusive; `min_exclusive` for pydantic gt=).
  std::int64_t int_min = 0, int_max = 0;
  double float_min = 0, float_max = 0;
  bool min_exclusive = false;
  bool human_readable = false;  // vLLM's CLI parses it with human_readable_int
  // A key of Pack::unmodelled_args still read as vLLM reads it: a value vLLM refuses is refused
  // with vLLM's reason, unset (null) or `neutral` (vLLM's default, which changes nothing BLIS
  // Playground simulates) is accepted with a warning, any other value is not modelled.
  bool unmodelled = false;
  std::optional<double> neutral;  // for bools 0 / 1; nullopt: only null is neutral
  // False when vLLM's type is not Optional: EngineArgs passes null (None) on to the config
  // class, whose pydantic validation refuses it.
  bool nullable = true;
  // Other types (rules/read_typed.cpp): "string" (with `choices`: one of them, compared after
  // `fold` 'u' upper-cases or 'l' lower-cases it), "list[str]", "list[int]", "object" (with
  // `object_keys`: only those keys, the class being extra="forbid"), "dict[str,str]",
  // "str|list[str]", "str|bool", "literal[int]" (with `choices`: an int Literal, which
  // pydantic-core matches exactly, never lax). `neutral_text`: the string default that changes
  // nothing.
  std::vector<std::string> choices;
  char fold = 0;
  std::string neutral_text;
  std::vector<std::string> object_keys;
  // "object" only: a string is parsed as JSON first (vllm/engine/arg_utils.py
  // EngineArgs.create_diffusion_config json.loads).
  bool json_string = false;
  // A MultiModalConfig field, given to ModelConfig as an InitVar: vLLM builds a MultiModalConfig
  // only for a multimodal model (ModelFacts::is_multimodal), so on a known text model only the
  // InitVar's type is checked and the key is ignored. `initvar_type` "int", "float" or "str":
  // the InitVar has that plain type and the bounds or choices above are MultiModalConfig's
  // alone; "": the InitVar has this row's type (its Literal applies on any model).
  bool multimodal = false;
  std::string initvar_type;
};

// An engine argument an older release had and this one does not.
struct RemovedArg {
  std::string key;
  std::string note;  // e.g. "removed upstream on 2026-07-21 (PR #49244)"
};

// A rule the pack enforces, for docs/rules.md and for tests that every rule has a source.
struct RuleInfo {
  std::string id;        // e.g. "scheduler.batched_tokens_below_model_len"
  std::string severity;  // "error" | "warning" | "default"
  std::string summary;
  Source source;
};

struct Pack {
  std::string release;               // "0.29.x", "0.31.0", "0.32.0"
  std::vector<std::string> accepts;  // release strings this pack answers for
  std::string sources;               // one paragraph: what was read for this pack

  BlockSizeRule block_size;
  std::vector<std::string> kv_cache_dtypes;            // CacheDType Literal
  std::vector<std::string> prefix_caching_hash_algos;  // PrefixCachingHashAlgo Literal
  std::vector<std::string> scheduling_policies;        // SchedulerPolicy Literal
  std::vector<std::string> dtypes;                     // ModelDType Literal
  std::vector<std::string> quantization_methods;       // QuantizationMethods Literal
  // DEPRECATED_QUANTIZATION_METHODS: refused unless allow_deprecated_quantization.
  std::vector<std::string> deprecated_quantization_methods;
  std::vector<std::int32_t> max_lora_ranks;         // MaxLoRARanks Literal
  std::vector<std::string> performance_modes;       // PerformanceMode Literal
  std::vector<std::string> kv_offloading_backends;  // KVOffloadingBackend Literal
  std::vector<std::string> kv_roles;                // KVRole Literal
  std::vector<std::string> speculative_methods;     // SpeculativeMethod Literal
  // MTP model types SpeculativeConfig replaces by "mtp" (with a deprecation warning).
  std::vector<std::string> mtp_aliases;
  // Methods that need no draft `model` (SpeculativeConfig.__post_init__ fills one in).
  std::vector<std::string> speculative_methods_without_model;
  // Target architectures with no MTP layers: "mtp" without a draft model is refused on them.
  std::vector<std::string> architectures_without_mtp;
  // Methods async scheduling works with (EagleModelTypes, NgramGPUTypes, draft_model, ...).
  std::vector<std::string> async_speculative_methods;
  // Methods that leave an unset async_scheduling on (the same list at 8d9b52f7; before
  // PR #48341, 2026-08-06, draft_model turned it off).
  std::vector<std::string> async_auto_speculative_methods;
  // Methods that quantize an unquantized (bf16/fp16) checkpoint while loading it; every
  // other method needs a checkpoint quantized with it.
  std::vector<std::string> online_quantization_methods;
  // `quantization: "fp8"` on an unquantized checkpoint.
  Fp8Online fp8_online = Fp8Online::kAccept;
  // SchedulerConfig.long_prefill_token_threshold Field(ge=0) and ModelConfig.max_logprobs
  // Field(ge=-1) (PR #44070, 2026-06-30); without them a negative threshold caps nothing.
  bool negative_threshold_refused = true;
  // SchedulerConfig.max_num_partial_prefills / max_long_partial_prefills exist (removed
  // upstream on 2026-07-21, PR #49244); with them the threshold <= max_model_len check
  // applies only to concurrent partial prefills.
  bool partial_prefills = false;

  double gpu_memory_utilization_default = 0.9;
  AsyncDefault async_scheduling_default = AsyncDefault::kAutoOn;
  std::int32_t max_lora_rank_default = 16;
  std::vector<BatchDefaultsRow> batch_defaults;  // OPENAI_API_SERVER column

  std::vector<ConnectorInfo> connectors;  // registered names, in registration order
  std::vector<RemovedConnector> removed_connectors;
  // vLLM engine arguments that exist in this release but BLIS Playground does not model.
  std::vector<std::string> unmodelled_args;

  // Every engine argument BLIS Playground reads, with its constraint in this release.
  std::vector<ArgSpec> args;
  std::vector<RemovedArg> removed_args;

  std::vector<RuleInfo> rules;  // every check and default, with its source

  // The row of `key` in `args`, or nullptr.
  const ArgSpec* arg(const std::string& key) const {
    for (const auto& a : args) {
      if (a.key == key) return &a;
    }
    return nullptr;
  }
};

}  // namespace blis::rules
