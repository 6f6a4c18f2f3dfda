// Text exposition byte for byte against prometheus_client's own output for the same state
// (data/gen_exposition_golden.py), plus the exposition options.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "script.h"
#include "test_files.h"

namespace blis::vllm::metrics {
namespace {

using testing::ms;
using testing::Script;

using blis::test::read_file;

// The scenario documented in data/gen_exposition_golden.py.
Script golden_scenario() {
  RecorderConfig c;
  c.release = Release::kV0_31;
  c.model_name = "llama";
  c.engine_index = 0;
  c.max_model_len = 100;
  c.num_speculative_tokens = 2;
  c.cache_config_info = {{"block_size", "16"}, {"num_gpu_blocks", "1000"}};
  Script s(c);
  const RequestHandle a = 0, b = 1;
  s.add(a, 40, 0, 4);
  s.add(b, 10, ms(500), 0);

  s.queued(a, 0);
  s.scheduled(a, ms(125));
  s.out(a, 1, FinishReason::kNone, 16);
  auto& st1 = s.sched();
  st1.num_running_reqs = 1;
  st1.kv_cache_usage = 0.25;
  st1.prefix_cache_stats.record(40, 16, false);
  s.flush(ms(250));

  s.queued(b, ms(500));
  s.scheduled(b, ms(625));
  s.out(a, 3, FinishReason::kLength);
  s.out(b, 1, FinishReason::kNone, 0);
  auto& st2 = s.sched();
  st2.num_running_reqs = 2;
  st2.num_waiting_reqs = 1;
  st2.num_skipped_waiting_reqs = 1;
  st2.kv_cache_usage = 0.5;
  st2.prefix_cache_stats.record(10, 0, false);
  st2.has_spec_decoding_stats = true;
  st2.spec_decoding_stats.reset(2);
  st2.spec_decoding_stats.observe_draft(2, 2);
  s.flush(ms(750));

  s.preempted(b, ms(800));
  s.out(b, 1, FinishReason::kStop, 0, 0);
  s.sched();
  s.flush(ms(1000));

  s.sched();
  s.flush(ms(1500));
  return s;
}

TEST(Exposition, MatchesPrometheusClientByteForByte) {
  Script s = golden_scenario();
  const std::string expected =
      read_file(std::string(BLIS_SOURCE_DIR) + "/tests/metrics/data/exposition_golden.txt");
  ASSERT_FALSE(expected.empty());
  const std::string text = s.rec.exposition("instance=\"i0\"");
  EXPECT_EQ(text, expected);
}

TEST(Exposition, SmallFamiliesVerbatim) {
  Script s = golden_scenario();
  const std::string text = s.rec.exposition();
  EXPECT_NE(text.find("# HELP vllm:request_success_total Count of successfully processed "
                      "requests.\n"
                      "# TYPE vllm:request_success_total counter\n"
                      "vllm:request_success_total{engine=\"0\",finished_reason=\"stop\","
                      "model_name=\"llama\"} 1.0\n"
                      "vllm:request_success_total{engine=\"0\",finished_reason=\"length\","
                      "model_name=\"llama\"} 1.0\n"
                      "vllm:request_success_total{engine=\"0\",finished_reason=\"abort\","
                      "model_name=\"llama\"} 0.0\n"
                      "vllm:request_success_total{engine=\"0\",finished_reason=\"error\","
                      "model_name=\"llama\"} 0.0\n"
                      "vllm:request_success_total{engine=\"0\",finished_reason=\"repetition\","
                      "model_name=\"llama\"} 0.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP vllm:request_params_n Histogram of the n request parameter.\n"
                      "# TYPE vllm:request_params_n histogram\n"
                      "vllm:request_params_n_bucket{engine=\"0\",le=\"1.0\",model_name=\"llama\"}"
                      " 2.0\n"
                      "vllm:request_params_n_bucket{engine=\"0\",le=\"2.0\",model_name=\"llama\"}"
                      " 2.0\n"
                      "vllm:request_params_n_bucket{engine=\"0\",le=\"5.0\",model_name=\"llama\"}"
                      " 2.0\n"
                      "vllm:request_params_n_bucket{engine=\"0\",le=\"10.0\",model_name=\"llama\"}"
                      " 2.0\n"
                      "vllm:request_params_n_bucket{engine=\"0\",le=\"20.0\",model_name=\"llama\"}"
                      " 2.0\n"
                      "vllm:request_params_n_bucket{engine=\"0\",le=\"+Inf\",model_name=\"llama\"}"
                      " 2.0\n"
                      "vllm:request_params_n_count{engine=\"0\",model_name=\"llama\"} 2.0\n"
                      "vllm:request_params_n_sum{engine=\"0\",model_name=\"llama\"} 2.0\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# HELP vllm:cache_config_info Information of the LLMEngine CacheConfig\n"
                      "# TYPE vllm:cache_config_info gauge\n"
                      "vllm:cache_config_info{block_size=\"16\",engine=\"0\","
                      "num_gpu_blocks=\"1000\"} 1.0\n"),
            std::string::npos);
  // cache_config_info is registered last (log_engine_initialized runs after __init__).
  EXPECT_EQ(text.rfind("# HELP "), text.find("# HELP vllm:cache_config_info"));
}

TEST(Exposition, CreatedSeriesOption) {
  Script s(testing::basic_config(), ms(2500));
  const std::string text = s.rec.exposition("", true);
  EXPECT_NE(text.find("# HELP vllm:prompt_tokens_created Number of prefill tokens processed.\n"
                      "# TYPE vllm:prompt_tokens_created gauge\n"
                      "vllm:prompt_tokens_created{engine=\"0\",model_name=\"m\"} 2.5\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("vllm:e2e_request_latency_seconds_created{engine=\"0\",model_name=\"m\"} 2.5\n"
                "# HELP vllm:request_queue_time_seconds "),
      std::string::npos);
  // Gauges have no _created series.
  EXPECT_EQ(text.find("vllm:num_requests_running_created"), std::string::npos);
  EXPECT_EQ(s.rec.exposition().find("_created"), std::string::npos);
}

TEST(Exposition, ExtraLabelsAreValidated) {
  Script s(testing::basic_config());
  EXPECT_THROW(s.rec.exposition("le=\"1\""), std::invalid_argument);
  EXPECT_THROW(s.rec.exposition("instance=1"), std::invalid_argument);
  EXPECT_THROW(s.rec.exposition("finished_reason=\"x\""), std::invalid_argument);
  try {
    s.rec.exposition("a=\"1\" b=\"2\"");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("expected ','"), std::string::npos) << e.what();
  }
  const std::string text = s.rec.exposition("zone=\"z\\\"1\"");
  EXPECT_NE(
      text.find("vllm:num_requests_running{engine=\"0\",model_name=\"m\",zone=\"z\\\"1\"} 0.0\n"),
      std::string::npos);
}

// The cluster names the model and the DP rank of an instance through the label list.
TEST(Exposition, ModelNameAndEngineLabelsReplaceTheConfiguredOnes) {
  RecorderConfig c = testing::basic_config();
  c.cache_config_info = {{"block_size", "16"}};
  c.lora_enabled = true;
  Script s(c);
  s.sched();
  s.flush(ms(1000));
  const std::string text = s.rec.exposition("model_name=\"llama-8b\",engine=\"2\",pool=\"p\"");
  EXPECT_NE(
      text.find("vllm:num_requests_running{engine=\"2\",model_name=\"llama-8b\",pool=\"p\"} 0.0\n"),
      std::string::npos);
  EXPECT_NE(text.find("vllm:e2e_request_latency_seconds_bucket{engine=\"2\",le=\"0.3\","
                      "model_name=\"llama-8b\",pool=\"p\"} 0.0\n"),
            std::string::npos);
  // cache_config_info has engine but no model_name; lora_requests_info has neither.
  EXPECT_NE(text.find("vllm:cache_config_info{block_size=\"16\",engine=\"2\",pool=\"p\"} 1.0\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("vllm:lora_requests_info{max_lora=\"1\",pool=\"p\",running_lora_adapters=\"\","
                "waiting_lora_adapters=\"\"} 1.0\n"),
      std::string::npos);
  EXPECT_EQ(text.find("model_name=\"m\""), std::string::npos);
}

TEST(Exposition, LabelValuesAreEscaped) {
  RecorderConfig c = testing::basic_config();
  c.model_name = "org/mo\"del\\x";
  Script s(c);
  EXPECT_NE(s.rec.exposition().find(
                "vllm:kv_cache_usage_perc{engine=\"0\",model_name=\"org/mo\\\"del\\\\x\"} 0.0\n"),
            std::string::npos);
}

TEST(Exposition, FreshEngineExposesEveryFamilyAtZero) {
  Script s(testing::basic_config());
  const std::string text = s.rec.exposition();
  EXPECT_NE(text.find("vllm:prompt_tokens_total{engine=\"0\",model_name=\"m\"} 0.0\n"),
            std::string::npos);
  EXPECT_NE(
      text.find("vllm:time_to_first_token_seconds_count{engine=\"0\",model_name=\"m\"} 0.0\n"),
      std::string::npos);
  EXPECT_NE(
      text.find(
          "vllm:engine_sleep_state{engine=\"0\",model_name=\"m\",sleep_state=\"awake\"} 1.0\n"),
      std::string::npos);
  // 1-2-5 buckets capped at max_model_len = 4096: the last finite bucket is 2000.
  EXPECT_NE(
      text.find(
          "vllm:request_prompt_tokens_bucket{engine=\"0\",le=\"2000.0\",model_name=\"m\"} 0.0\n"
          "vllm:request_prompt_tokens_bucket{engine=\"0\",le=\"+Inf\",model_name=\"m\"} 0.0\n"),
      std::string::npos);
}

}  // namespace
}  // namespace blis::vllm::metrics
