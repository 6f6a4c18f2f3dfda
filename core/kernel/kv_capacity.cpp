#include "kernel/kv_capacity.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "util/units.h"

namespace blis::kernel {

namespace {

std::int64_t cdiv(std::int64_t a, std::int64_t b) {
  return (a + b - 1) / b;
}

std::string gib(std::int64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", util::to_gib(bytes));
  return buf;
}

// The attention layers of one pipeline stage by KV-cache spec (vLLM's FullAttentionSpec,
// SlidingWindowSpec, ChunkedLocalAttentionSpec).
struct StageLayers {
  std::int32_t full = 0, sliding = 0, chunked = 0;
  std::int64_t weight_bytes = 0;
};

// Blocks one request of `len` tokens holds in one layer of a kind
// (kv_cache_interface.py max_admission_blocks_per_request): full attention caches every
// token; a sliding window min(window - 1 + max_num_batched_tokens, len) tokens plus one
// block; chunked local attention min(chunk + max_num_batched_tokens, len) tokens.
std::int64_t layer_blocks(catalog::AttentionKind kind, std::int64_t len, const Deployment& d,
                          std::int32_t window) {
  using catalog::AttentionKind;
  if (kind == AttentionKind::kSliding) {
    const std::int64_t tokens = std::min<std::int64_t>(window - 1 + d.max_num_batched_tokens, len);
    return cdiv(tokens, d.block_size) + 1;
  }
  if (kind == AttentionKind::kChunked) {
    return cdiv(std::min<std::int64_t>(window + d.max_num_batched_tokens, len), d.block_size);
  }
  return cdiv(len, d.block_size);
}

// The KV-cache groups of a stage (kv_cache_utils.py _get_kv_cache_groups_uniform_page_size):
// one bucket of layers per spec; each group holds group_size layers, the smallest bucket's
// count (the largest's when it is below 1.5x the smallest); a bucket that does not divide is
// padded. All groups draw block ids from one shared pool.
struct Grouping {
  std::int32_t group_size = 1;
  std::int32_t groups[3] = {0, 0, 0};  // per kind: full, sliding, chunked
  std::int32_t total() const { return groups[0] + groups[1] + groups[2]; }
};

Grouping group_layers(const StageLayers& st) {
  const std::int32_t counts[3] = {st.full, st.sliding, st.chunked};
  std::int32_t lo = 0, hi = 0;
  for (std::int32_t c : counts) {
    if (c == 0) continue;
    lo = lo == 0 ? c : std::min(lo, c);
    hi = std::max(hi, c);
  }
  Grouping g;
  g.group_size = std::max(1, hi < lo * 1.5 ? hi : lo);
  for (int i = 0; i < 3; ++i) {
    g.groups[i] = static_cast<std::int32_t>(cdiv(counts[i], g.group_size));
  }
  return g;
}

// Pool blocks one request of `len` tokens takes, summed over the groups
// (get_max_concurrency_for_kv_cache_config).
std::int64_t request_blocks(const Grouping& g, std::int64_t len, const Deployment& d,
                            std::int32_t window) {
  using catalog::AttentionKind;
  return g.groups[0] * layer_blocks(AttentionKind::kFull, len, d, window) +
         g.groups[1] * layer_blocks(AttentionKind::kSliding, len, d, window) +
         g.groups[2] * layer_blocks(AttentionKind::kChunked, len, d, window);
}

// Bytes one request of `len` tokens needs (max_memory_usage_bytes over the groups).
std::int64_t request_usage(const Grouping& g, std::int64_t len, const Deployment& d,
                           std::int32_t window, std::int64_t page) {
  return request_blocks(g, len, d, window) * g.group_size * page;
}

}  // namespace

// vllm/distributed/utils.py get_pp_indices: L // pp layers per stage, the remainder going to
// the stages before the last one.
std::vector<std::pair<std::int32_t, std::int32_t>> stage_ranges(std::int32_t layers,
                                                                std::int32_t pp) {
  std::vector<std::int32_t> counts(pp, layers / pp);
  const std::int32_t remaining = layers % pp;
  for (std::int32_t i = 2; i < remaining + 2; ++i) counts[pp - i] += 1;
  std::vector<std::pair<std::int32_t, std::int32_t>> out;
  std::int32_t start = 0;
  for (std::int32_t c : counts) {
    out.emplace_back(start, start + c);
    start += c;
  }
  return out;
}

std::int64_t kv_bytes_per_token(const Deployment& d) {
  const ModelShape s = build_model_shape(d);
  return s.kv_bytes_per_token_per_layer * s.layers / std::max(1, d.pp);
}

namespace {

// Why the deployment would not start, in vLLM's order: loading the weights, then
// check_enough_kv_cache_memory; "" when it starts.
std::string start_failure(const KvCapacity& k, const Deployment& d) {
  if (k.weights_bytes > k.total_memory_bytes) {
    return "model weights need " + gib(k.weights_bytes) +
           " GiB per GPU at tp=" + std::to_string(d.tp) + ", more than the " +
           gib(k.total_memory_bytes) + " GiB the " + d.gpu.id +
           " reports (vLLM fails to load the model: CUDA out of memory); use a larger "
           "tensor-parallel size or a quantized checkpoint";
  } else if (k.available_kv_bytes <= 0) {
    return "no memory left for the KV cache: " + gib(k.requested_memory_bytes) +
           " GiB requested (gpu_memory_utilization " +
           [&] {
             char b[16];
             std::snprintf(b, sizeof b, "%g", d.gpu_memory_utilization);
             return std::string(b);
           }() +
           ") - weights " + gib(k.weights_bytes) + " - activations " +
           gib(k.activation_peak_bytes) + " - non-torch " + gib(k.non_torch_bytes) +
           " - CUDA graphs " + gib(k.cuda_graph_bytes) +
           " GiB. vLLM: No available memory for the cache blocks. Try increasing "
           "`gpu_memory_utilization` when initializing the engine.";
  } else if (k.kv_bytes_for_max_model_len > k.available_kv_bytes) {
    // vllm/v1/core/kv_cache_utils.py check_enough_kv_cache_memory
    return "To serve at least one request with the models's max seq len (" +
           std::to_string(k.max_model_len) + "), (" + gib(k.kv_bytes_for_max_model_len) +
           " GiB KV cache is needed, which is larger than the available KV cache memory (" +
           gib(k.available_kv_bytes) +
           " GiB). Based on the available memory, the estimated maximum model length is " +
           std::to_string(k.estimated_max_model_len) +
           ". Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when "
           "initializing the engine.";
  }
  return "";
}

// vllm/v1/core/kv_cache_utils.py estimate_max_model_len: the longest request whose KV fits
// in `available` bytes, by bisection.
std::int64_t estimate_max_model_len(const Grouping& g, std::int64_t max_model_len,
                                    const Deployment& d, std::int32_t window,
                                    std::int64_t page_bytes, std::int64_t available) {
  std::int64_t lo = 0, hi = max_model_len;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    if (request_usage(g, mid, d, window, page_bytes) <= available) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

// The counts vLLM logs from the pool (k.pool_blocks) and the grouping, and zeros for a
// deployment that would not start (k.reason set).
void derive_counts(KvCapacity& k) {
  // get_max_concurrency_for_kv_cache_config: pool blocks over the pool blocks one
  // max_model_len request takes in all its groups; update_kv_cache_capacity logs
  // "GPU KV cache size" = int(max_concurrency * max_model_len) tokens.
  k.max_concurrency =
      k.pool_blocks_per_request > 0
          ? static_cast<double>(k.pool_blocks) / static_cast<double>(k.pool_blocks_per_request)
          : 0.0;
  k.kv_cache_tokens = static_cast<std::int64_t>(
      std::floor(k.max_concurrency * static_cast<double>(k.max_model_len)));
  // The blocks of one full-attention block table (what the single-group engine schedules
  // with): the pool for one group; for hybrid models the pool scaled by one group's share of
  // a max_model_len request, i.e. "GPU KV cache size" in blocks (vLLM 0.15 logged
  // num_blocks // num_groups, the same when the windows cover max_model_len).
  k.num_gpu_blocks = k.kv_cache_groups == 1 || k.pool_blocks_per_request == 0
                         ? k.pool_blocks
                         : k.pool_blocks * k.full_blocks_per_request / k.pool_blocks_per_request;
  k.fits = k.reason.empty();
  if (!k.fits) {
    k.num_gpu_blocks = 0;
    k.pool_blocks = 0;
    k.kv_cache_tokens = 0;
    k.max_concurrency = 0;
  }
}

}  // namespace

KvCapacity kv_capacity(const Deployment& d) {
  KvCapacity k;
  k.block_size = d.block_size;
  k.max_model_len = d.effective_max_model_len();
  const Diagnostics invalid = validate_deployment(d);
  if (has_errors(invalid)) {
    k.reason = format_diagnostic(invalid.front());
    return k;
  }
  const ModelShape s = build_model_shape(d);
  const catalog::Model& m = d.model;
  k.weights = s.weights;
  k.page_bytes = s.kv_bytes_per_token_per_layer * d.block_size;
  k.kv_bytes_per_token = s.kv_bytes_per_token_per_layer * s.layers / d.pp;
  k.total_memory_bytes = d.gpu.usable_memory_bytes;
  k.requested_memory_bytes = static_cast<std::int64_t>(
      static_cast<double>(d.gpu.usable_memory_bytes) * d.gpu_memory_utilization);

  // Per-layer weight bytes, to split the model into pipeline stages.
  std::int32_t dense_layers = s.layers - s.moe_layers;
  const WeightBytes& w = s.weights;
  const double attn_per_layer = static_cast<double>(w.attention) / s.layers;
  const double norms_per_layer = static_cast<double>(w.norms) / (2.0 * s.layers + 1.0) * 2.0;
  const double dense_per_layer =
      dense_layers > 0 ? static_cast<double>(w.dense_mlp) / dense_layers : 0.0;
  const double moe_per_layer =
      s.moe_layers > 0 ? static_cast<double>(w.experts + w.shared_experts + w.router) / s.moe_layers
                       : 0.0;

  MemoryProfile full_profile = estimate_memory_profile(d, s);
  k.profile = full_profile;
  const auto ranges = stage_ranges(s.layers, d.pp);
  std::int64_t best_blocks = std::numeric_limits<std::int64_t>::max();
  bool first = true;
  for (std::size_t si = 0; si < ranges.size(); ++si) {
    const bool last = si + 1 == ranges.size();
    StageLayers st;
    double wbytes = 0;
    for (std::int32_t i = ranges[si].first; i < ranges[si].second; ++i) {
      // Chunked local attention gets its own groups: the hybrid KV cache manager is on for
      // it by default (envs.py VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1).
      const auto kind = m.layer_attention_kind(i);
      if (kind == catalog::AttentionKind::kSliding) {
        ++st.sliding;
      } else if (kind == catalog::AttentionKind::kChunked) {
        ++st.chunked;
      } else {
        ++st.full;
      }
      wbytes +=
          attn_per_layer + norms_per_layer + (m.layer_is_moe(i) ? moe_per_layer : dense_per_layer);
    }
    // The embedding (and a vision tower) live on the first stage, the LM head and final
    // norm on the last; every stage builds its rotary cache.
    if (si == 0) wbytes += static_cast<double>(w.embedding + w.extra);
    if (last) {
      wbytes += static_cast<double>(w.lm_head) + static_cast<double>(s.hidden) * s.act_bytes;
      if (m.tie_word_embeddings && si != 0) wbytes += static_cast<double>(w.embedding);
    }
    wbytes += static_cast<double>(w.rotary_cache);
    st.weight_bytes = d.pp == 1 ? w.total() : static_cast<std::int64_t>(wbytes + 0.5);

    // Only the last stage runs the sampler in profile_run.
    MemoryProfile p = full_profile;
    if (!last) p.activation_peak_bytes = p.forward_peak_bytes;
    const std::int64_t available = d.kv_cache_memory_bytes
                                       ? *d.kv_cache_memory_bytes
                                       : k.requested_memory_bytes - st.weight_bytes -
                                             p.activation_peak_bytes - p.non_torch_bytes -
                                             p.cuda_graph_bytes;

    const Grouping g = group_layers(st);
    // get_num_blocks: available // page_size // num_layers (layers per group).
    const std::int64_t blocks = available > 0 ? available / k.page_bytes / g.group_size : 0;
    if (first || blocks < best_blocks) {
      first = false;
      best_blocks = blocks;
      k.weights_bytes = st.weight_bytes;
      k.activation_peak_bytes = p.activation_peak_bytes;
      k.non_torch_bytes = p.non_torch_bytes;
      k.cuda_graph_bytes = p.cuda_graph_bytes;
      k.available_kv_bytes = available;
      k.kv_cache_groups = g.total();
      k.layers_per_group = g.group_size;
      k.bytes_per_block = k.page_bytes * g.group_size;
      k.full_blocks_per_request = cdiv(k.max_model_len, d.block_size);
      k.pool_blocks_per_request = request_blocks(g, k.max_model_len, d, s.window);
      k.kv_bytes_for_max_model_len = request_usage(g, k.max_model_len, d, s.window, k.page_bytes);
      k.estimated_max_model_len =
          estimate_max_model_len(g, k.max_model_len, d, s.window, k.page_bytes, available);
    }
  }
  k.pool_blocks = best_blocks;

  k.reason = start_failure(k, d);
  // kv_cache_utils.py get_num_blocks: num_gpu_blocks_override replaces the computed count.
  if (d.num_gpu_blocks_override) k.pool_blocks = *d.num_gpu_blocks_override;
  derive_counts(k);
  return k;
}

}  // namespace blis::kernel
