#pragma once
// DpRanks: what the two data-parallel engines share (docs/parallelism.md): dp engine-core
// ranks behind one vLLM server, vLLM's internal load balancer placing every request on a
// rank (dp_balancer.h) unless the request names its rank (RequestSpec::data_parallel_rank,
// which the EPP's data-parallel-profile-handler sets), and the server's view of them: its load is
// the ranks' summed, its /metrics carries every rank's series under engine="<rank>", and the
// cluster's connector calls reach the rank that asked for them.
//
// Two engines derive from it. DpEngine (dp_engine.h) runs an MoE model's DPEngineCoreProc
// ranks in lockstep (waves, dummy batches). DenseDpEngine (dense_dp_engine.h) runs a dense
// model's ranks, which vLLM starts as independent EngineCoreProcs (vllm/v1/engine/core.py
// run_engine_core: "Non-MoE DP ranks are completely independent, so treat like DP=1"), each
// stepped on its own GPUs by the instance's lanes (instance.h).
//
// Connectors: every rank has its own (vllm core.py run_engine_core appends _dp<rank> to
// kv_transfer_config.engine_id so that each rank's is unique). A transfer a rank asks for
// carries an id that names the rank, so its completion returns to it; the P/D notices keyed
// by request (read done, heartbeat) go to every rank, and only the one holding the request's
// blocks acts on them (the others do not know the key).

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cluster/dp_balancer.h"
#include "engine/engine.h"

namespace blis::cluster {

class DpRanks : public engine::Engine {
 public:
  void abort(engine::RequestKey key, SimTime now) override;
  void take_transfers(std::vector<engine::TransferRequest>& out) override;
  void transfer_finished(const engine::TransferRequest& t, SimTime now) override;
  void take_finished_between_steps(std::vector<engine::RequestProgress>& out) override;
  void remote_read_done(engine::RequestKey key, SimTime now) override;
  void remote_heartbeat(engine::RequestKey key, SimTime now) override;
  void poll(SimTime now) override;
  void set_kv_event_listener(engine::KvEventListener* l) override;
  SimTime next_wake(SimTime now) const override;
  std::int32_t max_concurrent_batches() const override;
  engine::EngineStats stats() const override;
  std::string metrics_text(SimTime now, const std::string& labels) const override;
  engine::Provenance provenance() const override { return ranks_.front()->provenance(); }

  std::int32_t dp() const { return static_cast<std::int32_t>(ranks_.size()); }
  const engine::Engine& rank(std::int32_t r) const { return *ranks_[static_cast<std::size_t>(r)]; }
  // One rank's KV events to their own listener (a rank that is an EPP endpoint of its own).
  void set_rank_kv_event_listener(std::int32_t r, engine::KvEventListener* l);
  // The rank a request went to (-1 if unknown or finished).
  std::int32_t rank_of(engine::RequestKey key) const;
  const DpBalancer& balancer() const { return balancer_; }
  // Requests the balancer sent to each rank so far.
  const std::vector<std::int64_t>& requests_per_rank() const { return requests_per_rank_; }

 protected:
  // `ranks`: the dp engines (at least 2); `api_servers`: the balancer's clients.
  DpRanks(std::vector<std::unique_ptr<engine::Engine>> ranks, std::int32_t api_servers);

  // The API server the request reaches picks its rank (DPLBAsyncMPClient
  // get_core_engine_for_request, with the coordinator's latest snapshot); returns the rank.
  std::int32_t place(const engine::RequestSpec& spec, SimTime now);
  // A finished request leaves its client's in-flight count (process_engine_outputs).
  void note_progress(const engine::RequestProgress& p);
  // A rank's transfer record with an id that names the rank (and back).
  engine::TransferRequest tagged(engine::TransferRequest t, std::int32_t rank) const;

  std::vector<std::unique_ptr<engine::Engine>> ranks_;

 private:
  struct Placement {
    std::int32_t rank = 0, client = 0;
  };
  DpBalancer balancer_;
  std::map<engine::RequestKey, Placement> placed_;
  std::vector<std::int64_t> requests_per_rank_;

  void publish_if_due(SimTime now);
};

}  // namespace blis::cluster
