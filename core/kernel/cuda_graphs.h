#pragma once
// CUDA graphs as vLLM sets them up for one deployment: which graph mode runs, the capture sizes
// (vllm/config/vllm.py VllmConfig._set_cudagraph_sizes), and which graph, if any, one step runs
// in (vllm/v1/cudagraph_dispatcher.py CudagraphDispatcher.dispatch). The step pricer and the
// start-up memory profile both read this plan, so the sizes are derived in one place.

#include <cstdint>
#include <vector>

#include "kernel/deployment.h"

namespace blis::kernel {

// vllm/config/compilation.py CUDAGraphMode. FULL_DECODE_ONLY and FULL_AND_PIECEWISE are the
// two-routine modes: a full graph for uniform decode batches, and (the latter) piecewise
// graphs for every other batch.
enum class CudaGraphMode { kNone, kPiecewise, kFull, kFullDecodeOnly, kFullAndPiecewise };

// How one step's forward pass runs.
enum class GraphRun { kEager, kPiecewise, kFull };

struct CudaGraphPlan {
  CudaGraphMode mode = CudaGraphMode::kNone;
  std::vector<std::int32_t> capture_sizes;  // ascending, distinct; empty: every step eager
  // Uniform decode batches get full graphs up to (1 + k) * max_num_seqs tokens
  // (CudagraphDispatcher.initialize_cudagraph_keys); 0 when the mode has no full decode graphs.
  std::int32_t decode_full_max_tokens = 0;
  std::int32_t decode_query_len = 1;  // 1 + k

  std::int32_t max_size() const { return capture_sizes.empty() ? 0 : capture_sizes.back(); }
  // The smallest captured size that holds `tokens` (the padded batch), or 0 above the largest.
  std::int32_t padded(std::int32_t tokens) const;
  // The graph a step of `tokens` tokens runs in; `uniform_decode`: every request decodes the
  // same number of tokens (1 + k).
  GraphRun dispatch(std::int32_t tokens, bool uniform_decode) const;
  // Graphs captured at start-up: those of mixed batches (piecewise, or full in FULL mode) and
  // the full graphs of uniform decode batches.
  std::int32_t mixed_graph_count() const;
  std::int32_t decode_graph_count() const;
};

// The mode named as vLLM names it (upper case); kFullAndPiecewise for an unknown name (the rules
// pack refuses those before a deployment is built).
CudaGraphMode cuda_graph_mode_from_name(const std::string& name);

CudaGraphPlan plan_cuda_graphs(const Deployment& d);

}  // namespace blis::kernel
