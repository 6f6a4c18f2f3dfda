#pragma once
// The catalog's entry types: declared facts about GPUs, models and fabrics, and the measured
// coefficients the latency kernel uses. Every entry names its source; per-field sources are
// kept where they differ. Units are in the field names (bytes, bytes_per_s, us, tflops).
// The JSON schema of each kind is documented in docs/catalog.md.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace blis::catalog {

enum class Kind { kGpu, kModel, kFabric, kCoefficients };
const char* to_string(Kind k);

// A link a GPU uses: which fabric, and the GPU's own bandwidth on it (per direction).
struct Link {
  std::string fabric;                // a fabric id
  double bandwidth_bytes_per_s = 0;  // per GPU, per direction
};

struct Gpu {
  std::string id, name, vendor;
  std::int64_t memory_bytes = 0;         // vendor figure
  std::int64_t usable_memory_bytes = 0;  // what the device reports (cudaMemGetInfo total)
  double hbm_bandwidth_bytes_per_s = 0;
  double bf16_dense_tflops = 0;
  double fp8_dense_tflops = 0;  // 0: no FP8 tensor cores
  double fp4_dense_tflops = 0;  // 0: no FP4 tensor cores
  std::int32_t sm_count = 0;
  Link scale_up;   // GPU-to-GPU inside a node (NVLink, Infinity Fabric, or PCIe)
  Link host_link;  // GPU to host memory
  // An indicative on-demand list price per GPU-hour (USD), where it was listed and when
  // (0 = no price). Results use it for cost; a scenario's pool may override it.
  double usd_per_gpu_hour = 0;
  std::string price_source, price_as_of;
  std::string source;
  std::map<std::string, std::string> sources;  // field (JSON pointer) -> source
};

struct Fabric {
  std::string id, name;
  std::string scope;                 // scale-up | scale-out | host
  double bandwidth_bytes_per_s = 0;  // per GPU, per direction, nominal
  double latency_us = 0;             // fixed cost per transfer (NIC, connector set-up)
  double hop_latency_us = 0;         // added per switch hop between nodes (scale-out)
  double efficiency = 1;             // achieved / nominal bandwidth
  std::string source;
  std::map<std::string, std::string> sources;
};

struct MoeSpec {
  std::int32_t num_experts = 0;  // 0: dense model
  std::int32_t experts_per_token = 0;
  std::int64_t expert_intermediate_size = 0;
  std::int32_t num_shared_experts = 0;
  std::int64_t shared_expert_intermediate_size = 0;  // per shared expert
  std::int32_t first_dense_layers = 0;               // DeepSeek first_k_dense_replace
  std::int32_t layer_step = 1;  // every layer_step-th layer (after the dense ones) is MoE
};

struct MlaSpec {
  std::int32_t q_lora_rank = 0;  // 0: no low-rank Q
  std::int32_t kv_lora_rank = 0;
  std::int32_t qk_nope_head_dim = 0;
  std::int32_t qk_rope_head_dim = 0;
  std::int32_t v_head_dim = 0;
};

enum class AttentionKind { kFull, kSliding, kChunked };

// Which layers attend to a window only: pattern repeats over the layers.
struct LayerAttention {
  std::vector<AttentionKind> pattern;  // empty: every layer full attention
  std::int32_t window = 0;             // sliding window / chunk size in tokens
};

struct Quantization {
  std::string method;                    // "" (none) | fp8 | int8 | int4 | mxfp4 | nvfp4
  double weight_bytes_per_param = 2;     // including scales
  std::string activation = "bf16";       // bf16 | fp8: the GEMM compute precision
  std::vector<std::string> scope;        // attention, dense_mlp, experts, shared_experts
  std::int32_t pad_intermediate_to = 0;  // per-rank expert intermediate rounded up to this
  bool applies_to(const std::string& group) const;
};

struct Model {
  std::string id, architecture;
  std::int32_t num_hidden_layers = 0;
  std::int64_t hidden_size = 0;
  std::int32_t num_attention_heads = 0;
  std::int32_t num_key_value_heads = 0;
  std::int32_t head_dim = 0;
  std::int64_t intermediate_size = 0;  // dense FFN; 0 when every layer is MoE
  std::int64_t vocab_size = 0;
  bool tie_word_embeddings = false;
  std::int64_t max_position_embeddings = 0;
  std::string torch_dtype = "bfloat16";
  bool attention_bias = false;
  bool qk_norm = false;
  MoeSpec moe;
  MlaSpec mla;
  LayerAttention layer_attention;
  Quantization quantization;
  std::int64_t extra_params = 0;  // e.g. a vision tower, loaded in torch_dtype
  // GPUs on which real runs of this model went into the kernel's calibration; prices
  // elsewhere are estimates (blis price "estimate", the run summary's provenance).
  std::vector<std::string> calibrated_on;
  bool calibrated_for(const std::string& gpu_id) const;
  std::string source;
  std::map<std::string, std::string> sources;

