// NixlConnector (connector/nixl_connector.h) through VllmEngine: the prefill side keeps a
// finished (LENGTH_CAPPED or STOPPED) request's blocks until the decoder's notice or the end
// of its lease (kv_lease_duration, renewed by heartbeats) and returns where they are; the
// decode side waits in WAITING_FOR_REMOTE_KVS for the pull, then computes one token and
// decodes (vllm nixl/pull_scheduler.py at 8d9b52f7). Tests are named after the rule.
#include "engine/vllm/connector/nixl_connector.h"

#include <gtest/gtest.h>

#include <memory>

#include "engine/engine_test_specs.h"
#include "engine/vllm/vllm_engine.h"

namespace blis::vllm {
namespace {

VllmConfig cfg() {
  return enginetest::small_engine_config(64, 128, false);
}

NixlConfig nixl_config(std::int32_t instance) {
  NixlConfig c;
  c.instance = instance;
  c.block_size = 4;
  return c;
}

constexpr SimTime kLease = 30 * kMicrosPerSecond;  // kv_lease_duration's default

engine::RequestSpec nixl_spec(engine::RequestKey key, std::int32_t len, std::int32_t max_tokens) {
  return enginetest::prompt_spec(key, len, 7000, max_tokens);
}

struct Node {
  explicit Node(std::int32_t instance) : e(cfg()) {
    auto c = std::make_unique<NixlConnector>(nixl_config(instance));
    nixl = c.get();
    e.own_connector(std::move(c));
  }
  // One synchronous pass at `now`; returns the events (empty when nothing ran).
  engine::StepEvents step(SimTime now) {
    const engine::Batch* b = e.schedule(now);
    if (b == nullptr) return {};
    last_batch = *b;
    return e.complete(b->id, {}, now);
  }
  VllmEngine e;
  NixlConnector* nixl = nullptr;
  engine::Batch last_batch;
};

engine::RequestSpec prefill_spec(engine::RequestKey key, std::int32_t len) {
  engine::RequestSpec s = nixl_spec(key, len, 1);
  s.kv_transfer = engine::KvTransferParams{true, false, -1, 0};
  return s;
}

engine::RequestSpec decode_spec(engine::RequestKey key, std::int32_t len, std::int32_t out,
                                std::int32_t from) {
  engine::RequestSpec s = nixl_spec(key, len, out);
  s.kv_transfer = engine::KvTransferParams{false, true, from, len};
  // What P returned: its blocks and the endpoint (without them D pulls nothing).
  s.kv_transfer->remote_block_ids = {1, 2, 3, 4, 5};
  s.kv_transfer->remote_engine_id = "P";
  s.kv_transfer->remote_request_id = std::to_string(key);
  s.kv_transfer->remote_host = "localhost";
  s.kv_transfer->remote_port = 5600;
  s.kv_transfer->tp_size = 1;
  return s;
}

TEST(NixlProducer, RemoteDecodeFinishesLengthCappedAndHoldsBlocksUntilNotice) {
  Node p(0);
  p.e.add_request(prefill_spec(1, 18), 0);
  const engine::StepEvents ev = p.step(10);
  ASSERT_EQ(ev.progress.size(), 1u);
  EXPECT_EQ(ev.progress[0].finish, engine::FinishReason::kLength);
  EXPECT_TRUE(ev.progress[0].first_token);
  // The returned params name the blocks of the 18 computed tokens.
  ASSERT_TRUE(ev.progress[0].kv_transfer_params != nullptr);
  EXPECT_TRUE(ev.progress[0].kv_transfer_params->do_remote_prefill);
  EXPECT_EQ(ev.progress[0].kv_transfer_params->remote_block_ids.size(), 5u);
  EXPECT_EQ(ev.progress[0].kv_transfer_params->remote_num_tokens, 18);
  EXPECT_EQ(ev.progress[0].kv_transfer_params->remote_instance, 0);
  // 18 prompt tokens + 1 output = 19 tokens -> 5 blocks of 4, still allocated.
  EXPECT_EQ(p.e.stats().num_free_blocks, 63 - 5);
  EXPECT_GT(p.e.stats().kv_usage, 0.0);
  EXPECT_EQ(p.e.stats().num_running + p.e.stats().num_waiting, 0);
  EXPECT_EQ(p.nixl->num_held(), 1u);
  EXPECT_EQ(p.e.next_wake(10), 10 + kLease);
  p.e.remote_read_done(1, 500);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63);
  EXPECT_EQ(p.nixl->num_held(), 0u);
  EXPECT_EQ(p.e.next_wake(500), kSimTimeNever);
}

TEST(NixlProducer, LeaseEndFreesHeldBlocks) {
  Node p(0);
  p.e.add_request(prefill_spec(1, 8), 0);
  p.step(0);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63 - 2);
  p.e.poll(kLease - 1);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63 - 2);
  p.e.poll(kLease);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63);
  // A late notice is ignored.
  p.e.remote_read_done(1, kLease + 5);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63);
}

