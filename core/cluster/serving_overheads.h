#pragma once
// Per-request work a vLLM server does outside the engine's forward passes, as calibrated
// coefficients (catalog/coefficients, see docs/cluster.md):
//  - before the engine: the OpenAI API server receives the HTTP request and tokenizes the
//    prompt (vllm/entrypoints/openai/serving_completion.py, then AsyncLLM.add_request), so the
//    request reaches EngineCore `request_us + tokenize_per_token_us * prompt_tokens` after the
//    client sent it;
//  - after each step: the API server's output handler detokenizes and streams every request's
//    new tokens (vllm/v1/engine/output_processor.py OutputProcessor.process_outputs). It is one
//    asyncio loop per server, so it is modelled as a single server per instance that spends
//    `output_step_us + output_per_request_us * requests` per step output; a token reaches
//    the client when that work is done.

#include <string>

namespace blis::cluster {

struct ServingOverheads {
  double request_us = 0;             // HTTP handling + request setup, per request
  double tokenize_per_token_us = 0;  // per prompt token
  double output_step_us = 0;         // per step output handled by the API server
  double output_per_request_us = 0;  // per request with new tokens in that output
  std::string source;                // where these values come from (provenance)
};

}  // namespace blis::cluster