  bool is_moe() const { return moe.num_experts > 0; }
  bool is_mla() const { return mla.kv_lora_rank > 0; }
  // vLLM builds a MultiModalConfig for it (catalog/multimodal.cpp: the architecture is one of
  // vLLM's multimodal model classes).
  bool is_multimodal() const;
  // True when layer `i` (0-based) is a MoE layer.
  bool layer_is_moe(std::int32_t i) const;
  AttentionKind layer_attention_kind(std::int32_t i) const;
};

// A GEMM efficiency ramp: eff(M) = eps_max * M / (M + m_half).
struct GemmRamp {
  double eps_max = 0.85;
  double m_half = 128;
};

// Measured efficiencies for one GPU (or "default" for GPUs with no measurement).
struct GpuCoefficients {
  std::string id;  // a GPU id, or "default"
  GemmRamp gemm_bf16, gemm_fp8;
  double hbm_derate = 0.8;     // achieved / peak HBM bandwidth for weights and activations
  double kernel_floor_us = 3;  // minimum time of one memory-bound kernel
  double attention_decode_derate = 0.9;
  double attention_prefill_eff_max = 0.8;
  double attention_prefill_s_half = 1800;  // tokens
  double attention_floor_us = 4;           // per attention call per layer
  double attention_decode_per_seq_us = 0;  // decode attention, per sequence per layer (split
                                           // scheduling, block-table walk, merge)
  double moe_routing_imbalance = 1.0;
  double moe_expert_derate = 0;     // achieved / peak HBM bandwidth reading expert weights (fused
                                    // MoE); 0 = the dense hbm_derate
  double moe_routing_us = 0;        // per MoE layer: top-k softmax, token sort/align, combine
  double allreduce_latency_us = 6;  // per all-reduce (vLLM custom all-reduce in a graph)
  double allreduce_latency_per_peer_us = 0;  // added per peer beyond the first rank (one-shot
                                             // all-reduce reads every peer's buffer)
  double allreduce_bus_efficiency = 0.81;
  double misc_bytes_per_hidden = 12;  // norm/residual/rope/act bytes per token per layer, in units
                                      // of hidden_size * activation bytes
  double host_step_us = 60;           // engine-core CPU work per step (the cluster overlaps it
                                      // with the GPU under async scheduling)
  double host_per_request_us = 2;     // per scheduled request
  double graph_replay_us = 7;         // launching one CUDA graph
  // The sampler and logits processing on the GPU (outside the CUDA graphs): a fixed part, a
  // part per vocabulary entry (passes over [rows, V] that do not scale with rows at small
  // batches) and a part per sampled logit.
  double sampler_step_us = 0;
  double sampler_per_kvocab_us = 0;      // per 1000 vocabulary entries
  double sampler_per_row_kvocab_us = 0;  // per sampled row per 1000 vocabulary entries
  double piecewise_per_layer_us = 6;     // mixed batches: attention runs outside the graph
  double eager_per_kernel_us = 4;        // launch cost per kernel without CUDA graphs
  double eager_kernels_per_layer = 12;
  // Serving overheads outside the forward pass (optional "serving" section; the cluster uses
  // them, docs/cluster.md): HTTP handling and tokenization before the engine sees a request,
  // and the API server's per-step output handling (detokenize, stream).
  double serving_request_us = 0;             // per request, before the engine
  double serving_tokenize_per_token_us = 0;  // per prompt token, before the engine
  double serving_output_step_us = 0;         // per step output handled by the API server
  double serving_output_per_request_us = 0;  // per request with new tokens in that output
  std::string provenance;
  std::map<std::string, std::string> sources;
};

// How vLLM's start-up profiling reserves memory besides weights and KV cache.
struct MemoryCoefficients {
  std::string id = "vllm-memory";
  double activation_hidden_streams = 2;   // residual + hidden [T, d] live through a layer
  double activation_mlp_factor = 1.0;     // scales the [T, 3F/tp] SwiGLU transient
  double sampler_bytes_per_logit = 14;    // bytes per [num_reqs, vocab] element at the sampler peak
  std::int64_t non_torch_base_bytes = 0;  // cuBLAS workspaces etc. allocated during profiling
  std::int64_t nccl_bytes_tp2 = 0;        // communicator buffers first touched in profiling
  std::int64_t nccl_bytes_tp4_plus = 0;
  std::int64_t cuda_graph_per_graph_per_layer_bytes = 0;  // each further graph, per layer
  bool cuda_graph_in_budget = true;  // VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS
  std::int32_t max_cudagraph_capture_size = 512;
  // The profile of older releases (optional "legacy_profile" section; blis price
  // --legacy-memory-profile): which releases, and the values that differ there.
  std::string legacy_releases;
  double legacy_sampler_bytes_per_logit = 36;
  bool legacy_cuda_graph_in_budget = false;
  // These coefficients as the legacy releases' start-up profile sized the KV cache.
  MemoryCoefficients legacy() const {
    MemoryCoefficients c = *this;
    c.sampler_bytes_per_logit = legacy_sampler_bytes_per_logit;
    c.cuda_graph_in_budget = legacy_cuda_graph_in_budget;
    return c;
  }
  std::string provenance;
  std::map<std::string, std::string> sources;
};

}  // namespace blis::catalog