TEST(NixlProducer, DecoderHeartbeatsKeepTheLease) {
  Node p(0);
  p.e.add_request(prefill_spec(1, 8), 0);
  p.step(0);
  p.e.remote_heartbeat(1, 100);
  EXPECT_EQ(p.e.next_wake(100), kSimTimeNever);
  p.e.poll(10 * kLease);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63 - 2);
  p.e.remote_read_done(1, 10 * kLease);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63);
}

TEST(NixlProducer, AbortMidPrefillIsNotProcessed) {
  Node p(0);
  engine::RequestSpec s = prefill_spec(1, 100);
  p.e.add_request(s, 0);
  const engine::Batch* b = p.e.schedule(0);  // a 64-token chunk of 100
  ASSERT_NE(b, nullptr);
  p.e.complete(b->id, {}, 0);
  p.e.abort(1, 5);
  EXPECT_EQ(p.nixl->num_held(), 0u);
  EXPECT_EQ(p.e.stats().num_free_blocks, 63);
  p.e.add_request(nixl_spec(2, 4, 2), 6);
  p.e.schedule(6);
  const std::vector<std::string>& np = p.nixl->last_meta().reqs_not_processed;
  ASSERT_EQ(np.size(), 1u);
  EXPECT_EQ(np[0], "req-1");
}

TEST(NixlProducer, StoppedRequestHoldsItsBlocksToo) {
  Node p(0);
  engine::RequestSpec s = prefill_spec(1, 8);
  s.max_tokens = 4;
  s.eos_at_output = 1;  // ends on EOS, not LENGTH_CAPPED
  p.e.add_request(s, 0);
  const engine::StepEvents ev = p.step(0);
  ASSERT_EQ(ev.progress.size(), 1u);
  EXPECT_EQ(ev.progress[0].finish, engine::FinishReason::kStop);
  // pull_scheduler.py request_finished: FINISHED_STOPPED delays the free like LENGTH_CAPPED.
  EXPECT_EQ(p.e.stats().num_free_blocks, 63 - 2);
  EXPECT_EQ(p.nixl->num_held(), 1u);
  ASSERT_TRUE(ev.progress[0].kv_transfer_params != nullptr);
  EXPECT_EQ(ev.progress[0].kv_transfer_params->remote_num_tokens, 8);
}

