#pragma once
// DrafterCost: what proposing the next drafts of speculative decoding adds to a step. vLLM's
// GPU model runner proposes drafts right after sampling, inside the same execute step
// (vllm v1/worker/gpu_model_runner.py propose_draft_token_ids), so the drafter's time is on
// the step's critical path. Verification itself (1 + k tokens per decode request) needs
// nothing here: the step pricer prices the scheduled tokens.
//
// Three drafters (docs/latency-model.md "Speculative decoding"):
//  - n-gram: a CPU search of each sampling request's token history (no GPU work);
//  - a draft model: its own forward passes, priced by the same kernel on the draft model's
//    catalog shape: one pass over the step's tokens, then k - 1 passes of one token per
//    sampling request (vllm v1/spec_decode/llm_base_proposer.py
//    SpecDecodeBaseProposer.propose: the first forward, then the num_speculative_tokens - 1
//    loop);
//  - an EAGLE / EAGLE-3 / MTP head: the same passes on one decoder layer of the target's
//    shape plus its LM head (eagle_head_deployment).

#include <cstdint>
#include <memory>
#include <string>

#include "engine/engine.h"
#include "kernel/deployment.h"
#include "kernel/step_pricer.h"

namespace blis::kernel {

// n-gram proposer coefficients (vllm v1/spec_decode/ngram_proposer.py batch_propose_numba:
// a KMP scan over each request's whole token history, compiled by numba, on one thread by
// default: num_numba_thread_available = min(1, cpu_count // 2)). ESTIMATES, not measured:
struct NgramCoefficients {
  // Python side of NgramProposer.propose per step (building the valid-request list, the
  // numba call, copying drafts out): about the cost of a few small NumPy calls.
  double step_us = 15.0;
  // Per sampling request: its slice of token_ids_cpu and the draft copy.
  double per_request_us = 1.0;
  // Per history token scanned: a compiled loop of a few integer compares (~3 ns on a
  // server core).
  double per_token_us = 0.003;
};

class DrafterCost {
 public:
  enum class Kind { kNone, kNgram, kPasses };

  DrafterCost() = default;  // no drafter: costs nothing
  static DrafterCost ngram(std::int32_t k, NgramCoefficients c = {});
  // k draft passes of `drafter` (a draft model's deployment, or eagle_head_deployment()).
  static DrafterCost passes(const Deployment& drafter, std::int32_t k);

  Kind kind() const { return kind_; }
  // Microseconds the drafter adds to the step that ran `target` (0 when no request samples).
  double price_us(const engine::Batch& target) const;

 private:
  Kind kind_ = Kind::kNone;
  std::int32_t k_ = 0;
  NgramCoefficients ngram_;
  std::shared_ptr<const StepPricer> pricer_;
  double host_step_us_ = 0, host_per_request_us_ = 0;
  mutable engine::Batch scratch_;  // the one-token passes (reused: no per-step allocation)
  double pass_us(const engine::Batch& b) const;
};

// An EAGLE / MTP head as the kernel prices it: the target with one decoder layer (its
// layer 0's attention and MLP kind) and the target's LM head. ESTIMATE: EAGLE-1/3 heads are
// one Llama-style layer fed the target's hidden states (vllm model_executor/models/
// llama_eagle.py, llama_eagle3.py); DeepSeek MTP is one full decoder layer
// (deepseek_mtp.py); the fusion projection (2h -> h) is not priced.
Deployment eagle_head_deployment(const Deployment& target);

}  // namespace blis::kernel
