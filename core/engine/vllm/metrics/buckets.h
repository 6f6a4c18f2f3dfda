#pragma once
// Histogram bucket boundaries of vLLM's core engine histograms
// (vllm/v1/metrics/buckets.py; before that file existed, the same lists were inline in
// vllm/v1/metrics/loggers.py PrometheusStatLogger.__init__).

#include <cstdint>
#include <vector>

namespace blis::vllm::metrics {

// e2e, queue, inference, prefill and decode time (REQUEST_LATENCY_BUCKETS).
const std::vector<double>& request_latency_buckets();
// vllm:time_to_first_token_seconds (TIME_TO_FIRST_TOKEN_BUCKETS).
const std::vector<double>& time_to_first_token_buckets();
// vllm:inter_token_latency_seconds and request_time_per_output_token_seconds.
const std::vector<double>& inter_token_latency_buckets();
// vllm:iteration_tokens_total (ITERATION_TOKENS_BUCKETS).
const std::vector<double>& iteration_tokens_buckets();
// vllm:request_params_n (REQUEST_PARAMS_N_BUCKETS).
const std::vector<double>& request_params_n_buckets();

// buckets.py build_buckets: every mantissa times 10^0, 10^1, ... while the value is at most
// max_value; stops at the first value above it. Empty when max_value < the first mantissa.
std::vector<double> build_buckets(const std::vector<std::int64_t>& mantissas,
                                  std::int64_t max_value);
// The token-count histograms' "1-2-5" series capped at max_model_len: 1, 2, 5, 10, 20, ...
std::vector<double> build_1_2_5_buckets(std::int64_t max_value);

}  // namespace blis::vllm::metrics
