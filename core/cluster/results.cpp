#include "cluster/results.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace blis::cluster {

double WindowSample::percentile_ms(double p) const {
  // No sample is not 0 ms: NaN, which timeseries.json writes as null (a gap in a chart).
  if (values_.count() == 0) return std::numeric_limits<double>::quiet_NaN();
  return values_.percentile(p) / 1e3;
}

void LatencySet::clear() {
  *this = LatencySet{};
}

void Results::configure(std::size_t pools, std::size_t instances, bool per_request_rows) {
  cluster_.clear();
  pools_.assign(pools, LatencySet{});
  instances_.assign(instances, InstanceTally{});
  rows_.clear();
  per_request_ = per_request_rows;
  arrived_ = 0;
  window_ttft_.clear();
  window_itl_.clear();
  window_tokens_ = 0;
}

void Results::on_arrived(std::int32_t instance) {
  ++arrived_;
  ++instances_[static_cast<std::size_t>(instance)].routed;
}

void Results::on_first_token(SimTime ttft) {
  window_ttft_.add(ttft);
}

void Results::on_token_gap(std::int32_t pool, SimTime gap, std::int32_t count) {
  if (count <= 0) return;
  const auto n = static_cast<std::uint64_t>(count);
  cluster_.itl_us.add(static_cast<double>(gap), n);
  pools_[static_cast<std::size_t>(pool)].itl_us.add(static_cast<double>(gap), n);
  window_itl_.add(gap, count);
}

void Results::on_routed(std::int32_t instance) {
  ++instances_[static_cast<std::size_t>(instance)].routed;
}

void Results::on_prefill_done(const RequestRecord& r, std::int32_t pool, SimTime at) {
  LatencySet& set = pools_[static_cast<std::size_t>(pool)];
  set.ttft_ms.add(to_millis(at - r.sent));
  set.e2e_ms.add(to_millis(at - r.sent));
  if (r.first_scheduled != kUnset && r.engine_arrival != kUnset)
    set.queue_ms.add(to_millis(r.first_scheduled - r.engine_arrival));
  ++set.finished;
  ++set.good;
  set.input_tokens += r.gen.prompt_token_ids.size();
  set.output_tokens += 1;
  set.first_sent = std::min(set.first_sent, r.sent);
  set.last_finish = std::max(set.last_finish, at);
  InstanceTally& it = instances_[static_cast<std::size_t>(r.instance)];
  ++it.finished;
  it.ttft_ms.add(to_millis(at - r.sent));
  it.e2e_ms.add(to_millis(at - r.sent));
}

void Results::record(LatencySet& set, const RequestRecord& r, bool good) {
  const SimTime ttft = r.first_token - r.sent;
  const SimTime e2e = r.finish - r.sent;
  set.ttft_ms.add(to_millis(ttft));
  set.e2e_ms.add(to_millis(e2e));
  if (r.output_tokens > 1) {
    set.tpot_ms.add(to_millis(e2e - ttft) / static_cast<double>(r.output_tokens - 1));
  }
  if (r.first_scheduled != kUnset && r.engine_arrival != kUnset) {
    set.queue_ms.add(to_millis(r.first_scheduled - r.engine_arrival));
  }
  ++set.finished;
  if (good) ++set.good;
  set.input_tokens += r.gen.prompt_token_ids.size();
  set.output_tokens += static_cast<std::uint64_t>(r.output_tokens);
  set.first_sent = std::min(set.first_sent, r.sent);
  set.last_finish = std::max(set.last_finish, r.finish);
}

void Results::on_finished(const RequestRecord& r, std::int32_t pool, bool good) {
  record(cluster_, r, good);
  record(pools_[static_cast<std::size_t>(pool)], r, good);
  InstanceTally& it = instances_[static_cast<std::size_t>(r.instance)];
  ++it.finished;
  it.ttft_ms.add(to_millis(r.first_token - r.sent));
  it.e2e_ms.add(to_millis(r.finish - r.sent));
  if (per_request_) {
    rows_.push_back(RequestRow{r.gen.seq, r.gen.client, r.instance, r.sent, r.first_token, r.finish,
                               static_cast<std::int32_t>(r.gen.prompt_token_ids.size()),
                               r.cached_tokens, r.output_tokens, r.preemptions,
                               RequestOutcome::kFinished});
  }
}

void Results::on_unanswered(const RequestRecord& r, std::int32_t pool, RequestOutcome outcome) {
  const bool rejected = outcome == RequestOutcome::kRejected;
  LatencySet& p = pools_[static_cast<std::size_t>(pool)];
  InstanceTally& i = instances_[static_cast<std::size_t>(r.instance)];
  ++(rejected ? cluster_.rejected : cluster_.aborted);
  ++(rejected ? p.rejected : p.aborted);
  ++(rejected ? i.rejected : i.aborted);
  if (per_request_) {
    rows_.push_back(RequestRow{r.gen.seq, r.gen.client, r.instance, r.sent, r.first_token, r.finish,
                               static_cast<std::int32_t>(r.gen.prompt_token_ids.size()),
                               r.cached_tokens, r.output_tokens, r.preemptions, outcome});
  }
}

void Results::on_kv_usage(std::int32_t instance, SimTime t, double usage) {
  InstanceTally& it = instances_[static_cast<std::size_t>(instance)];
  if (t > it.kv_since) {
    it.kv_integral += it.kv_current * static_cast<double>(t - it.kv_since);
    it.kv_since = t;
  }
  it.kv_current = usage;
  it.kv_max = std::max(it.kv_max, usage);
}

void Results::close(SimTime end) {
  for (std::size_t i = 0; i < instances_.size(); ++i) {
    on_kv_usage(static_cast<std::int32_t>(i), end, instances_[i].kv_current);
  }
}

std::int64_t Results::take_window_tokens() {
  const std::int64_t n = window_tokens_;
  window_tokens_ = 0;
  return n;
}

}  // namespace blis::cluster
