// The time series: its columns (defined once at load) and one sample every interval.

#include <algorithm>
#include <string>
#include <vector>

#include "cluster/simulation_state.h"

namespace blis::cluster {

// Time-series columns: time, then per instance, then cluster-wide; then the added columns
// (docs/results.md), after the original ones.
void Simulation::State::define_series() {
  const std::size_t n = instances.size();
  std::vector<std::string> cols{"time_s"};
  for (const auto& inst : instances) {
    for (const char* c : {"kv_usage", "running", "waiting", "preempted_total"}) {
      cols.push_back(inst->name() + "." + c);
    }
  }
  for (const char* c :
       {"ttft_p50_ms", "ttft_p99_ms", "itl_p50_ms", "itl_p99_ms", "throughput_tokens_per_s"}) {
    cols.emplace_back(c);
  }
  const std::size_t xbase = cols.size();  // the added columns, after the original ones
  for (const auto& inst : instances) {
    for (const char* c : {"prefix_queries_total", "prefix_hits_total"}) {
      cols.push_back(inst->name() + "." + c);
    }
  }
  for (const char* c : {"prompt_tokens_per_s", "arrived_total", "finished_total", "aborted_total",
                        "rejected_total", "e2e_p50_ms", "e2e_p99_ms", "queue_p50_ms",
                        "queue_p99_ms", "kv_transfers_in_flight", "kv_transfer_blocks_total"}) {
    cols.emplace_back(c);
  }
  // Router epp with flow control: the requests its gateway holds (after every other column,
  // so runs without it keep their columns).
  if (router.flow() != nullptr) {
    col_flow_queued = cols.size();
    cols.emplace_back("epp_flow_queued");
  }
  series.define(cols);
  for (std::size_t i = 0; i < n; ++i) {
    inst_cache_cols.push_back({xbase + 2 * i, xbase + 2 * i + 1});
  }
  std::size_t next = xbase + 2 * n;
  for (std::size_t* c :
       {&col_prompt_tps, &col_arrived, &col_finished, &col_aborted, &col_rejected, &col_e2e_p50,
        &col_e2e_p99, &col_queue_p50, &col_queue_p99, &col_transfers, &col_transfer_blocks}) {
    *c = next++;
  }
  col_time = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t base = 1 + 4 * i;
    inst_cols.push_back({base, base + 1, base + 2, base + 3});
  }
  const std::size_t cbase = 1 + 4 * n;
  col_ttft_p50 = cbase;
  col_ttft_p99 = cbase + 1;
  col_itl_p50 = cbase + 2;
  col_itl_p99 = cbase + 3;
  col_throughput = cbase + 4;
  sample_interval = std::max<SimTime>(1, from_millis(scenario->outputs.timeseries_interval_ms));
}

void Simulation::State::on_sample() {
  take_sample(now);
  // Keep sampling while anything else is pending; a run with nothing left ends.
  if (!queue.empty()) queue.push(now + sample_interval, EventClass::kSample);
}

void Simulation::State::take_sample(SimTime t) {
  series.append(col_time, to_seconds(t));
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const engine::EngineStats s = instances[i]->engine().stats();
    const InstanceColumns& c = inst_cols[i];
    series.append(c.kv_usage, s.kv_usage);
    series.append(c.running, static_cast<double>(s.num_running));
    series.append(c.waiting, static_cast<double>(s.num_waiting));
    series.append(c.preempted_total, static_cast<double>(s.preemptions));
  }
  WindowSample& ttft = results.window_ttft();
  WindowSample& itl = results.window_itl();
  series.append(col_ttft_p50, ttft.percentile_ms(50));
  series.append(col_ttft_p99, ttft.percentile_ms(99));
  series.append(col_itl_p50, itl.percentile_ms(50));
  series.append(col_itl_p99, itl.percentile_ms(99));
  // Output tokens per second since the previous sample.
  const double window_s = to_seconds(t - last_sample);
  const auto tokens = static_cast<double>(results.take_window_tokens());
  series.append(col_throughput, window_s > 0 ? tokens / window_s : 0.0);
  take_added_columns(window_s);
  last_sample = t;
  ttft.clear();
  itl.clear();
}

// The columns after the original ones: prefix-cache counters per instance (vllm:prefix_cache_
// queries / hits), prompt tokens per second, arrivals and outcomes so far, E2E and queue-time
// percentiles of the requests finished in the window (NaN = none), KV transfers.
void Simulation::State::take_added_columns(double window_s) {
  for (std::size_t i = 0; i < instances.size(); ++i) {
    const engine::EngineStats s = instances[i]->engine().stats();
    series.append(inst_cache_cols[i].prefix_queries, static_cast<double>(s.prefix_queries));
    series.append(inst_cache_cols[i].prefix_hits, static_cast<double>(s.prefix_hits));
  }
  series.append(col_prompt_tps,
                window_s > 0 ? static_cast<double>(window_prompt_tokens) / window_s : 0.0);
  window_prompt_tokens = 0;
  const LatencySet& c = results.cluster();
  series.append(col_arrived, static_cast<double>(results.arrived()));
  series.append(col_finished, static_cast<double>(c.finished));
  series.append(col_aborted, static_cast<double>(c.aborted));
  series.append(col_rejected, static_cast<double>(c.rejected));
  series.append(col_e2e_p50, window_e2e.percentile_ms(50));
  series.append(col_e2e_p99, window_e2e.percentile_ms(99));
  series.append(col_queue_p50, window_queue.percentile_ms(50));
  series.append(col_queue_p99, window_queue.percentile_ms(99));
  window_e2e.clear();
  window_queue.clear();
  series.append(col_transfers, static_cast<double>(transfers.size() - free_transfers.size()));
  series.append(col_transfer_blocks, static_cast<double>(transfer_blocks_total));
  if (const epp::FlowController* fc = router.flow())
    series.append(col_flow_queued, static_cast<double>(fc->queued()));
}

}  // namespace blis::cluster
