#include "engine/vllm/connector/nixl_connector.h"

#include <algorithm>
#include <cmath>

#include "engine/vllm/kv/block_pool.h"

namespace blis::vllm {
namespace {

// VLLM_NIXL_SIDE_CHANNEL_HOST / _PORT defaults (vllm envs.py), the endpoint P returns.
constexpr const char* kSideChannelHost = "localhost";
constexpr std::int32_t kSideChannelPort = 5600;

bool has_params(const Request& r) {
  // kv_transfer_params is a dict: None or {} is "no params" (`if not params`).
  return r.has_kv_transfer;
}

}  // namespace

void NixlMeta::clear() {
  reqs_to_recv.clear();
  reqs_to_send.clear();
  reqs_in_batch.clear();
  reqs_not_processed.clear();
  heartbeat_by_engine.clear();
}

NixlConnector::NixlConnector(const NixlConfig& cfg)
    : cfg_(cfg),
      lease_(from_seconds(cfg.kv_lease_duration)),
      // base_scheduler.py: _heartbeat_interval = _kv_lease_duration // 6.
      heartbeat_interval_(from_seconds(std::floor(cfg.kv_lease_duration / 6))) {}

void NixlConnector::add_unique(std::vector<std::string>& v, const std::string& id) {
  if (std::find(v.begin(), v.end(), id) == v.end()) v.push_back(id);
}

void NixlConnector::on_new_request(const Request& r) {
  // base_scheduler.py on_new_request: a decode request with the whole remote endpoint is
  // tracked for lease-renewal heartbeats to its prefiller. The engine's HeartbeatInfo is made
  // by its first request; req_ids is a set; _heartbeat_req_engine is keyed by the local id.
  if (!has_params(r) || !r.kv_transfer.do_remote_prefill) return;
  const engine::KvTransferParams& p = r.kv_transfer;
  if (!p.has_remote_endpoint() || !p.tp_size) return;
  const std::string& engine_id = *p.remote_engine_id;
  auto e = std::find_if(heartbeat_engines_.begin(), heartbeat_engines_.end(),
                        [&](const auto& x) { return x.first == engine_id; });
  if (e == heartbeat_engines_.end()) {
    heartbeat_engines_.emplace_back(engine_id, std::vector<std::string>{});
    e = heartbeat_engines_.end() - 1;
  }
  add_unique(e->second, *p.remote_request_id);
  const Heartbeat h{r.request_id, engine_id, *p.remote_request_id};
  const auto it = std::find_if(heartbeats_.begin(), heartbeats_.end(),
                               [&](const Heartbeat& x) { return x.request_id == r.request_id; });
  if (it != heartbeats_.end()) {
    *it = h;
  } else {
    heartbeats_.push_back(h);
  }
}

void NixlConnector::stop_heartbeat(const std::string& request_id) {
  // base_scheduler.py _stop_heartbeat: discard the remote id from its engine's set, and drop
  // the engine once its set is empty.
  const auto it = std::find_if(heartbeats_.begin(), heartbeats_.end(),
                               [&](const Heartbeat& h) { return h.request_id == request_id; });
  if (it == heartbeats_.end()) return;
  const Heartbeat h = *it;
  heartbeats_.erase(it);
  const auto e = std::find_if(heartbeat_engines_.begin(), heartbeat_engines_.end(),
                              [&](const auto& x) { return x.first == h.remote_engine_id; });
  if (e == heartbeat_engines_.end()) return;
  e->second.erase(std::remove(e->second.begin(), e->second.end(), h.remote_request_id),
                  e->second.end());
  if (e->second.empty()) heartbeat_engines_.erase(e);
}

MatchedTokens NixlConnector::get_num_new_matched_tokens(const Request& r,
                                                        std::int32_t num_local_computed) {
  // pull_scheduler.py get_num_new_matched_tokens: with do_remote_prefill the whole prompt
  // beyond the (block-aligned) local hit is external and loaded asynchronously. The
  // bidirectional path (do_remote_decode with remote blocks) is off by default and not
  // modelled; neither is Mamba's N-1 count.
  if (!has_params(r) || !r.kv_transfer.do_remote_prefill) return {};
  const std::int32_t count = r.num_prompt_tokens - num_local_computed;
  if (count <= 0) return {};
  return {true, count, true};
}

void NixlConnector::update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                             std::int32_t num_external_tokens) {
  // pull_scheduler.py update_state_after_alloc.
  if (!has_params(r)) return;
  engine::KvTransferParams& p = r.kv_transfer;
  if (p.do_remote_decode) add_unique(next_.reqs_in_batch, r.request_id);
  if (!p.do_remote_prefill) return;
  if (!p.remote_block_ids.empty() && p.has_remote_endpoint()) {
    // Pull only the blocks without a hash (get_unhashed_block_ids_all_groups): the local
    // prefix hit stays; a full local hit (no external tokens) pulls nothing but still
    // notifies P so it frees its blocks.
    std::vector<std::int32_t> local;
    if (num_external_tokens > 0) {
      for (const std::int32_t b : blocks) {
        const KVCacheBlock& blk = block_pool_->block(b);
        if (!blk.has_hash && !blk.is_null) local.push_back(b);
      }
    }
    queue_recv(r, std::move(local));
  }
  // "Only trigger 1 KV transfer per request."
  p.do_remote_prefill = false;
}

