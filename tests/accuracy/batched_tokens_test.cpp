// max_num_batched_tokens must matter where vLLM's rules make it matter (issue 11): it is the
// scheduler's token budget per step (vllm/v1/core/sched/scheduler.py Scheduler.schedule:
// token_budget = max_num_scheduled_tokens), so a prompt longer than the budget is prefilled
// in chunks over several steps, each of them a mixed batch with the running decodes that pays
// the step's weight streaming again; and it bounds the CUDA-graph sizes (vllm/config/vllm.py
// _set_cudagraph_sizes: max_cudagraph_capture_size = min(max_num_batched_tokens,
// 2 max_num_seqs, 512)). With prompts shorter than the budget no step is ever cut, and vLLM
// schedules the same batches at 1024, 2048 and 8192; docs/accuracy.md says why.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "cluster/simulation.h"
#include "scenario/scenario_decode.h"

namespace blis::accuracy {
namespace {

using nlohmann::json;

// Llama-3.1-8B on one H100, `prompt_tokens`-token prompts, `rate` requests/s for `seconds` s,
// `output_tokens` output tokens each.
std::string scenario(int max_num_batched_tokens, int prompt_tokens, double rate = 2.0,
                     double seconds = 60.0, int output_tokens = 128) {
  json s = {
      {"schema", "blis/scenario/v1"},
      {"name", "batched-tokens"},
      {"seed", 1},
      {"horizon", {{"duration_s", seconds}, {"drain", true}}},
      {"pools",
       {{{"name", "vllm"},
         {"role", "unified"},
         {"instances", 1},
         {"hardware", "H100-SXM-80GB"},
         {"model", "meta-llama/Llama-3.1-8B-Instruct"},
         {"parallelism", {{"tp", 1}, {"pp", 1}, {"dp", 1}}},
         {"engine",
          {{"kind", "vllm"},
           {"release", "0.32.0"},
           {"args",
            {{"max_model_len", 8192},
             {"max_num_batched_tokens", max_num_batched_tokens},
             {"max_num_seqs", 128}}}}}}}},
      {"router", {{"policy", "round-robin"}}},
      {"workload",
       {{"clients",
         {{{"name", "c"},
           {"load",
            {{"stages", {{{"rate", rate}, {"duration_s", seconds}}}}, {"arrival", "poisson"}}},
           {"shared_prefix",
            {{"system_prompts", 10},
             {"users_per_prompt", 10},
             {"system_prompt_tokens", 100},
             {"question_tokens", prompt_tokens - 100},
             {"output_tokens", output_tokens},
             {"multi_turn", false}}}}}}}},
  };
  return s.dump();
}

struct Means {
  double ttft = 0, e2e = 0;
  std::int64_t steps = 0;
};

Means run(int max_num_batched_tokens, int prompt_tokens, double rate = 2.0, double seconds = 60.0,
          int output_tokens = 128) {
  cluster::Simulation sim;
  const Diagnostics ds =
      sim.load(scenario(max_num_batched_tokens, prompt_tokens, rate, seconds, output_tokens),
               scenario::DecodeOptions{});
  EXPECT_FALSE(has_errors(ds)) << (ds.empty() ? "" : format_diagnostic(ds.front()));
  sim.run();
  EXPECT_TRUE(sim.done());
  const json s = json::parse(sim.summary_json(0));
  return {s["ttft_ms"]["mean"].get<double>(), s["e2e_ms"]["mean"].get<double>(),
          s["sim"]["steps"].get<std::int64_t>()};
}

TEST(BatchedTokens, ASmallerBudgetChunksLongPromptsAndSlowsTheirFirstToken) {
  const Means m1024 = run(1024, 3000), m2048 = run(2048, 3000), m8192 = run(8192, 3000);
  // 3,000 tokens take three steps at 1024, two at 2048 and one at 8192: each extra chunk is
  // one more pass over the weights (about 6 ms for 16 GB at the H100 derate) and TTFT grows.
  EXPECT_GT(m1024.ttft, m2048.ttft * 1.05) << m1024.ttft << " vs " << m2048.ttft;
  EXPECT_GT(m2048.ttft, m8192.ttft * 1.05) << m2048.ttft << " vs " << m8192.ttft;
  // The decodes that share the chunked steps wait less per step but over more steps; at this
  // load the two nearly cancel in the mean E2E (within 1%), as in vLLM.
  EXPECT_NEAR(m1024.e2e / m8192.e2e, 1.0, 0.02);
}

TEST(BatchedTokens, PromptsWithinTheBudgetScheduleTheSameBatches) {
  // 700-token prompts never fill a 1024-token step at this load: vLLM schedules the same
  // batches whatever the budget above it (and max_num_seqs 128 caps the graphs at 256 tokens
  // in both), so the results agree to well under 1%.
  const Means m1024 = run(1024, 700), m8192 = run(8192, 700);
  EXPECT_NEAR(m1024.e2e / m8192.e2e, 1.0, 0.01);
}

TEST(BatchedTokens, ABurstOfWaitingPromptsSharesTheBudgetWithLittleEffectOnTheMeans) {
  // 40 requests/s of 600-token prompts (issue 11 asked whether several waiting prompts sharing
  // one step's budget make a 1024-token budget slower): about one step in ten starts with two
  // or more prompts waiting, and at 1024 the second one is cut (Scheduler.schedule: the
  // running decodes first, then waiting prompts while token_budget lasts). The cut chunk runs
  // in the next step instead, which is shorter by as much, so the step count and the means
  // barely move (a `blis run` of this load at max_model_len 4096: 680 against 679 steps, TTFT
  // -1.3%, E2E -0.1%). A real 11% slowdown at 1024 is not what these rules produce
  // (docs/accuracy.md).
  const Means m1024 = run(1024, 600, 40.0, 5.0, 250), m8192 = run(8192, 600, 40.0, 5.0, 250);
  EXPECT_NEAR(m1024.e2e / m8192.e2e, 1.0, 0.01);
  EXPECT_NEAR(m1024.ttft / m8192.ttft, 1.0, 0.03);
  EXPECT_NEAR(static_cast<double>(m1024.steps) / static_cast<double>(m8192.steps), 1.0, 0.01);
}

}  // namespace
}  // namespace blis::accuracy