TEST(NixlConsumer, RemotePrefillWaitsForRemoteKvsThenComputesOneTokenThenDecodes) {
  Node d(1);
  d.e.add_request(decode_spec(7, 18, 3, 0), 0);
  // Admission: the whole prompt is external and async, 5 blocks allocated, no tokens run.
  EXPECT_EQ(d.e.schedule(0), nullptr);
  const Request* r = d.e.core().scheduler().find(ReqRef{0, d.e.core().scheduler().slot(0).gen});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->status, RequestStatus::kWaitingForRemoteKvs);
  EXPECT_EQ(d.e.stats().num_waiting, 1);
  EXPECT_EQ(d.e.stats().num_running, 0);
  EXPECT_EQ(d.e.stats().num_free_blocks, 63 - 5);
  std::vector<engine::TransferRequest> ts;
  d.e.take_transfers(ts);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].kind, engine::TransferKind::kRemotePull);
  EXPECT_EQ(ts[0].from_instance, 0);
  EXPECT_EQ(ts[0].to_instance, 1);
  EXPECT_EQ(ts[0].num_blocks, 5);
  EXPECT_EQ(ts[0].key, 7u);
  // Not landed: nothing runs.
  EXPECT_EQ(d.e.schedule(100), nullptr);
  d.e.transfer_finished(ts[0], 200);
  // Landed: one token (the last prompt token, for logits), then decode.
  engine::StepEvents ev = d.step(210);
  ASSERT_EQ(d.last_batch.requests.size(), 1u);
  EXPECT_EQ(d.last_batch.requests[0].num_tokens, 1);
  EXPECT_EQ(d.last_batch.requests[0].context_before, 17);
  ASSERT_EQ(ev.progress.size(), 1u);
  EXPECT_TRUE(ev.progress[0].first_token);
  EXPECT_EQ(ev.progress[0].num_cached_tokens, 17);
  ev = d.step(220);
  EXPECT_EQ(d.last_batch.requests[0].num_prefill_tokens, 0);
  ev = d.step(230);
  ASSERT_EQ(ev.progress.size(), 1u);
  EXPECT_EQ(ev.progress[0].finish, engine::FinishReason::kLength);
  EXPECT_EQ(ev.progress[0].num_output_tokens, 3);
  EXPECT_EQ(d.e.stats().num_free_blocks, 63);
  // Metrics: the connector supplied 18 of 18 queried tokens; the local lookup hit nothing.
  const std::string m = d.e.metrics_text(230, "");
  EXPECT_NE(m.find("vllm:external_prefix_cache_queries_total{engine=\"0\",model_name=\"\"} 18.0"),
            std::string::npos);
  EXPECT_NE(m.find("vllm:external_prefix_cache_hits_total{engine=\"0\",model_name=\"\"} 18.0"),
            std::string::npos);
}

TEST(NixlConsumer, LocalPrefixHitIsNotPulled) {
  Node d(1);
  // A first decode request leaves 4 full blocks of the same prompt in the prefix cache.
  d.e.add_request(decode_spec(1, 18, 1, 0), 0);
  d.e.schedule(0);
  std::vector<engine::TransferRequest> ts;
  d.e.take_transfers(ts);
  d.e.transfer_finished(ts[0], 10);
  d.step(20);
  ts.clear();
  d.e.add_request(decode_spec(2, 18, 1, 0), 30);
  d.e.schedule(30);
  d.e.take_transfers(ts);
  ASSERT_EQ(ts.size(), 1u);
  // 16 tokens hit locally (4 blocks): only the fifth (unhashed) block is pulled.
  EXPECT_EQ(ts[0].num_blocks, 1);
  const NixlMeta& m = d.nixl->last_meta();
  ASSERT_EQ(m.reqs_to_recv.size(), 1u);
  EXPECT_EQ(m.reqs_to_recv[0].local_block_ids.size(), 1u);
}

TEST(NixlConsumer, AbortBeforeSchedulingStillNotifiesPrefiller) {
  VllmConfig c = cfg();
  c.max_num_seqs = 1;
  VllmEngine e(c);
  e.own_connector(std::make_unique<NixlConnector>(nixl_config(1)));
  e.add_request(nixl_spec(1, 8, 50), 0);  // occupies the only running slot
  e.add_request(decode_spec(2, 8, 3, 0), 0);
  const engine::Batch* b = e.schedule(0);
  ASSERT_NE(b, nullptr);
  e.complete(b->id, {}, 0);
  e.abort(2, 5);
  std::vector<engine::TransferRequest> ts;
  e.take_transfers(ts);
  ASSERT_EQ(ts.size(), 1u);
  EXPECT_EQ(ts[0].num_blocks, 0);  // an empty receive: the prefiller frees its blocks
  EXPECT_EQ(ts[0].from_instance, 0);
}

