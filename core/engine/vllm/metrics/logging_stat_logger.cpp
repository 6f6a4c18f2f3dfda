#include "engine/vllm/metrics/logging_stat_logger.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace blis::vllm::metrics {
namespace {

// printf-style formatting of one double, with Python's spelling of non-finite values: C
// printf writes the sign of a NaN ("-nan" for x86's default NaN), Python writes "nan".
void append_format(std::string& out, const char* fmt, double v) {
  char buf[64];
  if (std::isnan(v) || std::isinf(v)) {
    const char* word = std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
    // Replace the single %.Nf conversion of `fmt` with the word.
    std::string f = fmt;
    const std::size_t pct = f.find('%');
    std::size_t end = pct + 1;
    while (end < f.size() && f[end] != 'f') ++end;
    f.replace(pct, end - pct + 1, word);
    for (std::size_t i = 0; i + 1 < f.size(); ++i) {
      if (f[i] == '%' && f[i + 1] == '%') f.erase(i, 1);
    }
    out += f;
    return;
  }
  std::snprintf(buf, sizeof buf, fmt, v);
  out += buf;
}

void append_int(std::string& out, const char* fmt, long long v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  out += buf;
}

}  // namespace

void SpecDecodingLogging::reset(SimTime now) {
  num_steps_ = 0;
  num_drafts_ = 0;
  num_draft_tokens_ = 0;
  num_accepted_tokens_ = 0;
  accepted_per_pos_.assign(accepted_per_pos_.size(), 0);
  last_log_time_ = now;
}

void SpecDecodingLogging::observe(const SpecDecodingStats& stats) {
  ++num_steps_;
  num_drafts_ += stats.num_drafts;
  num_draft_tokens_ += stats.num_draft_tokens;
  num_accepted_tokens_ += stats.num_accepted_tokens;
  if (accepted_per_pos_.size() < stats.num_accepted_tokens_per_pos.size())
    accepted_per_pos_.resize(stats.num_accepted_tokens_per_pos.size(), 0);
  for (std::size_t i = 0; i < stats.num_accepted_tokens_per_pos.size(); ++i)
    accepted_per_pos_[i] += stats.num_accepted_tokens_per_pos[i];
}

// SpecDecodingLogging.log: nothing (and no reset) until at least one step was observed, so
// the throughputs then cover the whole time since the last printed line.
std::string SpecDecodingLogging::log(SimTime now) {
  if (num_steps_ == 0) return "";
  double draft_throughput = 0, accepted_throughput = 0;
  const double elapsed = to_seconds(now - last_log_time_);
  if (elapsed > 0) {
    draft_throughput = static_cast<double>(num_draft_tokens_) / elapsed;
    accepted_throughput = static_cast<double>(num_accepted_tokens_) / elapsed;
  }
  const double nan = std::numeric_limits<double>::quiet_NaN();  // float("nan")
  const double draft_acceptance_rate =
      num_draft_tokens_ > 0
          ? static_cast<double>(num_accepted_tokens_) / static_cast<double>(num_draft_tokens_) * 100
          : nan;
  // Conventionally the mean acceptance length includes the bonus token. numpy divides by
  // zero drafts to inf/nan; so does IEEE arithmetic here.
  const double drafts = static_cast<double>(num_drafts_);
  const double mean_acceptance_length = 1 + static_cast<double>(num_accepted_tokens_) / drafts;
  std::string out = "SpecDecoding metrics: ";
  append_format(out, "Mean acceptance length: %.2f, ", mean_acceptance_length);
  append_format(out, "Accepted throughput: %.2f tokens/s, ", accepted_throughput);
  append_format(out, "Drafted throughput: %.2f tokens/s, ", draft_throughput);
  append_int(out, "Accepted: %lld tokens, ", static_cast<long long>(num_accepted_tokens_));
  append_int(out, "Drafted: %lld tokens, ", static_cast<long long>(num_draft_tokens_));
  out += "Per-position acceptance rate: ";
  for (std::size_t i = 0; i < accepted_per_pos_.size(); ++i) {
    if (i > 0) out += ", ";
    append_format(out, "%.3f", static_cast<double>(accepted_per_pos_[i]) / drafts);
  }
  out += ", ";
  append_format(out, "Avg Draft acceptance rate: %.1f%%", draft_acceptance_rate);
  reset(now);
  return out;
}

