#pragma once
// The Simulation's run state (internal to core/cluster): pools, instances, the event queue,
// the router, the request table and the results. simulation_load.cpp builds it,
// simulation.cpp runs the event loop (simulation_pd.cpp the P/D proxy,
// simulation_transfers.cpp the KV transfers, simulation_slo.cpp the SLO check,
// simulation_sampling.cpp the time series) and simulation_results.cpp renders the outputs.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cluster/backend.h"
#include "cluster/event_queue.h"
#include "cluster/instance.h"
#include "cluster/network/topology.h"
#include "cluster/request_table.h"
#include "cluster/results.h"
#include "cluster/router.h"
#include "cluster/signal_board.h"
#include "cluster/simulation.h"
#include "cluster/timeseries.h"
#include "cluster/workload/workload.h"
#include "scenario/scenario.h"

namespace blis::cluster {

struct PoolRuntime {
  std::string name, role;
  std::int32_t first_instance = 0, count = 0;
  PoolResources res;
};

struct Simulation::State {
  const scenario::Scenario* scenario = nullptr;
  std::unique_ptr<Backend> backend;
  std::unique_ptr<Workload> workload;
  std::vector<PoolRuntime> pools;
  std::vector<std::unique_ptr<Instance>> instances;
  Router router;         // unified pools, or the prefill pool of a P/D deployment
  Router decode_router;  // P/D: the decode pool
  bool pd = false;       // one prefill and one decode pool, joined by the proxy
  std::int32_t prefill_pool = -1, decode_pool = -1;
  // KV transfers in flight (slab; the kTransferDone event carries the slot).
  std::vector<engine::TransferRequest> transfers;
  std::vector<std::uint32_t> free_transfers;
  std::vector<engine::TransferRequest> transfer_scratch;
  // The links those transfers share (built at the first transfer) and its pending wake.
  std::unique_ptr<network::ClusterNetwork> net;
  SimTime network_armed = kSimTimeNever;
  std::vector<std::uint64_t> delivered_scratch;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> perturbed_scratch;  // (owner, flow)
  // P/D pulls that were flows: when each began and what it would take alone (per transfer
  // slot), and their totals once delivered (summary `network`).
  std::vector<SimTime> transfer_started;
  std::vector<double> transfer_alone_us;
  std::uint64_t pulls_timed = 0;
  // P/D pulls that failed (the decode pool's kv_pull_failure_rate, drawn from the stream
  // "kv_pull_failures") and the requests the decode engines then finished with an error.
  Rng pull_failure_rng;
  std::uint64_t pulls_failed = 0, kv_load_errors = 0;
  engine::StepEvents between_steps;  // take_finished_between_steps' scratch
  double pull_us_sum = 0, pull_alone_us_sum = 0;
  SignalBoard board;
  EventQueue queue;
  RequestTable requests;
  Results results;
  TimeSeries series;
  GeneratedRequest scratch;
  // lora_of_endpoint's scratch: an instance's lanes' residencies, a DP instance's union.
  std::vector<const LoraResidency*> lora_lanes;
  std::vector<std::int32_t> lora_union;

  SimTime now = 0;
  SimTime end = 0;                          // when the run finished (valid once done)
  SimTime arrival_armed = kSimTimeNever;    // pending kArrival event, if any
  SimTime flow_tick_armed = kSimTimeNever;  // pending flow-control dispatch tick, if any
  SimTime sample_interval = kMicrosPerSecond;
  SimTime last_sample = 0;
  std::vector<SimTime> client_timeout;  // per client; 0 = never
  std::uint64_t events = 0;
  std::uint64_t steps = 0;
  bool done = false;

  // Column indices of the time series.
  struct InstanceColumns {
    std::size_t kv_usage, running, waiting, preempted_total;
  };
  std::vector<InstanceColumns> inst_cols;
  std::size_t col_time = 0, col_ttft_p50 = 0, col_ttft_p99 = 0, col_itl_p50 = 0, col_itl_p99 = 0,
              col_throughput = 0;
  // Columns added after those (docs/results.md): the panels of vLLM's Grafana dashboard.
  struct InstanceCacheColumns {
    std::size_t prefix_queries, prefix_hits;
  };
  std::vector<InstanceCacheColumns> inst_cache_cols;
  std::size_t col_prompt_tps = 0, col_arrived = 0, col_finished = 0, col_aborted = 0,
              col_rejected = 0, col_e2e_p50 = 0, col_e2e_p99 = 0, col_queue_p50 = 0,
              col_queue_p99 = 0, col_transfers = 0, col_transfer_blocks = 0;
  // Router epp with flow control: requests queued at the gateway (absent otherwise: npos).
  std::size_t col_flow_queued = static_cast<std::size_t>(-1);
  // Tumbling windows of those columns: requests finished, first tokens' prompts.
  WindowSample window_e2e, window_queue;
  std::uint64_t window_prompt_tokens = 0;
  std::uint64_t transfer_blocks_total = 0;  // KV blocks moved (P/D pulls, CPU offload)

  // Building the run (simulation_load.cpp, simulation_sampling.cpp).
  bool build_pools(Diagnostics& ds);
  void build_routers();
  void define_series();

  // Event handlers (simulation.cpp and the simulation_*.cpp of each concern).
  void dispatch(const Event& ev);
  void on_arrival();
  void on_engine_arrival(std::uint32_t instance, engine::RequestKey key);
  void on_batch_done(std::uint32_t instance, std::int32_t lane);
  void on_engine_wake(std::uint32_t instance, SimTime at);
  void on_transfer_done(std::uint64_t slot);
  void on_request_finished(engine::RequestKey key);
  void on_client_timeout(engine::RequestKey key);
  void on_horizon_end();
  void on_flow_event(std::uint32_t kind, std::uint64_t key);
  void on_sample();
  void take_added_columns(double window_s);

  void arm_arrival();
  // Routing (simulation.cpp): send a routed request on (or finish a refused one).
  // `dispatched`: it waited in the EPP's flow control, which counted its arrival already.
  void send_routed(RequestRecord& rec, const epp::Decision& d, bool dispatched);
  void arm_client_timeout(const RequestRecord& rec);
  // EPP flow control (simulation_flow.cpp).
  void flow_enqueue(RequestRecord& rec);
  void flow_cycle();
  void arm_flow_tick();
  // Wakes every engine-core loop of the instance that is not already due (its lanes).
  void kick(Instance& inst);
  void run_loop(Instance& inst, std::int32_t lane);
  void apply_step_events(Instance& inst, const engine::StepEvents& ev, std::int32_t lane);
  void start_transfers(Instance& inst);
  network::ClusterNetwork& network();
  void arm_network();
  Instance::SharedCollective share_links(Instance& inst, double cross_node_us);
  void reprice_collectives();
  void network_deliver();
  void finish_transfer(std::uint64_t slot);
  void hand_off_to_decode(RequestRecord& rec, SimTime at);
  Router& router_of(std::int32_t instance);
  epp::Request epp_request(const RequestRecord& rec) const;
  void wire_epp();
  const std::vector<std::int32_t>* lora_of_endpoint(std::int32_t endpoint);
  void publish(Instance& inst);
  bool meets_slo(const RequestRecord& r) const;
  void finish_request(RequestRecord& r, RequestOutcome outcome);
  void check_done();
  void take_sample(SimTime t);
};

}  // namespace blis::cluster
