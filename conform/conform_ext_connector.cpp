// The KV connector cases of the ext format (c*: NIXL, o*: OffloadingConnector with the CPU
// LRU manager; tests/conformance/data/ext/FORMAT.md sections 1, 4 and 5). The real
// connector scheduler classes run inside the scheduler; this file plays the mocked worker
// (section 4) from each step's connector metadata and writes the connector step fields.
//
// Worker timing: the worker runs when a batch is dispatched (sync: every schedule; async:
// the step that schedules it) and what it reports travels with that batch's output, applied
// at the tail of its update_from_output (Scheduler._update_from_kv_xfer_finished).
#include <algorithm>
#include <map>
#include <memory>

#include "conform/conform_ext_connector_input.h"
#include "conform/conform_ext_extension.h"
#include "engine/vllm/connector/nixl_connector.h"
#include "engine/vllm/connector/offloading_connector.h"
#include "util/python_set_order.h"

namespace blis::vllm::conform {
namespace {

using json = nlohmann::json;
using ojson = nlohmann::ordered_json;

// A Python set of request ids as the traces write it: sorted.
ojson sorted_strings(const ojson& ids) {
  std::vector<std::string> v = ids.get<std::vector<std::string>>();
  std::sort(v.begin(), v.end());
  return v;
}
ojson sorted_strings(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

ojson group(const std::vector<std::int32_t>& ids) {
  return ojson::array({ojson(ids)});  // one KV group
}

ojson params_json(const engine::KvTransferParams& p) {
  // pull_scheduler.py request_finished's dict, in its key order.
  ojson j = ojson::object();
  j["do_remote_prefill"] = p.do_remote_prefill;
  j["do_remote_decode"] = p.do_remote_decode;
  j["remote_block_ids"] = group(p.remote_block_ids);
  j["remote_engine_id"] = p.remote_engine_id.value_or("");
  j["remote_request_id"] = p.remote_request_id.value_or("");
  j["remote_host"] = p.remote_host.value_or("");
  j["remote_port"] = p.remote_port.value_or(0);
  j["tp_size"] = p.tp_size.value_or(1);
  j["remote_num_tokens"] = p.remote_num_tokens;
  j["remote_blocks_expiry_time"] = nullptr;  // P-node requests have none
  return j;
}

// What the mock worker reports with one batch.
struct WorkerOutput {
  std::vector<engine::TransferRequest> recvs;  // NIXL receives (and notifications) done
  std::vector<engine::RequestKey> sends;       // NIXL sends read or expired
  std::vector<std::int64_t> jobs;              // offloading jobs completed, ascending
};

class ConnectorExtension final : public ExtExtension {
 public:
  void take_input(json& doc, double step_seconds, Diagnostics& diags) override {
    take_connector_input(doc, in_, diags);
    step_seconds_ = step_seconds;  // Δ (section 2): the connector's clock follows the driver's
  }
  std::vector<std::string> request_keys() const override { return connector_request_keys(); }
  void configure(Case& c, Diagnostics& diags) override;
  void configure_metrics(metrics::RecorderConfig& config) override {
    // The families of the connector class attach() builds (its metrics_kind()).
    config.connector =
        in_.nixl ? metrics::ConnectorMetrics::kNixl : metrics::ConnectorMetrics::kOffloading;
    config.offload_store_threshold = !in_.nixl && in_.store_threshold >= 2;
  }
  void attach(EngineCore& core) override;
  void prepare_request(engine::RequestKey key, NewRequest& nr) override {
    const ConnectorRequest& r = in_.requests[key];
    if (r.has_params) nr.kv_transfer = &r.params;
  }
  void on_added(std::int32_t step, engine::RequestKey key, ReqRef ref) override {
    added_.emplace_back(key, ref);
  }
  void on_scheduled(std::int32_t step, const InFlightBatch& b) override;
  void before_update(std::int32_t step, const InFlightBatch& b) override {
    // update_from_output is stamped (k+1)·Δ (request_finished's lease deadline).
    conn_->set_now(at(step + 1));
  }
  void on_update(std::int32_t step, const InFlightBatch& b) override;
  void on_applied(std::int32_t step, const InFlightBatch& b, const UpdateResult& res,
                  const SchedulerStats& stats) override {
    for (const auto& kp : res.kv_transfer_params)
      step_params_[ids_[kp.first]] = params_json(kp.second);
  }
  void take_connector_stats(metrics::KVConnectorStats& out) override;
  void add_step_fields(std::int32_t step, ojson& rec) override;

 private:
  SimTime at(std::int32_t k) const { return from_seconds(static_cast<double>(k) * step_seconds_); }
  void nixl_worker(std::int32_t step, WorkerOutput& w);
  void offload_worker(std::int32_t step, WorkerOutput& w);
  ojson nixl_meta_json() const;
  ojson offload_meta_json() const;
  std::int32_t recv_steps(engine::RequestKey key) const {
    return in_.requests[key].recv_steps.value_or(in_.recv_steps);
  }

  ConnectorInput in_;
  std::vector<std::string> ids_;
  double step_seconds_ = 0;
  EngineCore* core_ = nullptr;
  std::unique_ptr<KVConnector> owned_;
  KVConnector* conn_ = nullptr;
  NixlConnector* nixl_ = nullptr;
  OffloadingConnector* offload_ = nullptr;
  std::vector<std::pair<engine::RequestKey, ReqRef>> added_;  // Scheduler.requests order
  std::map<std::uint64_t, WorkerOutput> pending_;             // by batch id
  // NIXL mock worker state.
  struct Recv {
    engine::TransferRequest t;
    std::int32_t due = 0;
  };
  std::vector<Recv> recvs_;
  struct Send {
    engine::RequestKey key = 0;
    std::int32_t due = -1;  // -1: never read
    bool tracked = false;   // in the worker's _reqs_to_send (it was in _reqs_to_process)
  };
  std::vector<Send> sends_;
  std::vector<std::string> in_batch_;         // reqs_in_batch not cancelled
  std::vector<engine::RequestKey> released_;  // sends reported, not yet applied
  // Offloading mock worker state: job id -> due step.
  std::map<std::int64_t, std::int32_t> jobs_due_;
  std::map<std::int64_t, std::string> load_req_;  // load job -> request id
  std::vector<engine::TransferRequest> scratch_;
  // This step's fields.
  bool scheduled_ = false;
  std::int32_t free_after_schedule_ = 0;
  ojson meta_ = ojson::object();
  ojson finished_recving_ = ojson::array();
  ojson finished_sending_ = ojson::array();
  ojson expired_ = ojson::array();
  ojson completed_jobs_ = ojson::array();
  ojson step_params_ = ojson::object();
};

void ConnectorExtension::configure(Case& c, Diagnostics& diags) {
  // One entry per request of the decoded case (take_input saw the same array).
  (void)diags;
  in_.requests.resize(c.requests.size());
  ids_.resize(c.requests.size());
  for (std::size_t i = 0; i < c.requests.size(); ++i) ids_[i] = c.requests[i].id;
}

void ConnectorExtension::attach(EngineCore& core) {
  core_ = &core;
  const VllmConfig& cfg = core.scheduler().config();
  if (in_.nixl) {
    NixlConfig nc;
    nc.block_size = cfg.block_size;
    nc.engine_id = in_.engine_id;
    nc.kv_lease_duration = in_.kv_lease_duration;
    auto n = std::make_unique<NixlConnector>(nc);
    nixl_ = n.get();
    owned_ = std::move(n);
  } else {
    OffloadingConfig oc;
    oc.gpu_block_size = cfg.block_size;
    oc.blocks_per_chunk = in_.blocks_per_chunk;
    // CPUOffloadingSpec: cpu_bytes_to_use = num_cpu_blocks × 4096 × blocks_per_chunk with a
    // 4096-byte GPU page, so the tier holds num_cpu_blocks chunks.
    oc.num_cpu_blocks = in_.num_cpu_blocks;
    oc.offload_prompt_only = in_.offload_prompt_only;
    oc.cpu.cache_policy = in_.eviction_policy;
    oc.cpu.store_threshold = in_.store_threshold;
    oc.cpu.max_tracker_size = in_.max_tracker_size;
    oc.enable_prefix_caching = cfg.enable_prefix_caching;
    oc.python_set_order = true;  // the traces' CPython (PYTHONHASHSEED=0)
    auto o = std::make_unique<OffloadingConnector>(oc);
    offload_ = o.get();
    owned_ = std::move(o);
  }
  conn_ = owned_.get();
  conn_->set_kv_role(in_.kv_consumer, in_.kv_producer);
  core.scheduler().set_connector(conn_);
}

void ConnectorExtension::on_scheduled(std::int32_t step, const InFlightBatch& b) {
  scheduled_ = true;
  free_after_schedule_ = core_->scheduler().kv_cache_manager().num_free_blocks();
  WorkerOutput& w = pending_[b.batch_id];
  if (nixl_ != nullptr) {
    meta_ = nixl_meta_json();
    nixl_worker(step, w);
  } else {
    meta_ = offload_meta_json();
    offload_worker(step, w);
  }
  conn_->set_now(at(step + 1));
}

void ConnectorExtension::nixl_worker(std::int32_t step, WorkerOutput& w) {
  const NixlMeta& m = nixl_->last_meta();
  // The receives (and empty notifications) this step's metadata starts.
  scratch_.clear();
  nixl_->take_transfers(scratch_);
  for (const engine::TransferRequest& t : scratch_)
    recvs_.push_back(Recv{t, step + recv_steps(t.key)});
  for (const std::string& id : m.reqs_in_batch) {
    if (std::find(in_batch_.begin(), in_batch_.end(), id) == in_batch_.end())
      in_batch_.push_back(id);
  }
  for (const std::string& id : m.reqs_not_processed) {
    const auto it = std::find(in_batch_.begin(), in_batch_.end(), id);
    if (it != in_batch_.end()) in_batch_.erase(it);
  }
  for (const auto& s : m.reqs_to_send) {
    const auto k = static_cast<engine::RequestKey>(std::find(ids_.begin(), ids_.end(), s.first) -
                                                   ids_.begin());
    const ConnectorRequest& r = in_.requests[k];
    // base_worker.py start_load_kv: only a send of a request in _reqs_to_process is tracked
    // (read, or released when its lease ends); any other keeps its blocks.
    Send snd{k, -1, std::find(in_batch_.begin(), in_batch_.end(), s.first) != in_batch_.end()};
    const bool read = !r.has_read_steps || r.read_steps.has_value();
    if (read && snd.tracked) snd.due = step + r.read_steps.value_or(in_.read_steps);
    sends_.push_back(snd);
  }
  // get_finished: receives due by now; an empty one only notifies P (nothing reported).
  std::size_t keep = 0;
  for (const Recv& r : recvs_) {
    if (r.due <= step) {
      w.recvs.push_back(r.t);
      if (r.t.num_blocks > 0) finished_recving_.push_back(ids_[r.t.key]);
    } else {
      recvs_[keep++] = r;
    }
  }
  recvs_.resize(keep);
  // Reads by the decoder, then leases that ran out by (k+1)·Δ.
  keep = 0;
  for (const Send& s : sends_) {
    if (s.due >= 0 && s.due <= step) {
      w.sends.push_back(s.key);
      released_.push_back(s.key);
      finished_sending_.push_back(ids_[s.key]);
    } else {
      sends_[keep++] = s;
    }
  }
  sends_.resize(keep);
  std::vector<engine::RequestKey> due;
  nixl_->due_sends(at(step + 1), due);
  for (const engine::RequestKey k : due) {
    if (std::find(released_.begin(), released_.end(), k) != released_.end()) continue;
    const auto tracked = std::find_if(sends_.begin(), sends_.end(),
                                      [&](const Send& x) { return x.key == k && x.tracked; });
    if (tracked == sends_.end()) continue;
    w.sends.push_back(k);
    released_.push_back(k);
    finished_sending_.push_back(ids_[k]);
    expired_.push_back(ids_[k]);
    sends_.erase(
        std::remove_if(sends_.begin(), sends_.end(), [&](const Send& s) { return s.key == k; }),
        sends_.end());
  }
}

void ConnectorExtension::offload_worker(std::int32_t step, WorkerOutput& w) {
  const OffloadMeta& m = offload_->last_meta();
  scratch_.clear();
  offload_->take_transfers(scratch_);  // the cluster's timing records: not used here
  // Loads finish load_steps later; stores are deferred one step (prepare_store_kv) and then
  // take store_steps; a flushed job is waited for within this step.
  for (const auto& j : m.load_jobs) {
    jobs_due_[j.first] = step + in_.load_steps;
    load_req_[j.first] = j.second;
  }
  for (const auto& j : m.store_jobs) jobs_due_[j.first] = step + 1 + in_.store_steps;
  for (const std::int64_t j : m.jobs_to_flush) {
    const auto it = jobs_due_.find(j);
    if (it != jobs_due_.end()) it->second = step;
  }
  for (auto it = jobs_due_.begin(); it != jobs_due_.end();) {
    if (it->second > step) {
      ++it;
      continue;
    }
    w.jobs.push_back(it->first);
    completed_jobs_.push_back(it->first);
    // A finished load reports its request in finished_recving.
    const auto l = load_req_.find(it->first);
    if (l != load_req_.end()) {
      finished_recving_.push_back(l->second);
      load_req_.erase(l);
    }
    it = jobs_due_.erase(it);
  }
}

void ConnectorExtension::on_update(std::int32_t step, const InFlightBatch& b) {
  const auto it = pending_.find(b.batch_id);
  if (it == pending_.end()) return;
  const WorkerOutput w = std::move(it->second);
  pending_.erase(it);
  Scheduler& s = core_->scheduler();
  // update_connector_output, then finished_recving, then finished_sending.
  std::vector<ReqRef> recving;
  for (const engine::TransferRequest& t : w.recvs) {
    const TransferEffect e = conn_->on_transfer_finished(t);
    if (e.finished_recving.index >= 0) recving.push_back(e.finished_recving);
  }
  for (const std::int64_t j : w.jobs) {
    const TransferEffect e = offload_->complete_job(j);
    if (e.finished_recving.index >= 0) recving.push_back(e.finished_recving);
  }
  // scheduler.py _update_from_kv_xfer_finished walks finished_recving, then finished_sending,
  // as the sets they are: the blocks they free go back to the free queue in that order.
  std::vector<std::string> names;
  for (const ReqRef r : recving) {
    const Request* q = s.find(r);
    names.push_back(q != nullptr ? ids_[q->key] : std::string());
  }
  for (const std::size_t i : pyset::set_order_indices(names)) s.finished_recving(recving[i]);
  names.clear();
  for (const engine::RequestKey k : w.sends) names.push_back(ids_[k]);
  for (const std::size_t i : pyset::set_order_indices(names)) {
    const engine::RequestKey k = w.sends[i];
    const auto rel = std::find(released_.begin(), released_.end(), k);
    if (rel != released_.end()) released_.erase(rel);
    const ReqRef ref = conn_->remote_read_done(k);
    if (ref.index >= 0) s.finished_sending(ref);
  }
}

void ConnectorExtension::take_connector_stats(metrics::KVConnectorStats& out) {
  // NIXL's stats are the worker's transfer records, which the mock does not report.
  conn_->take_stats(out);
}

ojson ConnectorExtension::nixl_meta_json() const {
  const NixlMeta& m = nixl_->last_meta();
  ojson j = ojson::object();
  if (!m.reqs_to_recv.empty()) {
    ojson r = ojson::object();
    for (const NixlRecvMeta& e : m.reqs_to_recv) {
      r[e.request_id] = {{"local_block_ids",
                          e.local_block_ids.empty() ? ojson::array() : group(e.local_block_ids)},
                         {"remote_block_ids", group(e.remote_block_ids)},
                         {"remote_request_id", e.remote_request_id}};
    }
    j["reqs_to_recv"] = r;
  }
  if (!m.reqs_to_send.empty()) {
    ojson r = ojson::object();
    for (const auto& e : m.reqs_to_send) r[e.first] = to_seconds(e.second);
    j["reqs_to_send"] = r;
  }
  // Python sets (reqs_in_batch, reqs_not_processed, HeartbeatInfo.req_ids) are written
  // sorted; dicts (reqs_to_recv, reqs_to_send, heartbeat_by_engine) keep insertion order.
  // heartbeat_by_engine: remote engine id -> its req_ids (the remote request ids), the
  // scheduling content of nixl/metadata.py HeartbeatInfo (host, port and sizes left out, as
  // reqs_to_recv leaves out the endpoint).
  if (!m.reqs_in_batch.empty()) j["reqs_in_batch"] = sorted_strings(m.reqs_in_batch);
  if (!m.reqs_not_processed.empty()) j["reqs_not_processed"] = sorted_strings(m.reqs_not_processed);
  if (!m.heartbeat_by_engine.empty()) {
    ojson h = ojson::object();
    for (const auto& e : m.heartbeat_by_engine) h[e.first] = sorted_strings(e.second);
    j["heartbeat_by_engine"] = h;
  }
  return j;
}

ojson ConnectorExtension::offload_meta_json() const {
  const OffloadMeta& m = offload_->last_meta();
  ojson j = ojson::object();
  auto jobs = [](const std::vector<std::pair<std::int64_t, std::string>>& v) {
    ojson o = ojson::object();
    for (const auto& e : v) o[std::to_string(e.first)] = e.second;
    return o;
  };
  if (!m.load_jobs.empty()) j["load_jobs"] = jobs(m.load_jobs);
  if (!m.store_jobs.empty()) j["store_jobs"] = jobs(m.store_jobs);
  if (!m.jobs_to_flush.empty()) j["jobs_to_flush"] = m.jobs_to_flush;
  return j;
}

void ConnectorExtension::add_step_fields(std::int32_t step, ojson& rec) {
  const Scheduler& s = core_->scheduler();
  if (scheduled_) rec["free_blocks_after_schedule"] = free_after_schedule_;
  if (scheduled_ && !meta_.empty()) rec["connector_meta"] = meta_;
  // KVConnectorOutput.finished_recving / finished_sending are sets (vllm/v1/outputs.py):
  // written sorted, as the metadata's sets are; completed_jobs is a dict (insertion order).
  if (!finished_recving_.empty()) rec["finished_recving"] = sorted_strings(finished_recving_);
  if (!finished_sending_.empty()) rec["finished_sending"] = sorted_strings(finished_sending_);
  if (!expired_.empty()) rec["expired_sends"] = sorted_strings(expired_);
  if (!completed_jobs_.empty()) rec["completed_jobs"] = completed_jobs_;
  if (!step_params_.empty()) rec["kv_transfer_params"] = step_params_;
  ojson waiting = ojson::array(), held = ojson::array();
  ojson blocks = ojson::object(), computed = ojson::object();
  for (const auto& a : added_) {
    const Request* r = s.find(a.second);
    if (r == nullptr) continue;
    if (r->status == RequestStatus::kWaitingForRemoteKvs) waiting.push_back(ids_[a.first]);
    if (is_finished(r->status)) held.push_back(ids_[a.first]);
    const auto b = s.kv_cache_manager().get_blocks(*r);
    blocks[ids_[a.first]] = group(std::vector<std::int32_t>(b.begin(), b.end()));
    computed[ids_[a.first]] = r->num_computed_tokens;
  }
  rec["waiting_for_remote_kvs"] = waiting;
  rec["num_skipped_waiting"] = s.skipped_waiting_queue().size();
  rec["held"] = held;
  rec["block_ids"] = blocks;
  rec["num_computed_tokens"] = computed;
  rec["num_free_blocks"] = s.kv_cache_manager().num_free_blocks();
  // Per-step state restarts; the clock moves to the next step's input phase.
  scheduled_ = false;
  meta_ = ojson::object();
  finished_recving_ = ojson::array();
  finished_sending_ = ojson::array();
  expired_ = ojson::array();
  completed_jobs_ = ojson::array();
  step_params_ = ojson::object();
  conn_->set_now(at(step + 1));
}

}  // namespace

std::unique_ptr<ExtExtension> make_connector_extension(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("connector")) return nullptr;
  return std::make_unique<ConnectorExtension>();
}

}  // namespace blis::vllm::conform
