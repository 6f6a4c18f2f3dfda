// The engine-to-recorder feed (engine_feed.h): which scheduler results reach the vllm:*
// families.

#include "engine/vllm/metrics/engine_feed.h"

#include <gtest/gtest.h>

#include "engine/sched_harness.h"
#include "engine/vllm/engine_core.h"
#include "script.h"

namespace blis::vllm::metrics {
namespace {

using testing::basic_config;

// vllm scheduler.py update_from_output: make_spec_decoding_stats runs for a request with
// scheduled drafts that got tokens back, after the `continue`s for finished requests and for
// drop-mode stale output; deliverable stale output is counted.
TEST(EngineFeed, SpecDecodeStatsCountOnlyTheVerifiedDrafts) {
  VllmConfig cfg = vllm::testing::small_config(/*async=*/true);
  cfg.num_speculative_tokens = 2;
  cfg.speculative_method = SpecMethod::kEagle;
  EngineCore core(cfg);
  RecorderConfig rc = basic_config();
  rc.num_speculative_tokens = 2;
  MetricsRecorder rec(rc, 0);
  EngineCoreOutputs pending;
  // Three requests, each scheduled with 2 drafts and given 3 tokens back.
  UpdateResult res;
  for (int i = 0; i < 3; ++i) res.updates.emplace_back().num_sampled = 3;
  res.updates[0].disposition = OutputDisposition::kStaleDropped;  // no verification
  res.updates[1].disposition = OutputDisposition::kIgnored;       // the request had finished
  RequestUpdate& stale = res.updates[2];  // stale, delivered: verified (no rollback)
  stale.disposition = OutputDisposition::kStaleDelivered;
  stale.num_sampled = 2;
  stale.num_draft_tokens = 2;
  stale.num_accepted_tokens = 1;
  feed_completed(rec, pending, res, core.scheduler(), core.scheduler().make_stats(), nullptr, 0);
  EXPECT_EQ(rec.prometheus().value("vllm:spec_decode_num_drafts", ""), 1.0);
  EXPECT_EQ(rec.prometheus().value("vllm:spec_decode_num_draft_tokens", ""), 2.0);
  EXPECT_EQ(rec.prometheus().value("vllm:spec_decode_num_accepted_tokens", ""), 1.0);
}

}  // namespace
}  // namespace blis::vllm::metrics