LoggingStatLogger::LoggingStatLogger(std::int32_t engine_index, SimTime now,
                                     std::int64_t max_recent_requests)
    : engine_index_(engine_index),
      prefix_caching_metrics_(max_recent_requests),
      connector_prefix_caching_metrics_(max_recent_requests),
      spec_decoding_logging_(now) {
  reset(now);
}

void LoggingStatLogger::reset(SimTime now) {
  last_log_time_ = now;
  num_prompt_tokens_ = 0;
  num_generation_tokens_ = 0;
  num_preemptions_ = 0;
}

// LoggingStatLogger.record / _track_iteration_stats. The prompt throughput counts computed
// prompt tokens only (PromptTokenStats.computed: cached and transferred tokens left out).
void LoggingStatLogger::record(const SchedulerStats* s, const IterationStats* it) {
  if (it != nullptr) {
    num_prompt_tokens_ += it->prompt_token_stats.computed;
    num_generation_tokens_ += it->num_generation_tokens;
    num_preemptions_ += it->num_preempted_reqs;
  }
  if (s == nullptr) return;
  prefix_caching_metrics_.observe(s->prefix_cache_stats);
  if (s->has_connector_prefix_cache_stats)
    connector_prefix_caching_metrics_.observe(s->connector_prefix_cache_stats);
  if (s->has_spec_decoding_stats) spec_decoding_logging_.observe(s->spec_decoding_stats);
  last_scheduler_stats_ = *s;
}

double LoggingStatLogger::throughput(std::int64_t tokens, SimTime now) const {
  const double delta = to_seconds(now - last_log_time_);
  if (delta <= 0.0) return 0.0;
  return static_cast<double>(tokens) / delta;
}

// LoggingStatLogger.log.
LogRecord LoggingStatLogger::log(SimTime now) {
  // _update_stats: throughputs over the interval, then _reset(now).
  const double prompt_throughput = throughput(num_prompt_tokens_, now);
  const double generation_throughput = throughput(num_generation_tokens_, now);
  reset(now);
  engine_is_idle_ = prompt_throughput == 0 && generation_throughput == 0 &&
                    last_prompt_throughput_ == 0 && last_generation_throughput_ == 0;
  last_generation_throughput_ = generation_throughput;
  last_prompt_throughput_ = prompt_throughput;

  LogRecord record;
  record.debug = engine_is_idle_;
  const SchedulerStats& s = last_scheduler_stats_;
  std::string& out = record.line;
  append_int(out, "Engine %03lld: ", static_cast<long long>(engine_index_));
  append_format(out, "Avg prompt throughput: %.1f tokens/s, ", last_prompt_throughput_);
  append_format(out, "Avg generation throughput: %.1f tokens/s, ", last_generation_throughput_);
  append_int(out, "Running: %lld reqs, ", s.num_running_reqs);
  append_int(out, "Waiting: %lld reqs, ",
             static_cast<long long>(s.num_waiting_reqs) + s.num_skipped_waiting_reqs);
  if (s.num_skipped_waiting_reqs > 0)
    append_int(out, "Deferred: %lld reqs, ", s.num_skipped_waiting_reqs);
  // vLLM checks num_preemptions after _update_stats has already reset it to zero, so the
  // "Preemptions: N" field never prints; kept as vLLM has it.
  if (num_preemptions_ > 0)
    append_int(out, "Preemptions: %lld, ", static_cast<long long>(num_preemptions_));
  append_format(out, "GPU KV cache usage: %.1f%%, ", s.kv_cache_usage * 100);
  append_format(out, "Prefix cache hit rate: %.1f%%", prefix_caching_metrics_.hit_rate() * 100);
  if (!connector_prefix_caching_metrics_.empty()) {
    append_format(out, ", External prefix cache hit rate: %.1f%%",
                  connector_prefix_caching_metrics_.hit_rate() * 100);
  }
  record.spec_decode_line = spec_decoding_logging_.log(now);
  return record;
}

}  // namespace blis::vllm::metrics