TEST(NixlConsumer, AbortDuringPullFreesWhenThePullEnds) {
  Node d(1);
  d.e.add_request(decode_spec(3, 12, 3, 0), 0);
  d.e.schedule(0);
  std::vector<engine::TransferRequest> ts;
  d.e.take_transfers(ts);
  d.e.abort(3, 5);
  EXPECT_EQ(d.e.stats().num_free_blocks, 63 - 3);  // the pull still writes them
  d.e.transfer_finished(ts[0], 50);
  EXPECT_EQ(d.e.stats().num_free_blocks, 63);
}

// A failed pull (TransferRequest::failed; nixl/base_worker.py _handle_failed_transfer)
// reports every local block as invalid along with finished_recving; kv_load_failure_policy
// decides (scheduler.py _handle_invalid_blocks).
TEST(NixlConsumer, FailedPullUnderFailFinishesTheRequestWithAnError) {
  Node d(1);  // the default policy: "fail"
  d.e.add_request(decode_spec(7, 18, 3, 0), 0);
  d.e.add_request(nixl_spec(8, 4, 3), 0);  // a local request keeps the engine stepping
  d.step(0);
  std::vector<engine::TransferRequest> ts;
  d.e.take_transfers(ts);
  ASSERT_EQ(ts.size(), 1u);
  ts[0].failed = true;
  d.e.transfer_finished(ts[0], 200);
  std::vector<engine::RequestProgress> out;
  d.e.take_finished_between_steps(out);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].key, 7u);
  EXPECT_EQ(out[0].finish, engine::FinishReason::kError);
  EXPECT_EQ(out[0].new_tokens, 0);
  out.clear();
  d.e.take_finished_between_steps(out);
  EXPECT_TRUE(out.empty());  // reported once
  EXPECT_EQ(d.e.stats().kv_load_failed_requests, 1u);
  EXPECT_EQ(d.e.stats().kv_load_errored_requests, 1u);
  EXPECT_EQ(d.e.stats().num_waiting, 0);
  d.step(210);
  d.step(220);
  EXPECT_EQ(d.e.stats().num_free_blocks, 63);
  const std::string m = d.e.metrics_text(220, "");
  EXPECT_NE(m.find("vllm:request_success_total{engine=\"0\",finished_reason=\"error\","
                   "model_name=\"\"} 1.0"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("vllm:nixl_num_failed_transfers_total{engine=\"0\",model_name=\"\"} 1.0"),
            std::string::npos);
}

TEST(NixlConsumer, FailedPullUnderRecomputeComputesThePromptLocally) {
  VllmConfig c = cfg();
  c.recompute_kv_load_failures = true;
  VllmEngine e(c);
  e.own_connector(std::make_unique<NixlConnector>(nixl_config(1)));
  e.add_request(decode_spec(7, 18, 3, 0), 0);
  EXPECT_EQ(e.schedule(0), nullptr);
  std::vector<engine::TransferRequest> ts;
  e.take_transfers(ts);
  ASSERT_EQ(ts.size(), 1u);
  ts[0].failed = true;
  e.transfer_finished(ts[0], 200);
  std::vector<engine::RequestProgress> out;
  e.take_finished_between_steps(out);
  EXPECT_TRUE(out.empty());
  EXPECT_EQ(e.stats().kv_load_failed_requests, 1u);
  EXPECT_EQ(e.stats().kv_load_errored_requests, 0u);
  // Nothing valid was loaded: the blocks were released and the whole prompt runs here (the
  // connector does not pull again: do_remote_prefill was cleared).
  const engine::Batch* b = e.schedule(210);
  ASSERT_NE(b, nullptr);
  ASSERT_EQ(b->requests.size(), 1u);
  EXPECT_EQ(b->requests[0].context_before, 0);
  EXPECT_EQ(b->requests[0].num_tokens, 18);
  ts.clear();
  e.take_transfers(ts);
  EXPECT_TRUE(ts.empty());
  engine::StepEvents ev = e.complete(b->id, {}, 210);
  ASSERT_EQ(ev.progress.size(), 1u);
  EXPECT_TRUE(ev.progress[0].first_token);
}

}  // namespace
}  // namespace blis::vllm
