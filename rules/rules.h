#pragma once
// Rules packs, one per vLLM release: find the pack of a release, and resolve a pool's raw
// `engine.args` against it. Resolution fills every default the release would fill (some
// depend on the GPU and on the usage context: BLIS Playground models vLLM's OpenAI API
// server, `vllm serve`, i.e. UsageContext.OPENAI_API_SERVER) and reports what the release
// would refuse (errors) or warn about (warnings), each with vLLM's own reason.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/engine_args.h"
#include "rules/pack.h"
#include "util/diagnostic.h"

namespace blis::rules {

// The pack for a release string ("0.32.0", "0.31.0", "0.29.x" or "0.29.<n>"), or nullptr.
const Pack* find_pack(std::string_view release);

// Names of the packs, oldest first: {"0.29.x", "0.31.0", "0.32.0"}.
std::vector<std::string> known_releases();

// The pack of kDefaultVllmRelease (util/release.h): what a pool that names no release gets.
const Pack& default_pack();

// The GPU as vLLM's platform sees it (current_platform.get_device_total_memory / name).
struct HardwareFacts {
  bool known = false;        // false: no catalog entry; hardware-dependent rules are skipped
  std::string name;          // e.g. "NVIDIA H100 80GB HBM3"
  double memory_gib = 0;     // total device memory in GiB (2^30 bytes)
  bool supports_fp8 = true;  // FP8 tensor cores (for kv_cache_dtype fp8 warnings)
};

// The model as vLLM's ModelConfig derives it from the Hugging Face config.
struct ModelFacts {
  bool known = false;              // false: model-dependent rules are skipped
  std::int64_t max_model_len = 0;  // derived maximum (max_position_embeddings, rope-scaled)
  std::int32_t num_attention_heads = 0;
  std::string checkpoint_quantization;  // "" = unquantized (bf16/fp16 weights)
  std::string checkpoint_dtype = "bfloat16";
  bool use_mla = false;  // ModelConfig.use_mla: Multi-head Latent Attention (DeepSeek)
  bool is_moe = false;   // ModelConfig.is_moe: the model has routed experts
  // ModelConfig.is_multimodal_model: vLLM builds a MultiModalConfig (catalog::Model::
  // is_multimodal); on a text model the MultiModalConfig arguments are ignored.
  bool is_multimodal = false;
  // The checkpoint's total KV heads (num_key_value_heads; ModelConfig.get_total_num_kv_heads),
  // 0 when unknown: decode context parallelism on a GQA/MQA model depends on it.
  std::int32_t num_kv_heads = 0;
  std::string architecture = "";  // the checkpoint's architectures[0], "" when unknown
};

// Everything about the pool that a release's defaults and checks depend on.
struct DeploymentFacts {
  HardwareFacts hardware;
  ModelFacts model;
  std::int32_t tp = 1, pp = 1, dp = 1;
  std::string role = "unified";  // unified | prefill | decode
  std::string pointer;           // JSON pointer of the pool, e.g. "/pools/0"
  // The block size vLLM's platform picks for this GPU and model when block_size is unset, 0
  // for the pack's default: CUDA with an MLA model on Hopper/Blackwell uses FlashMLA, which
  // needs 64 (vllm/platforms/cuda.py CudaPlatform.check_and_update_config).
  std::int32_t platform_block_size = 0;
};

// vLLM's batch limits on this GPU in `pack`'s release (EngineArgs.get_batch_defaults, the
// OPENAI_API_SERVER column). The one copy of them: resolve_engine_args fills unset
// max_num_batched_tokens / max_num_seqs from it, and the kernel's make_deployment asks here.
const BatchDefaultsRow& batch_defaults(const Pack& pack, const HardwareFacts& hardware);

struct Resolved {
  engine_args::VllmArgs args;
  Diagnostics diagnostics;  // pointers are rooted at `args_pointer`
  // max_model_len was -1 or "auto": args.max_model_len holds the model's derived maximum
  // (what vLLM's config checks see), and the caller, which knows the KV cache, fits it as
  // vllm/v1/core/kv_cache_utils.py _auto_fit_max_model_len does.
  bool auto_fit_max_model_len = false;
};

// Resolves `args` (the pool's raw engine.args object; null/absent = {}) against `pack`.
// `args_pointer` is the JSON pointer of that object, e.g. "/pools/0/engine/args".
Resolved resolve_engine_args(const Pack& pack, const nlohmann::json& args,
                             const std::string& args_pointer, const DeploymentFacts& facts);

// The keys `engine.args` accepts (vLLM's own names), for the docs test and the editor.
const std::vector<std::string>& accepted_arg_keys();
const std::vector<std::string>& accepted_speculative_keys();
const std::vector<std::string>& accepted_kv_transfer_keys();
// The init fields of vllm/config/compilation.py CompilationConfig (compilation_config).
const std::vector<std::string>& accepted_compilation_keys();
// Keys vLLM has that change nothing BLIS Playground simulates (a warning, then ignored).
const std::vector<std::string>& ignored_arg_keys();

// docs/rules.md, generated from the packs (`blis rules --markdown`; tests/rules holds the
// checked-in file to it).
std::string rules_markdown();

}  // namespace blis::rules
