// A long randomized run: the exposition and log lines hash to one constant natively and in
// WebAssembly, and recording a step allocates nothing once warmed up.

#include <gtest/gtest.h>

#include <vector>

#include "alloc_counter.h"
#include "script.h"
#include "util/digest.h"
#include "util/rng.h"

namespace blis::vllm::metrics {
namespace {

using testing::ms;

// Drives a recorder like an engine would: requests arrive, are scheduled, sometimes
// preempted, produce 1..k+1 tokens per step and finish for various reasons.
class RandomEngine {
 public:
  RandomEngine(std::uint64_t seed, RecorderConfig config)
      : rng_(Rng::stream(seed, "metrics-test")), rec_(std::move(config), 0) {
    batch_.outputs.reserve(64);
    batch_.events.reserve(256);
    live_.reserve(64);
    batch_.scheduler_stats.spec_decoding_stats.reset(rec_.config().num_speculative_tokens);
  }

  void step() {
    now_ += static_cast<SimTime>(rng_.uniform_int(5000, 60000));
    if (live_.size() < 48 && rng_.uniform01() < 0.6) {
      const RequestHandle h = next_handle_++ % 64;
      if (!rec_.active(h)) {
        RequestInfo info;
        info.arrival_time = now_ - rng_.uniform_int(0, 4000);
        info.num_prompt_tokens = static_cast<std::int32_t>(rng_.uniform_int(1, 3000));
        // One draw per statement: operand evaluation order differs between compilers.
        const std::int64_t has_max = rng_.uniform_int(0, 1);
        info.max_tokens = static_cast<std::int32_t>(has_max * rng_.uniform_int(1, 500));
        const auto lora = static_cast<std::int32_t>(rng_.uniform_int(0, 2));
        rec_.add_request(h, info, lora);
        batch_.events.push_back({h, EngineCoreEventType::kQueued, info.arrival_time + 10});
        live_.push_back(h);
      }
    }
    SchedulerStats& st = batch_.scheduler_stats;
    batch_.has_scheduler_stats = rng_.uniform01() < 0.9;
    st.spec_decoding_stats.reset(rec_.config().num_speculative_tokens);
    st.has_spec_decoding_stats = false;
    for (std::size_t i = 0; i < live_.size();) {
      const RequestHandle h = live_[i];
      const double u = rng_.uniform01();
      if (u < 0.3) batch_.events.push_back({h, EngineCoreEventType::kScheduled, now_ - 100});
      if (u > 0.97) batch_.events.push_back({h, EngineCoreEventType::kPreempted, now_ - 50});
      if (rng_.uniform01() < 0.7) {
        const std::int32_t drafts = static_cast<std::int32_t>(rng_.uniform_int(0, 2));
        const std::int32_t accepted = static_cast<std::int32_t>(rng_.uniform_int(0, drafts));
        if (drafts > 0) {
          st.has_spec_decoding_stats = true;
          st.spec_decoding_stats.observe_draft(drafts, accepted);
        }
        EngineCoreOutput out;
        out.request = h;
        out.num_new_tokens = 1 + accepted;
        out.num_cached_tokens = static_cast<std::int32_t>(rng_.uniform_int(0, 16)) * 16;
        const double f = rng_.uniform01();
        out.finish_reason = f < 0.05   ? FinishReason::kStop
                            : f < 0.08 ? FinishReason::kLength
                            : f < 0.09 ? FinishReason::kAbort
                                       : FinishReason::kNone;
        batch_.outputs.push_back(out);
        if (out.finish_reason != FinishReason::kNone) {
          live_[i] = live_.back();
          live_.pop_back();
          continue;
        }
      }
      ++i;
    }
    st.num_running_reqs = static_cast<std::int32_t>(live_.size());
    st.num_waiting_reqs = static_cast<std::int32_t>(rng_.uniform_int(0, 5));
    st.num_skipped_waiting_reqs = static_cast<std::int32_t>(rng_.uniform_int(0, 1));
    st.kv_cache_usage = static_cast<double>(rng_.uniform_int(0, 1000)) / 1000.0;
    st.prefix_cache_stats.clear();
    const std::int64_t queries = rng_.uniform_int(1, 3000);
    const std::int64_t hits = rng_.uniform_int(0, 1000);
    const bool preempted = rng_.uniform01() < 0.1;
    st.prefix_cache_stats.record(queries, hits, preempted);
    batch_.timestamp = now_;
    rec_.record(batch_);
    batch_.clear();
  }

  MetricsRecorder& recorder() { return rec_; }
  SimTime now() const { return now_; }

 private:
  Rng rng_;
  MetricsRecorder rec_;
  EngineCoreOutputs batch_;
  std::vector<RequestHandle> live_;
  RequestHandle next_handle_ = 0;
  SimTime now_ = 0;
};

RecorderConfig random_config() {
  RecorderConfig c = testing::basic_config(Release::kV0_32);
  c.num_speculative_tokens = 2;
  c.lora_enabled = true;
  c.max_loras = 2;
  c.lora_names = {"a", "b"};
  c.max_model_len = 8192;
  return c;
}

TEST(Determinism, ExpositionDigestIsTheSameOnEveryPlatform) {
  RandomEngine engine(42, random_config());
  Digest d;
  for (int i = 0; i < 3000; ++i) {
    engine.step();
    if (i % 250 == 249) {
      const LogRecord r = engine.recorder().log(engine.now());
      d.add_string(r.line);
      d.add_string(r.spec_decode_line);
    }
  }
  const std::string text = engine.recorder().exposition("instance=\"x\"");
  d.add_string(text);
  EXPECT_GT(engine.recorder().prometheus().histogram("vllm:e2e_request_latency_seconds")->count,
            100u);
  // Natively and under node (WASM) alike; a change here means the output bytes changed.
  EXPECT_EQ(d.hex(), "b1aa8628683fbc01") << text.substr(0, 2000);
}

TEST(Determinism, RecordingAllocatesNothingOnceWarm) {
  RandomEngine engine(7, random_config());
  for (int i = 0; i < 2000; ++i) engine.step();  // vectors reach their peak sizes
  // (A vllm:lora_requests_info child is created when a new adapter list appears; with two
  // adapters the five possible lists have all appeared by now.)
  const std::uint64_t before = testing::allocation_count();
  for (int i = 0; i < 500; ++i) engine.step();
  EXPECT_EQ(testing::allocation_count() - before, 0u);
  // The counter does see allocations.
  ::operator delete(::operator new(16));  // an explicit call cannot be elided
  EXPECT_GT(testing::allocation_count() - before, 0u);
}

}  // namespace
}  // namespace blis::vllm::metrics
