#include "scenario/catalog_bridge.h"
#include "util/text.h"

#include <algorithm>
#include <limits>

#include "kernel/deployment.h"
#include "kernel/kv_capacity.h"
#include "scenario/pool_deployment.h"
#include "util/did_you_mean.h"

namespace blis::scenario::detail {

namespace {

std::string first_ids(const std::vector<std::string>& ids, std::size_t n) {
  std::vector<std::string> head(ids.begin(),
                                ids.begin() + static_cast<std::ptrdiff_t>(std::min(n, ids.size())));
  return quoted_list(head);
}

std::string unknown_id(const std::string& what, const std::string& id,
                       const std::vector<std::string>& ids, const char* inline_key) {
  std::string msg = quote_excerpt(id) + " is not a catalog " + what + " id";
  const auto near = closest_ids(id, ids, 3);
  msg += near.empty() ? " (known: " + first_ids(ids, 6) + ")"
                      : " (closest: " + quoted_list(near) + ")";
  msg += "; or define it inline under /catalog/" + std::string(inline_key);
  return msg;
}

// The KV bytes vLLM plans with: override * bytes per block when num_gpu_blocks_override is
// set (vllm/v1/core/kv_cache_utils.py get_kv_cache_configs), else the profiled memory.
std::int64_t planned_kv_bytes(const kernel::Deployment& d, const kernel::KvCapacity& k) {
  if (!d.num_gpu_blocks_override) return k.available_kv_bytes;
  const std::int64_t blocks = *d.num_gpu_blocks_override;
  if (k.bytes_per_block > 0 &&
      blocks > std::numeric_limits<std::int64_t>::max() / k.bytes_per_block)
    return std::numeric_limits<std::int64_t>::max();
  return blocks * k.bytes_per_block;
}

// vllm/v1/core/kv_cache_utils.py _auto_fit_max_model_len: the largest max_model_len whose
// one request fits the planned KV memory (bisection, as _estimate_max_model_len_from_groups),
// at most the derived maximum. Sets d.max_model_len; false (error reported) when not even
// one token fits.
bool auto_fit_max_model_len(kernel::Deployment& d, const kernel::KvCapacity& k,
                            const std::string& args_ptr, const std::string& release,
                            DecodeContext& c) {
  const std::int64_t avail = planned_kv_bytes(d, k);
  std::int64_t fitted = k.estimated_max_model_len;
  if (d.num_gpu_blocks_override) {
    // The kernel's estimate is against the profiled memory; bisect against the override's.
    const auto needed = [&](std::int64_t len) {
      kernel::Deployment probe = d;
      probe.max_model_len = len;
      return kernel::kv_capacity(probe).kv_bytes_for_max_model_len;
    };
    std::int64_t lo = 0, hi = d.effective_max_model_len();
    while (lo < hi) {
      const std::int64_t mid = lo + (hi - lo + 1) / 2;
      if (needed(mid) <= avail) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    fitted = lo;
  }
  if (avail <= 0 || fitted <= 0) {
    c.diags.push_back({args_ptr + "/max_model_len",
                       "auto: Cannot auto-fit max_model_len: not enough GPU memory available to "
                       "serve even a single token. Try increasing `gpu_memory_utilization`. [" +
                           release + " _auto_fit_max_model_len]"});
    return false;
  }
  d.max_model_len = std::min<std::int64_t>(fitted, d.effective_max_model_len());
  return true;
}

// num_gpu_blocks_override: vLLM plans against override * bytes per block, so the KV cache
// must hold one max_model_len request in that many blocks (_check_enough_kv_cache_memory);
// and block 0 is the null block (vllm/v1/core/block_pool.py BlockPool), so one block holds
// nothing.
bool check_blocks_override(const kernel::Deployment& d, const kernel::KvCapacity& k,
                           const std::string& args_ptr, const std::string& release,
                           DecodeContext& c) {
  if (!d.num_gpu_blocks_override) return true;
  const std::int64_t blocks = *d.num_gpu_blocks_override;
  const std::string ptr = args_ptr + "/num_gpu_blocks_override";
  const std::int64_t avail = planned_kv_bytes(d, k);
  const std::int64_t needed = k.kv_bytes_for_max_model_len;
  if (needed > avail) {
    const std::int64_t per_request =
        k.bytes_per_block > 0 ? (needed + k.bytes_per_block - 1) / k.bytes_per_block : 0;
    c.diags.push_back(
        {ptr, std::to_string(blocks) +
                  ": To serve at least one request with the model's max seq "
                  "len (" +
                  std::to_string(d.effective_max_model_len()) + "), " +
                  std::to_string(per_request) + " KV blocks are needed, more than the " +
                  std::to_string(blocks) +
                  " of num_gpu_blocks_override. Try increasing num_gpu_blocks_override or "
                  "decreasing `max_model_len` [" +
                  release + " _check_enough_kv_cache_memory]"});
    return false;
  }
  return true;
}

}  // namespace

std::string example_gpu_ids() {
  return first_ids(catalog::Catalog::builtin().gpu_ids(), 3);
}
std::string example_model_ids() {
  return first_ids(catalog::Catalog::builtin().model_ids(), 3);
}

void add_inline_entries(const InlineCatalog& entries, DecodeContext& c) {
  if (entries.gpus.empty() && entries.models.empty() && entries.fabrics.empty()) return;
  c.with_inline = catalog::Catalog::builtin();
  // Fabrics and GPUs first, so models and GPUs can refer to inline entries.
  const auto add = [&](catalog::Kind kind, const std::vector<std::string>& list, const char* key) {
    for (std::size_t i = 0; i < list.size(); ++i) {
      Diagnostics d = c.with_inline->add_inline(
          kind, list[i], "/catalog/" + std::string(key) + "/" + std::to_string(i));
      for (auto& x : d) c.diags.push_back(std::move(x));
    }
  };
  add(catalog::Kind::kFabric, entries.fabrics, "fabrics");
  add(catalog::Kind::kGpu, entries.gpus, "gpus");
  add(catalog::Kind::kModel, entries.models, "models");
  c.catalog = &*c.with_inline;
}

void check_fabric(const Scenario& s, DecodeContext& c) {
  if (s.fabric.empty() || c.catalog->find_fabric(s.fabric)) return;
  c.diags.push_back(
      {"/fabric", unknown_id("fabric", s.fabric, c.catalog->fabric_ids(), "fabrics")});
}

rules::DeploymentFacts deployment_facts(const Pool& pool, const std::string& pool_pointer,
                                        DecodeContext& c) {
  rules::DeploymentFacts f;
  f.tp = pool.parallelism.tp;
  f.pp = pool.parallelism.pp;
  f.dp = pool.parallelism.dp;
  f.role = pool.role;
  f.pointer = pool_pointer;
  const catalog::Gpu* gpu = pool.hardware.empty() ? nullptr : c.catalog->find_gpu(pool.hardware);
  const catalog::Model* model = pool.model.empty() ? nullptr : c.catalog->find_model(pool.model);
  if (!pool.hardware.empty() && !gpu) {
    c.diags.push_back({pool_pointer + "/hardware",
                       unknown_id("GPU", pool.hardware, c.catalog->gpu_ids(), "gpus")});
  }
  if (!pool.model.empty() && !model) {
    c.diags.push_back({pool_pointer + "/model",
                       unknown_id("model", pool.model, c.catalog->model_ids(), "models")});
  }
  if (gpu) f.hardware = kernel::hardware_facts(*gpu);
  if (model) {
    f.model.known = true;
    f.model.max_model_len = model->max_position_embeddings;
    f.model.num_attention_heads = model->num_attention_heads;
    f.model.checkpoint_quantization = model->quantization.method;
    f.model.checkpoint_dtype = model->torch_dtype;
    f.model.use_mla = model->is_mla();
    f.model.is_moe = model->moe.num_experts > 0;
    f.model.is_multimodal = model->is_multimodal();
    f.model.num_kv_heads = model->num_key_value_heads;
    f.model.architecture = model->architecture;
  }
  if (gpu && model) {
    // The kernel applies vLLM's platform defaults (FlashMLA's 64-token blocks).
    kernel::Deployment d;
    kernel::make_deployment(*c.catalog, pool.hardware, pool.model, 1, &d);
    if (d.block_size != 16) f.platform_block_size = d.block_size;
  }
  return f;
}

void check_fit(Pool& pool, const std::string& pool_pointer, const rules::DeploymentFacts& facts,
               bool auto_fit, DecodeContext& c) {
  if (!facts.hardware.known || !facts.model.known) return;
  VllmArgs& a = pool.engine.args;
  const std::string args_ptr = pool_pointer + "/engine/args";
  const std::string release = "vLLM " + pool.engine.release;
  kernel::Deployment d;
  kernel::make_deployment(*c.catalog, pool.hardware, pool.model, pool.parallelism.tp, &d);
  if (!apply_engine_args(pool, &d)) {
    const std::string& q = a.quantization;
    c.diags.push_back(
        {args_ptr + "/quantization",
         quote_excerpt(q) + " is accepted by " + release +
             " but not modelled by BLIS Playground's latency kernel (modelled: the checkpoint's "
             "own quantization, or fp8_per_tensor/fp8_per_block/fp8_per_channel on an "
             "unquantized checkpoint)"});
    return;
  }

  const Diagnostics invalid = kernel::validate_deployment(d);
  for (const auto& v : invalid) {
    if (v.pointer == "/tp" || v.pointer == "/pp") {
      // Constraints of vLLM's model loading (layers split across ranks and stages).
      c.diags.push_back({pool_pointer + "/parallelism" + v.pointer, v.message, v.severity});
    } else {
      const std::string key = v.pointer.empty() ? std::string() : v.pointer.substr(1);
      c.diags.push_back({args_ptr + v.pointer,
                         "accepted by " + release +
                             " but not modelled by BLIS Playground's latency kernel: " + key + " " +
                             v.message,
                         v.severity});
    }
  }
  if (has_errors(invalid)) return;

  check_step_cost(d, pool, pool_pointer, c);
  kernel::KvCapacity k = kernel::kv_capacity(d);
  const bool weights_fit = k.weights_bytes <= k.total_memory_bytes;
  if (auto_fit && weights_fit) {
    if (!auto_fit_max_model_len(d, k, args_ptr, release, c)) return;
    k = kernel::kv_capacity(d);
    // The longest request that truly fits leaves the null block out.
    const std::int64_t room = (k.num_gpu_blocks - 1) * d.block_size;
    if (k.fits && room < d.max_model_len && room > 0) {
      d.max_model_len = room;
      k = kernel::kv_capacity(d);
    }
    a.max_model_len = static_cast<std::int32_t>(d.max_model_len);
  }
  if (weights_fit && !check_blocks_override(d, k, args_ptr, release, c)) return;
  // The kernel also checks the profiled memory when num_gpu_blocks_override is set (vLLM
  // plans against the override alone); it cannot price a cache it finds no room for.
  if (k.fits) {
    check_blocks(pool, pool_pointer, d, k, c);
    return;
  }
  std::string ptr;
  if (k.weights_bytes > k.total_memory_bytes) {
    ptr = pool_pointer + "/parallelism/tp";
  } else if (k.available_kv_bytes <= 0) {
    ptr =
        args_ptr + (a.kv_cache_memory_bytes ? "/kv_cache_memory_bytes" : "/gpu_memory_utilization");
  } else {
    ptr = args_ptr + "/max_model_len";
  }
  c.diags.push_back({ptr, "vLLM would not start " + pool.model + " on " + pool.hardware +
                              " (tp=" + std::to_string(pool.parallelism.tp) +
                              ", pp=" + std::to_string(pool.parallelism.pp) + "): " + k.reason});
}

}  // namespace blis::scenario::detail
