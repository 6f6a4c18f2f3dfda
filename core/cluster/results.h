#pragma once
// Results: what a run measured, accumulated as it goes. Latencies are defined the way
// inference-perf and vLLM's benchmarks define them, from the client's side:
//   TTFT = first token received - request sent (arrival at the server)
//   ITL  = gap between consecutive output tokens received (every gap of every request)
//   TPOT = (E2E - TTFT) / (output tokens - 1), per request with more than one token
//   E2E  = last token received - request sent
//   queue = first scheduled by the engine - arrival at the engine (vLLM's queued interval)
// Percentiles are numpy's linear interpolation, exact up to Percentiles::kExactLimit distinct
// values and within Percentiles::kRelativeError beyond (util/percentiles.h).

#include <cstdint>
#include <string>
#include <vector>

#include "cluster/request_table.h"
#include "util/percentiles.h"
#include "util/sim_time.h"
#include "util/stats.h"

namespace blis::cluster {

// How a request ended: answered, given up by its client (aborted), or refused by the API
// server before it reached the engine (rejected, HTTP 400).
enum class RequestOutcome : std::uint8_t { kFinished, kAborted, kRejected };

// The latency distributions of one scope (the cluster, a pool).
struct LatencySet {
  Percentiles ttft_ms, e2e_ms, tpot_ms, queue_ms;
  Percentiles itl_us;  // µs: whole numbers, so the runs stay few (one per distinct gap)
  std::uint64_t finished = 0, aborted = 0, rejected = 0, good = 0;
  std::uint64_t input_tokens = 0, output_tokens = 0;
  SimTime first_sent = kSimTimeNever, last_finish = 0;
  void clear();
};

// One request that ended (any outcome), for requests.csv.
struct RequestRow {
  std::uint64_t seq = 0;
  std::int32_t client = 0, instance = 0;
  SimTime sent = 0, first_token = kUnset, finish = 0;
  std::int32_t prompt_tokens = 0, cached_tokens = 0, output_tokens = 0, preemptions = 0;
  RequestOutcome outcome = RequestOutcome::kFinished;
};

// The values (µs) of one tumbling time-series window, reported in ms.
class WindowSample {
 public:
  void add(std::int64_t v, std::int32_t times = 1) {
    if (times > 0) values_.add(static_cast<double>(v), static_cast<std::uint64_t>(times));
  }
  // The percentile in ms; NaN when the window has no sample.
  double percentile_ms(double p) const;
  void clear() { values_.clear(); }

 private:
  Percentiles values_;
};

// Per-instance figures the engine does not keep.
struct InstanceTally {
  std::uint64_t routed = 0, finished = 0, aborted = 0, rejected = 0;
  RunningStats ttft_ms, e2e_ms;
  // Time-weighted KV usage: integral of usage over time, and the current value.
  double kv_integral = 0, kv_current = 0, kv_max = 0;
  SimTime kv_since = 0;
};

class Results {
 public:
  void configure(std::size_t pools, std::size_t instances, bool per_request_rows);
  void on_arrived(std::int32_t instance);
  // The request arrived at the gateway and waits there (EPP flow control): counted as arrived;
  // on_routed() counts it on the instance it is dispatched to.
  void on_gateway_arrived() { ++arrived_; }
  // P/D: the request was sent on to a decode instance (counted as routed there, not arrived).
  void on_routed(std::int32_t instance);
  // P/D: the prefill leg of `r` answered the proxy at `at`. The prefill pool's latency set
  // records it as a finished request: TTFT = E2E = `at` - sent, its queue time, the prompt
  // as input and the one token as output.
  void on_prefill_done(const RequestRecord& r, std::int32_t pool, SimTime at);
  void on_first_token(SimTime ttft);
  void on_token_gap(std::int32_t pool, SimTime gap, std::int32_t count = 1);
  void on_tokens(std::int64_t n) { window_tokens_ += n; }
  // A request finished at r.finish; `good` says it met every SLO target of its class.
  void on_finished(const RequestRecord& r, std::int32_t pool, bool good);
  // The request ended without an answer: `outcome` is kAborted or kRejected.
  void on_unanswered(const RequestRecord& r, std::int32_t pool, RequestOutcome outcome);
  void on_kv_usage(std::int32_t instance, SimTime t, double usage);
  // Closes the time-weighted KV integrals at the end of the run.
  void close(SimTime end);

  const LatencySet& cluster() const { return cluster_; }
  const LatencySet& pool(std::size_t p) const { return pools_[p]; }
  const InstanceTally& instance(std::size_t i) const { return instances_[i]; }
  const std::vector<RequestRow>& rows() const { return rows_; }
  std::uint64_t arrived() const { return arrived_; }

  // The tumbling window the time series reports (values since the last sample).
  WindowSample& window_ttft() { return window_ttft_; }
  WindowSample& window_itl() { return window_itl_; }
  std::int64_t take_window_tokens();

 private:
  LatencySet cluster_;
  std::vector<LatencySet> pools_;
  std::vector<InstanceTally> instances_;
  std::vector<RequestRow> rows_;
  bool per_request_ = true;
  std::uint64_t arrived_ = 0;
  WindowSample window_ttft_, window_itl_;
  std::int64_t window_tokens_ = 0;
  void record(LatencySet& set, const RequestRecord& r, bool good);
};

}  // namespace blis::cluster
