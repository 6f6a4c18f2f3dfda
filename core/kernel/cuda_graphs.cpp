#include "kernel/cuda_graphs.h"

#include <algorithm>

namespace blis::kernel {

CudaGraphMode cuda_graph_mode_from_name(const std::string& name) {
  if (name == "NONE") return CudaGraphMode::kNone;
  if (name == "PIECEWISE") return CudaGraphMode::kPiecewise;
  if (name == "FULL") return CudaGraphMode::kFull;
  if (name == "FULL_DECODE_ONLY") return CudaGraphMode::kFullDecodeOnly;
  return CudaGraphMode::kFullAndPiecewise;
}

namespace {

bool has_full_decode(CudaGraphMode m) {
  return m == CudaGraphMode::kFullDecodeOnly || m == CudaGraphMode::kFullAndPiecewise;
}

// vllm/config/vllm.py _set_cudagraph_sizes, the branch without user sizes: 1, 2, 4 (or every
// size up to 32 with performance_mode interactivity), every 8 below 256, every 16 from 256, up
// to `cap`; max_num_batched_tokens itself when it is within the cap; sorted, distinct.
std::vector<std::int32_t> default_sizes(const Deployment& d, std::int32_t cap) {
  std::vector<std::int32_t> sizes;
  if (d.performance_mode == "interactivity") {
    for (std::int32_t n = 1; n <= std::min(cap, 32); ++n) sizes.push_back(n);
  } else {
    for (std::int32_t n : {1, 2, 4}) {
      if (n <= cap) sizes.push_back(n);
    }
  }
  if (cap >= 8) {
    for (std::int32_t n = 8; n < std::min(cap + 1, 256); n += 8) sizes.push_back(n);
  }
  if (cap >= 256) {
    for (std::int32_t n = 256; n <= cap; n += 16) sizes.push_back(n);
  }
  const std::int32_t mnbt = d.max_num_batched_tokens;
  if (mnbt <= cap) sizes.push_back(mnbt);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace

CudaGraphPlan plan_cuda_graphs(const Deployment& d) {
  CudaGraphPlan p;
  p.decode_query_len = 1 + std::max(0, d.num_speculative_tokens);
  // vllm/config/vllm.py VllmConfig.__post_init__: enforce_eager sets cudagraph_mode NONE, and
  // _set_cudagraph_sizes captures nothing then.
  p.mode = d.enforce_eager ? CudaGraphMode::kNone : cuda_graph_mode_from_name(d.cudagraph_mode);
  if (p.mode == CudaGraphMode::kNone) return p;
  const std::int32_t mnbt = d.max_num_batched_tokens;
  if (d.cudagraph_capture_sizes) {
    // User sizes: de-duplicated, those above max_num_batched_tokens dropped, sorted; the largest
    // left is the final max_cudagraph_capture_size. Sizes below 1 hold no batch (the rules
    // pack warns about them).
    for (std::int32_t n : *d.cudagraph_capture_sizes) {
      if (n >= 1 && n <= mnbt) p.capture_sizes.push_back(n);
    }
    std::sort(p.capture_sizes.begin(), p.capture_sizes.end());
    p.capture_sizes.erase(std::unique(p.capture_sizes.begin(), p.capture_sizes.end()),
                          p.capture_sizes.end());
  } else {
    // The largest size: the user's, else min(max_num_seqs * (1 + k) * 2, 512) (the catalog's
    // max_capture_size, vLLM's 512), then at most max_num_batched_tokens.
    std::int32_t cap = d.max_cudagraph_capture_size
                           ? *d.max_cudagraph_capture_size
                           : static_cast<std::int32_t>(std::min<std::int64_t>(
                                 static_cast<std::int64_t>(d.max_num_seqs) * p.decode_query_len * 2,
                                 d.memory_coefficients.max_cudagraph_capture_size));
    cap = std::min(cap, mnbt);
    if (cap >= 1) p.capture_sizes = default_sizes(d, cap);
  }
  if (has_full_decode(p.mode)) {
    p.decode_full_max_tokens = p.decode_query_len * d.max_num_seqs;
  }
  return p;
}

std::int32_t CudaGraphPlan::padded(std::int32_t tokens) const {
  const auto it = std::lower_bound(capture_sizes.begin(), capture_sizes.end(), tokens);
  return it == capture_sizes.end() ? 0 : *it;
}

GraphRun CudaGraphPlan::dispatch(std::int32_t tokens, bool uniform_decode) const {
  // CudagraphDispatcher.dispatch: no graph above max_cudagraph_capture_size; a uniform decode
  // batch whose padded size has a full decode graph replays it; otherwise the mixed mode's
  // graph (PIECEWISE keys for PIECEWISE / FULL_AND_PIECEWISE, FULL keys for FULL), none under
  // FULL_DECODE_ONLY.
  const std::int32_t pad = padded(tokens);
  if (mode == CudaGraphMode::kNone || pad == 0) return GraphRun::kEager;
  if (uniform_decode && decode_full_max_tokens > 0 && pad <= decode_full_max_tokens &&
      pad >= decode_query_len) {
    return GraphRun::kFull;
  }
  switch (mode) {
    case CudaGraphMode::kFull:
      return GraphRun::kFull;
    case CudaGraphMode::kPiecewise:
    case CudaGraphMode::kFullAndPiecewise:
      return GraphRun::kPiecewise;
    default:
      return GraphRun::kEager;
  }
}

std::int32_t CudaGraphPlan::mixed_graph_count() const {
  if (mode == CudaGraphMode::kNone || mode == CudaGraphMode::kFullDecodeOnly) return 0;
  return static_cast<std::int32_t>(capture_sizes.size());
}

std::int32_t CudaGraphPlan::decode_graph_count() const {
  std::int32_t n = 0;
  for (std::int32_t s : capture_sizes) {
    if (s <= decode_full_max_tokens && s >= decode_query_len) ++n;
  }
  return n;
}

}  // namespace blis::kernel
