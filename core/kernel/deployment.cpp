#include "kernel/deployment.h"

#include <algorithm>
#include <cstdio>

#include "util/did_you_mean.h"
#include "util/units.h"

namespace blis::kernel {

namespace {

std::string unknown_id(const char* what, const std::string& id,
                       const std::vector<std::string>& ids) {
  std::string msg = std::string("unknown ") + what + " \"" + id + "\"";
  const auto near = closest_ids(id, ids);
  if (!near.empty()) msg += " (did you mean " + quoted_list(near) + "?)";
  return msg;
}

bool is_nvidia_sm90_plus(const catalog::Gpu& gpu) {
  // Hopper and Blackwell parts in the catalog: FP8 tensor cores and >= 80 GB.
  return gpu.vendor == "nvidia" && gpu.fp8_dense_tflops > 0 && gpu.memory_bytes >= 80000000000;
}

}  // namespace

const std::vector<std::string>& memory_profile_names() {
  static const std::vector<std::string> names = {kMemoryProfileCurrent, kMemoryProfileVllm015};
  return names;
}

rules::HardwareFacts hardware_facts(const catalog::Gpu& gpu) {
  rules::HardwareFacts f;
  f.known = true;
  // vLLM matches "a100" in the device name; the id carries the part name too.
  f.name = gpu.id + " " + gpu.name;
  // get_device_total_memory: what the device reports, not the vendor figure.
  f.memory_gib = util::to_gib(gpu.usable_memory_bytes);
  f.supports_fp8 = gpu.fp8_dense_tflops > 0;
  return f;
}

rules::BatchDefaultsRow vllm_batch_defaults(const catalog::Gpu& gpu, std::string_view release) {
  const rules::Pack* pack = rules::find_pack(release);
  return rules::batch_defaults(pack != nullptr ? *pack : rules::default_pack(),
                               hardware_facts(gpu));
}

Diagnostics make_deployment(const catalog::Catalog& catalog, const std::string& gpu_id,
                            const std::string& model_id, std::int32_t tp, Deployment* out) {
  Diagnostics d;
  const catalog::Gpu* gpu = catalog.find_gpu(gpu_id);
  const catalog::Model* model = catalog.find_model(model_id);
  if (gpu == nullptr) d.push_back({"/hardware", unknown_id("GPU", gpu_id, catalog.gpu_ids())});
  if (model == nullptr) {
    d.push_back({"/model", unknown_id("model", model_id, catalog.model_ids())});
  }
  if (!d.empty()) return d;
  out->gpu = *gpu;
  out->model = *model;
  out->tp = tp;
  const rules::BatchDefaultsRow b = vllm_batch_defaults(*gpu);
  out->max_num_batched_tokens = b.max_num_batched_tokens;
  out->max_num_seqs = b.max_num_seqs;
  out->max_model_len = model->max_position_embeddings;
  // vllm/platforms/cuda.py check_and_update_config: FlashMLA (Hopper/Blackwell) needs 64-token
  // blocks, and vLLM switches MLA models to them.
  out->block_size = model->is_mla() && is_nvidia_sm90_plus(*gpu) ? 64 : 16;
  out->coefficients = catalog.gpu_coefficients(gpu_id);
  out->memory_coefficients = catalog.memory_coefficients();
  return validate_deployment(*out);
}

Diagnostics validate_deployment(const Deployment& d) {
  Diagnostics out;
  const catalog::Model& m = d.model;
  auto err = [&](const std::string& ptr, const std::string& msg) { out.push_back({ptr, msg}); };
  if (d.tp < 1) err("/tp", "must be >= 1, got " + std::to_string(d.tp));
  if (d.pp < 1) err("/pp", "must be >= 1, got " + std::to_string(d.pp));
  if (!out.empty()) return out;
  // vllm/config/model.py verify_with_parallel_config
  if (m.num_attention_heads % d.tp != 0) {
    err("/tp", "Total number of attention heads (" + std::to_string(m.num_attention_heads) +
                   ") must be divisible by tensor parallel size (" + std::to_string(d.tp) + ").");
  }
  if (m.num_hidden_layers < d.pp) {
    err("/pp", "pipeline parallel size " + std::to_string(d.pp) + " exceeds the " +
                   std::to_string(m.num_hidden_layers) + " layers of " + m.id);
  }
  // vllm/model_executor/layers/linear.py QKVParallelLinear: KV heads are split when there are
  // at least tp of them, replicated otherwise.
  const std::int32_t kv = m.num_key_value_heads;
  if (!m.is_mla() && ((kv >= d.tp && kv % d.tp != 0) || (kv < d.tp && d.tp % kv != 0))) {
    err("/tp", "tensor parallel size " + std::to_string(d.tp) + " cannot split " +
                   std::to_string(kv) + " KV heads evenly");
  }
  if (m.intermediate_size > 0 && m.intermediate_size % d.tp != 0) {
    err("/tp", "intermediate_size " + std::to_string(m.intermediate_size) +
                   " is not divisible by tensor parallel size " + std::to_string(d.tp));
  }
  if (m.is_moe() && m.moe.expert_intermediate_size % d.tp != 0) {
    err("/tp", "expert intermediate size " + std::to_string(m.moe.expert_intermediate_size) +
                   " is not divisible by tensor parallel size " + std::to_string(d.tp));
  }
  // vllm/config/cache.py CacheConfig.block_size: any integer > 0 (pydantic gt=0). Which sizes
  // a release and its attention backends accept is the rules pack's concern; the kernel prices
  // any positive size (page bytes scale with it).
  const std::int32_t bs = d.block_size;
  if (bs < 1 || bs > 4096) {
    err("/block_size", "must be an integer from 1 to 4096, got " + std::to_string(bs));
  }
  if (!(d.gpu_memory_utilization > 0 && d.gpu_memory_utilization <= 1)) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "must be in (0, 1], got %g", d.gpu_memory_utilization);
    err("/gpu_memory_utilization", buf);
  }
  if (d.max_num_batched_tokens < 1) {
    err("/max_num_batched_tokens", "must be >= 1, got " + std::to_string(d.max_num_batched_tokens));
  }
  if (d.max_num_seqs < 1) {
    err("/max_num_seqs", "must be >= 1, got " + std::to_string(d.max_num_seqs));
  }
  const std::int64_t mml = d.effective_max_model_len();
  if (mml < 1) err("/max_model_len", "must be >= 1, got " + std::to_string(mml));
  // vllm/config/scheduler.py verify_args (chunked prefill is always on in v1, so only the
  // sequence count bound applies).
  if (d.max_num_batched_tokens >= 1 && d.max_num_seqs > d.max_num_batched_tokens) {
    err("/max_num_seqs", "max_num_batched_tokens (" + std::to_string(d.max_num_batched_tokens) +
                             ") must be greater than or equal to max_num_seqs (" +
                             std::to_string(d.max_num_seqs) + ").");
  }
  const std::string& kvd = d.kv_cache_dtype;
  if (kvd != "auto" && kvd != "bfloat16" && kvd != "float16" && kvd != "fp8" && kvd != "fp8_e4m3" &&
      kvd != "fp8_e5m2") {
    err("/kv_cache_dtype",
        "expected one of auto, bfloat16, float16, fp8, fp8_e4m3, fp8_e5m2, got \"" + kvd + "\"");
  }
  if (d.dtype != "auto" && d.dtype != "bfloat16" && d.dtype != "float16" && d.dtype != "float32") {
    err("/dtype", "expected one of auto, bfloat16, float16, float32, got \"" + d.dtype + "\"");
  }
  if (!d.quantization.empty() && d.quantization != "fp8") {
    err("/quantization", "expected \"fp8\" (online FP8) or none, got \"" + d.quantization + "\"");
  } else if (!d.quantization.empty() && !m.quantization.method.empty() &&
             m.quantization.method != d.quantization) {
    // vllm/config/model.py _verify_quantization
    err("/quantization", "Quantization method specified in the model config (" +
                             m.quantization.method +
                             ") does not match the quantization method specified in the "
                             "`quantization` argument (" +
                             d.quantization + ").");
  }
  if (d.kv_cache_memory_bytes && *d.kv_cache_memory_bytes < 1) {
    err("/kv_cache_memory_bytes", "must be >= 1");
  }
  if (d.num_gpu_blocks_override && *d.num_gpu_blocks_override < 1) {
    err("/num_gpu_blocks_override", "must be >= 1");
  }
  const auto& profiles = memory_profile_names();
  if (std::find(profiles.begin(), profiles.end(), d.memory_profile) == profiles.end()) {
    err("/memory_profile",
        "expected " + quoted_list(profiles) + ", got \"" + d.memory_profile + "\"");
  }
  return out;
}

}  // namespace blis::kernel