FinishedTransfer NixlConnector::request_finished(Request& r, std::span<const std::int32_t> blocks) {
  // pull_scheduler.py request_finished.
  if (!has_params(r)) return {};
  engine::KvTransferParams& p = r.kv_transfer;
  const bool is_p_node = p.do_remote_decode;
  stop_heartbeat(r.request_id);
  if (p.do_remote_prefill) {
    // A decode request that ends before it was ever scheduled: an empty receive tells the
    // prefiller to free its blocks.
    queue_recv(r, {});
    p.do_remote_prefill = false;
    return {};
  }
  if (!is_p_node) return {};  // bidirectional KV transfer is off by default
  if (r.status != RequestStatus::kFinishedLengthCapped &&
      r.status != RequestStatus::kFinishedStopped) {
    // Aborted (or errored) prefill: freed now, and the worker stops tracking it.
    add_unique(next_.reqs_not_processed, r.request_id);
    return {};
  }
  FinishedTransfer f;
  f.delay_free = !blocks.empty();
  engine::KvTransferParams out;
  out.do_remote_prefill = true;
  out.do_remote_decode = false;
  out.remote_block_ids.assign(blocks.begin(), blocks.end());
  out.remote_engine_id = cfg_.engine_id;
  out.remote_request_id = r.request_id;
  out.remote_host = kSideChannelHost;
  out.remote_port = kSideChannelPort;
  out.tp_size = cfg_.tp_size;
  out.remote_instance = cfg_.instance;
  if (f.delay_free) {
    // The blocks wait for the decoder's read, at most kv_lease_duration past the finish
    // (renewed by heartbeats); VLLM_NIXL_ABORT_REQUEST_TIMEOUT no longer exists (#41383).
    const SimTime deadline = add_saturating(now_, lease_);
    next_.reqs_to_send.emplace_back(r.request_id, deadline);
    held_.push_back(Held{r.key, r.ref(), deadline});
    out.remote_num_tokens = r.num_computed_tokens;
  }
  f.params = std::move(out);
  return f;
}

void NixlConnector::build_connector_meta(const SchedulerOutput& out, const Scheduler& s) {
  // base_scheduler.py build_connector_meta: hand the pending sets to the worker and clear
  // them; heartbeats go out at most every kv_lease_duration // 6 seconds.
  (void)out;
  (void)s;
  meta_.clear();
  std::swap(meta_, next_);
  if (!heartbeat_engines_.empty() && now_ - last_heartbeat_ >= heartbeat_interval_) {
    last_heartbeat_ = now_;
    meta_.heartbeat_by_engine = heartbeat_engines_;
  }
}

