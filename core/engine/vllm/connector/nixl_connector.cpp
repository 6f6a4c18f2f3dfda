#include "engine/vllm/connector/nixl_connector.h"

#include <algorithm>

namespace blis::vllm {

NixlConnector::NixlConnector(std::int32_t instance, std::int32_t block_size, SimTime abort_timeout)
    : instance_(instance), block_size_(block_size), abort_timeout_(abort_timeout) {}

MatchedTokens NixlConnector::get_num_new_matched_tokens(const Request& r,
                                                        std::int32_t num_local_computed) {
  // nixl_connector.py NixlConnectorScheduler.get_num_new_matched_tokens: with a truthy
  // do_remote_prefill the whole prompt beyond the local hit is external and loaded
  // asynchronously; otherwise nothing (the -1 for logits is applied when the load lands).
  if (!r.has_kv_transfer || !r.kv_transfer.do_remote_prefill) return {};
  const std::int32_t count = r.num_prompt_tokens - num_local_computed;
  if (count <= 0) return {};
  return {true, count, true};
}

void NixlConnector::update_state_after_alloc(Request& r, std::span<const std::int32_t> blocks,
                                             std::int32_t num_external_tokens) {
  // nixl_connector.py NixlConnectorScheduler.update_state_after_alloc. The producer side
  // (do_remote_decode) only records the request for the worker: nothing to time here.
  if (!r.has_kv_transfer || !r.kv_transfer.do_remote_prefill) return;
  // Consumer side: the local targets are the blocks beyond the local prefix hit; with no
  // external tokens an empty receive is queued so the prefiller still frees its blocks.
  std::int32_t num_blocks = 0;
  if (num_external_tokens > 0) {
    const std::int32_t local_blocks = (r.num_prompt_tokens - num_external_tokens) / block_size_;
    num_blocks = std::max<std::int32_t>(0, static_cast<std::int32_t>(blocks.size()) - local_blocks);
  }
  queue_recv(r, num_blocks, num_external_tokens > 0);
  // "In every case do_remote_prefill is then set to False": one request, one transfer.
  r.kv_transfer.do_remote_prefill = false;
}

bool NixlConnector::request_finished(Request& r, std::span<const std::int32_t> blocks) {
  // nixl_connector.py NixlConnectorScheduler.request_finished (spec §B.4 steps 1-5).
  if (!r.has_kv_transfer) return false;
  if (r.kv_transfer.do_remote_prefill) {
    // A decode request that ends before it was ever scheduled: an empty receive tells the
    // prefiller to free its blocks.
    queue_recv(r, 0, false);
    r.kv_transfer.do_remote_prefill = false;
    return false;
  }
  if (!r.kv_transfer.do_remote_decode) return false;
  // Stopped (EOS) or aborted prefill requests free at once and hand nothing out.
  if (r.status != RequestStatus::kFinishedLengthCapped) return false;
  const bool delay_free = !blocks.empty();
  // The deadline is VLLM_NIXL_ABORT_REQUEST_TIMEOUT after the finish (enforced on the worker
  // side upstream: expired requests are reported as finished_sending).
  if (delay_free) held_.push_back(Held{r.key, r.ref(), now_ + abort_timeout_});
  return delay_free;
}

void NixlConnector::queue_recv(const Request& r, std::int32_t num_blocks, bool awaited) {
  engine::TransferRequest t;
  t.kind = engine::TransferKind::kRemotePull;
  t.id = next_id_++;
  t.key = r.key;
  t.from_instance = r.kv_transfer.remote_instance;
  t.to_instance = instance_;
  t.num_blocks = num_blocks;
  t.num_tokens = std::min(num_blocks * block_size_, r.num_prompt_tokens);
  pending_.push_back(t);
  recvs_.push_back(Recv{t.id, r.ref(), awaited});
}

void NixlConnector::take_transfers(std::vector<engine::TransferRequest>& out) {
  out.insert(out.end(), pending_.begin(), pending_.end());
  pending_.clear();
}

TransferEffect NixlConnector::on_transfer_finished(const engine::TransferRequest& t) {
  // The worker's get_finished: a finished read is reported as finished_recving.
  TransferEffect e;
  const auto it =
      std::find_if(recvs_.begin(), recvs_.end(), [&](const Recv& v) { return v.id == t.id; });
  if (it == recvs_.end()) return e;
  if (it->awaited) e.finished_recving = it->ref;
  recvs_.erase(it);
  return e;
}

SimTime NixlConnector::next_deadline() const {
  SimTime d = kSimTimeNever;
  for (const Held& h : held_) d = std::min(d, h.deadline);
  return d;
}

void NixlConnector::expire(SimTime now, std::vector<ReqRef>& out) {
  // nixl_connector.py NixlConnectorWorker._get_new_notifs / get_finished: a send whose
  // deadline passed is released and reported as finished_sending (logged as expired).
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

}  // namespace blis::vllm
