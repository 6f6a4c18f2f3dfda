// The periodic LoggingStatLogger line (spec A.4, cases E.4, E.6, E.10, E.12).

#include <gtest/gtest.h>

#include "script.h"

namespace blis::vllm::metrics {
namespace {

using testing::basic_config;
using testing::ms;
using testing::Script;

TEST(LogLine, FieldsAndFormat) {
  Script s(basic_config());
  s.add(0, 100);
  s.add(1, 100);
  // E.4: A queries 100 tokens, B 100 of which 64 hit.
  auto& st = s.sched();
  st.prefix_cache_stats.record(100, 0, false);
  st.prefix_cache_stats.record(100, 64, false);
  st.num_running_reqs = 2;
  st.num_waiting_reqs = 1;
  st.kv_cache_usage = 0.25;  // E.6
  s.out(0, 1, FinishReason::kNone, 0);
  s.out(1, 1, FinishReason::kNone, 64);
  s.flush(ms(1000));
  const LogRecord r = s.rec.log(ms(5000));
  EXPECT_FALSE(r.debug);
  // Prompt throughput counts computed tokens: (100 + 36) / 5 s.
  EXPECT_EQ(r.line,
            "Engine 000: Avg prompt throughput: 27.2 tokens/s, Avg generation throughput: 0.4 "
            "tokens/s, Running: 2 reqs, Waiting: 1 reqs, GPU KV cache usage: 25.0%, Prefix cache "
            "hit rate: 32.0%");
  EXPECT_EQ(r.spec_decode_line, "");
}

TEST(LogLine, DeferredExternalAndEngineIndex) {
  RecorderConfig c = basic_config();
  c.engine_index = 3;
  Script s(c);
  auto& st = s.sched();
  st.num_waiting_reqs = 2;
  st.num_skipped_waiting_reqs = 3;
  st.has_connector_prefix_cache_stats = true;
  st.connector_prefix_cache_stats.record(200, 150, false);
  s.flush(ms(100));
  const LogRecord r = s.rec.log(ms(5000));
  EXPECT_EQ(r.line,
            "Engine 003: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0 "
            "tokens/s, Running: 0 reqs, Waiting: 5 reqs, Deferred: 3 reqs, GPU KV cache usage: "
            "0.0%, Prefix cache hit rate: 0.0%, External prefix cache hit rate: 75.0%");
}

// vLLM resets the interval's preemption count before it checks it, so "Preemptions: N"
// never appears (loggers.py LoggingStatLogger.log after _update_stats).
TEST(LogLine, PreemptionsFieldNeverPrints) {
  Script s(basic_config());
  s.add(0, 10);
  s.preempted(0, ms(10));
  s.out(0, 1);
  s.sched();
  s.flush(ms(100));
  EXPECT_EQ(s.value("vllm:num_preemptions"), 1);
  EXPECT_EQ(s.rec.log(ms(5000)).line.find("Preemptions"), std::string::npos);
}

// E.12: DEBUG only when this and the previous interval were both idle.
TEST(LogLine, IdleIntervalsLogAtDebug) {
  Script s(basic_config());
  s.add(0, 10);
  s.out(0, 1);
  s.flush(ms(1000));
  EXPECT_FALSE(s.rec.log(ms(5000)).debug);
  EXPECT_FALSE(s.rec.log(ms(10000)).debug);  // idle now, but the previous interval was not
  EXPECT_TRUE(s.rec.log(ms(15000)).debug);
  s.out(0, 1);
  s.flush(ms(16000));
  EXPECT_FALSE(s.rec.log(ms(20000)).debug);
}

TEST(LogLine, ZeroLengthIntervalHasZeroThroughput) {
  Script s(basic_config());
  s.add(0, 10);
  s.out(0, 1);
  s.flush(0);
  const LogRecord r = s.rec.log(0);
  EXPECT_NE(r.line.find("Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: 0.0"),
            std::string::npos);
  EXPECT_TRUE(r.debug);
}

TEST(LogLine, SpecDecodeLineWithoutDraftTokens) {
  RecorderConfig c = basic_config();
  c.num_speculative_tokens = 2;
  Script s(c);
  auto& st = s.sched();
  st.has_spec_decoding_stats = true;
  st.spec_decoding_stats.reset(2);
  s.flush(ms(10));
  // Observed but nothing drafted: numpy gives nan for the rates.
  EXPECT_EQ(
      s.rec.log(ms(2000)).spec_decode_line,
      "SpecDecoding metrics: Mean acceptance length: nan, Accepted throughput: 0.00 tokens/s, "
      "Drafted throughput: 0.00 tokens/s, Accepted: 0 tokens, Drafted: 0 tokens, "
      "Per-position acceptance rate: nan, nan, Avg Draft acceptance rate: nan%");
}

}  // namespace
}  // namespace blis::vllm::metrics