void NixlConnector::queue_recv(const Request& r, std::vector<std::int32_t> local_blocks) {
  NixlRecvMeta m;
  m.request_id = r.request_id;
  m.key = r.key;
  m.ref = r.ref();
  m.remote_block_ids = r.kv_transfer.remote_block_ids;
  m.remote_request_id = r.kv_transfer.remote_request_id.value_or("");
  m.local_block_ids = std::move(local_blocks);
  // _reqs_need_recv is a dict: a second entry for the same request replaces the first.
  const auto it = std::find_if(next_.reqs_to_recv.begin(), next_.reqs_to_recv.end(),
                               [&](const NixlRecvMeta& e) { return e.request_id == m.request_id; });
  engine::TransferRequest t;
  t.kind = engine::TransferKind::kRemotePull;
  t.id = next_id_++;
  t.key = r.key;
  t.from_instance = r.kv_transfer.remote_instance;
  t.to_instance = cfg_.instance;
  t.num_blocks = static_cast<std::int32_t>(m.local_block_ids.size());
  t.num_tokens = std::min(t.num_blocks * cfg_.block_size, r.num_prompt_tokens);
  pending_.push_back(t);
  recvs_.push_back(
      Recv{t.id, r.ref(), r.request_id, !m.local_block_ids.empty(), m.local_block_ids});
  if (it != next_.reqs_to_recv.end()) {
    *it = std::move(m);
  } else {
    next_.reqs_to_recv.push_back(std::move(m));
  }
}

void NixlConnector::take_transfers(std::vector<engine::TransferRequest>& out) {
  out.insert(out.end(), pending_.begin(), pending_.end());
  pending_.clear();
}

TransferEffect NixlConnector::on_transfer_finished(const engine::TransferRequest& t) {
  // The worker's get_finished: a finished read is reported as finished_recving (an empty
  // one only notified P); update_connector_output then stops the request's heartbeats.
  TransferEffect e;
  const auto it =
      std::find_if(recvs_.begin(), recvs_.end(), [&](const Recv& v) { return v.id == t.id; });
  if (it == recvs_.end()) return e;
  // base_worker.py _handle_failed_transfer: xfer_stats.record_failed_transfer().
  if (t.failed) ++failed_transfers_;
  if (it->awaited) {
    e.finished_recving = it->ref;
    // vllm nixl/base_worker.py _handle_failed_transfer: a failed read reports every local block
    // of the request as invalid (invalid_block_ids) along with finished_recving.
    if (t.failed) e.invalid_block_ids = it->local_block_ids;
    stop_heartbeat(it->request_id);
  }
  recvs_.erase(it);
  return e;
}

void NixlConnector::take_stats(metrics::KVConnectorStats& out) {
  // nixl/stats.py NixlKVConnectorStats.record_failed_transfer -> vllm:nixl_num_failed_transfers.
  if (failed_transfers_ > 0) {
    out.increase("vllm:nixl_num_failed_transfers", static_cast<double>(failed_transfers_));
    failed_transfers_ = 0;
  }
}

SimTime NixlConnector::next_deadline() const {
  SimTime d = kSimTimeNever;
  for (const Held& h : held_) d = std::min(d, h.deadline);
  return d;
}

void NixlConnector::expire(SimTime now, std::vector<ReqRef>& out) {
  // nixl worker get_finished: a send whose lease ran out is released and reported as
  // finished_sending.
  std::size_t k = 0;
  for (const Held& h : held_) {
    if (h.deadline <= now) {
      out.push_back(h.ref);
    } else {
      held_[k++] = h;
    }
  }
  held_.resize(k);
}

ReqRef NixlConnector::remote_read_done(engine::RequestKey key) {
  // The decoder's notification: the request's blocks were read (finished_sending).
  const auto it =
      std::find_if(held_.begin(), held_.end(), [&](const Held& h) { return h.key == key; });
  if (it == held_.end()) return {};
  const ReqRef ref = it->ref;
  held_.erase(it);
  return ref;
}

void NixlConnector::remote_heartbeat(engine::RequestKey key) {
  // The decoder renews the lease every kv_lease_duration // 6 s for as long as it waits for
  // the blocks; the cluster signals the start of that, so the lease no longer runs out (the
  // read or the decoder's abort notification frees the blocks instead).
  for (Held& h : held_) {
    if (h.key == key) h.deadline = kSimTimeNever;
  }
}

void NixlConnector::due_sends(SimTime now, std::vector<engine::RequestKey>& out) const {
  for (const Held& h : held_) {
    if (h.deadline <= now) out.push_back(h.key);
  }
}

ReqRef NixlConnector::held_ref(engine::RequestKey key) const {
  for (const Held& h : held_) {
    if (h.key == key) return h.ref;
  }
  return {};
}

}  // namespace blis::vllm
