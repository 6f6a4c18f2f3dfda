#pragma once
// vllm/v1/metrics/loggers.py LoggingStatLogger: the line vLLM logs every
// VLLM_LOG_STATS_INTERVAL seconds ("Engine 000: Avg prompt throughput: ..."), plus the
// spec-decode line (spec_decode/metrics.py SpecDecodingLogging). Time is passed in.

#include <cstdint>
#include <string>
#include <vector>

#include "engine/vllm/metrics/caching_metrics.h"
#include "engine/vllm/metrics/stats.h"
#include "util/sim_time.h"

namespace blis::vllm::metrics {

// What one log() call prints.
struct LogRecord {
  // vLLM logs at DEBUG when this and the previous interval had no prompt and no generation
  // throughput (an idle engine), at INFO otherwise.
  bool debug = false;
  std::string line;              // the stats line
  std::string spec_decode_line;  // empty unless drafts were observed since the last one
};

// spec_decode/metrics.py SpecDecodingLogging: accumulates SpecDecodingStats between logs.
class SpecDecodingLogging {
 public:
  explicit SpecDecodingLogging(SimTime now) { reset(now); }
  void observe(const SpecDecodingStats& stats);
  // The line, or "" when nothing was drafted (then nothing is reset either).
  std::string log(SimTime now);

 private:
  void reset(SimTime now);
  std::int64_t num_steps_ = 0;  // observations since the last reset
  std::int64_t num_drafts_ = 0, num_draft_tokens_ = 0, num_accepted_tokens_ = 0;
  std::vector<std::int64_t> accepted_per_pos_;
  SimTime last_log_time_ = 0;
};

class LoggingStatLogger {
 public:
  LoggingStatLogger(std::int32_t engine_index, SimTime now,
                    std::int64_t max_recent_requests = 1000);

  void record(const SchedulerStats* scheduler_stats, const IterationStats* iteration_stats);
  LogRecord log(SimTime now);

  const CachingMetrics& prefix_caching_metrics() const { return prefix_caching_metrics_; }

 private:
  void reset(SimTime now);
  double throughput(std::int64_t tokens, SimTime now) const;

  std::int32_t engine_index_;
  SimTime last_log_time_ = 0;
  std::int64_t num_prompt_tokens_ = 0;  // computed prompt tokens (cache hits left out)
  std::int64_t num_generation_tokens_ = 0;
  std::int64_t num_preemptions_ = 0;
  SchedulerStats last_scheduler_stats_;
  CachingMetrics prefix_caching_metrics_;
  CachingMetrics connector_prefix_caching_metrics_;
  SpecDecodingLogging spec_decoding_logging_;
  double last_prompt_throughput_ = 0;
  double last_generation_throughput_ = 0;
  bool engine_is_idle_ = false;
};

}  // namespace blis::vllm::metrics
