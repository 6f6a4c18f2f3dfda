#include "engine/vllm/metrics/buckets.h"

namespace blis::vllm::metrics {

// vllm/v1/metrics/buckets.py REQUEST_LATENCY_BUCKETS (the same list as the inline
// request_latency_buckets of loggers.py PrometheusStatLogger.__init__).
const std::vector<double>& request_latency_buckets() {
  static const std::vector<double> b = {0.3,  0.5,   0.8,   1.0,   1.5,   2.0,    2.5,
                                        5.0,  10.0,  15.0,  20.0,  30.0,  40.0,   50.0,
                                        60.0, 120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0};
  return b;
}

// buckets.py TIME_TO_FIRST_TOKEN_BUCKETS.
const std::vector<double>& time_to_first_token_buckets() {
  static const std::vector<double> b = {0.001, 0.005, 0.01, 0.02,  0.04,  0.06,  0.08, 0.1,
                                        0.25,  0.5,   0.75, 1.0,   2.5,   5.0,   7.5,  10.0,
                                        20.0,  40.0,  80.0, 160.0, 640.0, 2560.0};
  return b;
}

// buckets.py INTER_TOKEN_LATENCY_BUCKETS.
const std::vector<double>& inter_token_latency_buckets() {
  static const std::vector<double> b = {0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2,  0.3,  0.4, 0.5,
                                        0.75, 1.0,   2.5,  5.0,   7.5, 10.0, 20.0, 40.0, 80.0};
  return b;
}

// buckets.py ITERATION_TOKENS_BUCKETS.
const std::vector<double>& iteration_tokens_buckets() {
  static const std::vector<double> b = {1,   8,    16,   32,   64,   128,  256,
                                        512, 1024, 2048, 4096, 8192, 16384};
  return b;
}

// buckets.py REQUEST_PARAMS_N_BUCKETS.
const std::vector<double>& request_params_n_buckets() {
  static const std::vector<double> b = {1, 2, 5, 10, 20};
  return b;
}

// buckets.py build_buckets: returns as soon as one mantissa times the current power of ten
// exceeds max_value, so the list never skips ahead.
std::vector<double> build_buckets(const std::vector<std::int64_t>& mantissas,
                                  std::int64_t max_value) {
  std::vector<double> buckets;
  if (mantissas.empty()) return buckets;
  std::int64_t scale = 1;
  while (true) {
    for (std::int64_t m : mantissas) {
      const std::int64_t value = m * scale;
      if (value > max_value) return buckets;
      buckets.push_back(static_cast<double>(value));
    }
    if (scale > max_value) return buckets;  // cannot happen with positive mantissas; no overflow
    scale *= 10;
  }
}

std::vector<double> build_1_2_5_buckets(std::int64_t max_value) {
  return build_buckets({1, 2, 5}, max_value);
}

}  // namespace blis::vllm::metrics
