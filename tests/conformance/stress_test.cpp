// Stress: random inputs of the kinds the held-out conformance cases use (large random mixes,
// priority under pressure, async scheduling with aborts in both phases, many tiny requests,
// prefix-heavy loads, speculative decoding with LoRA and stop conditions, and the metrics
// traces of ext/FORMAT.md under KV pressure, priority and async scheduling). The engine must
// never crash, must finish every case whose requests can fit, must be deterministic, and the
// scheduler and KV invariants must hold after every step.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "conform/conform.h"
#include "conform/conform_ext.h"
#include "engine/invariants.h"
#include "engine/vllm/engine_core.h"
#include "sanitizer_share.h"
#include "util/rng.h"

namespace blis::vllm {
namespace {

using json = nlohmann::json;

enum class Kind {
  kRandomMix,
  kPriorityPressure,
  kAsyncAborts,
  kTiny,
  kPrefixHeavy,
  kSpecLoraStops,
  kMetricsPressure
};

const char* name(Kind k) {
  switch (k) {
    case Kind::kRandomMix:
      return "random-mix";
    case Kind::kPriorityPressure:
      return "priority-pressure";
    case Kind::kAsyncAborts:
      return "async-aborts";
    case Kind::kTiny:
      return "tiny";
    case Kind::kPrefixHeavy:
      return "prefix-heavy";
    case Kind::kSpecLoraStops:
      return "spec-lora-stops";
    case Kind::kMetricsPressure:
      return "metrics-pressure";
  }
  return "?";
}

// A conformance input whose every request can run alone, so the case must complete.
json make_case(Kind kind, std::uint64_t seed) {
  Rng rng = Rng::stream(seed, name(kind));
  const std::int32_t bs =
      std::vector<std::int32_t>{1, 4, 8, 16, 32}[static_cast<std::size_t>(rng.uniform_int(0, 4))];
  const std::int32_t mml =
      std::vector<std::int32_t>{64, 128, 256, 512}[static_cast<std::size_t>(rng.uniform_int(0, 3))];
  const bool chunked = rng.uniform01() < 0.8;
  std::int32_t batched = static_cast<std::int32_t>(rng.uniform_int(16, 256));
  if (!chunked && batched < mml) batched = mml;
  const std::int32_t seqs =
      static_cast<std::int32_t>(std::min<std::int64_t>(rng.uniform_int(1, 24), batched));
  const bool priority = kind == Kind::kPriorityPressure || rng.uniform01() < 0.25;
  const bool async = kind == Kind::kAsyncAborts || rng.uniform01() < 0.5;
  const bool pressure =
      kind == Kind::kPriorityPressure || kind == Kind::kMetricsPressure || rng.uniform01() < 0.5;
  // Enough blocks for the longest sequence, few enough to force preemptions under pressure.
  const std::int32_t min_blocks = (mml + bs - 1) / bs + 1;
  const std::int32_t blocks =
      pressure ? min_blocks + static_cast<std::int32_t>(rng.uniform_int(0, min_blocks))
               : min_blocks * static_cast<std::int32_t>(rng.uniform_int(2, 8));
  json cfg = {{"block_size", bs},
              {"num_gpu_blocks", blocks},
              {"max_num_seqs", seqs},
              {"max_num_batched_tokens", batched},
              {"max_model_len", mml},
              {"enable_chunked_prefill", chunked},
              {"long_prefill_token_threshold", rng.uniform01() < 0.3 ? rng.uniform_int(8, 64) : 0},
              {"enable_prefix_caching", rng.uniform01() < 0.8},
              {"policy", priority ? "priority" : "fcfs"},
              {"async_scheduling", async}};
  if (rng.uniform01() < 0.3) cfg["scheduler_reserve_full_isl"] = rng.uniform01() < 0.5;
  if (rng.uniform01() < 0.2) cfg["watermark"] = 0.01 * static_cast<double>(rng.uniform_int(1, 10));
  if (rng.uniform01() < 0.2) cfg["token_fn"] = "per_request";
  // The metrics cases take every base key too (ext/FORMAT.md: the input is a superset).
  const bool extras =
      kind == Kind::kSpecLoraStops || (kind == Kind::kMetricsPressure && rng.uniform01() < 0.5);
  std::int32_t k = 0;
  if (extras) {
    // FORMAT.md "Additions ...": spec decode (an async-capable method when async), LoRA.
    k = static_cast<std::int32_t>(rng.uniform_int(1, 4));
    const std::vector<std::string> methods = {"ngram_gpu", "draft_model", "eagle",
                                              "eagle3",    "mtp",         "ngram"};
    cfg["num_speculative_tokens"] = k;
    cfg["speculative_method"] =
        methods[static_cast<std::size_t>(rng.uniform_int(0, async ? 4 : 5))];
    cfg["max_loras"] = rng.uniform_int(1, 3);
    // Room for the draft model's slots (max_num_batched_tokens - max_num_seqs must be > 0).
    if (batched <= seqs) cfg["max_num_batched_tokens"] = batched = seqs + 16;
    if (!chunked) cfg["max_num_batched_tokens"] = batched = std::max(batched, mml + seqs);
  }
  const std::int32_t n =
      kind == Kind::kTiny ? 150 : static_cast<std::int32_t>(rng.uniform_int(10, 60));
  std::vector<std::vector<std::int32_t>> prefixes;
  for (int p = 0; p < 4; ++p) {
    std::vector<std::int32_t> t;
    const auto len = rng.uniform_int(1, mml / 2);
    for (std::int64_t i = 0; i < len; ++i)
      t.push_back(static_cast<std::int32_t>(rng.uniform_int(0, 30000)));
    prefixes.push_back(t);
  }
  json reqs = json::array();
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t cap = kind == Kind::kTiny ? 6 : mml - 1;
    std::int32_t len = static_cast<std::int32_t>(rng.uniform_int(1, std::min(cap, 200)));
    std::vector<std::int32_t> prompt;
    if (kind == Kind::kPrefixHeavy || rng.uniform01() < 0.3)
      prompt = prefixes[static_cast<std::size_t>(rng.uniform_int(0, 3))];
    prompt.resize(std::min<std::size_t>(prompt.size(), static_cast<std::size_t>(len)));
    while (static_cast<std::int32_t>(prompt.size()) < len)
      prompt.push_back(static_cast<std::int32_t>(rng.uniform_int(0, 30000)));
    // Without chunked prefill a resumed request recomputes prompt + outputs in one step.
    std::int32_t max_tokens =
        static_cast<std::int32_t>(rng.uniform_int(1, kind == Kind::kTiny ? 4 : 40));
    if (!chunked) max_tokens = std::min(max_tokens, std::max(1, batched - len));
    const std::int32_t step =
        static_cast<std::int32_t>(rng.uniform_int(0, kind == Kind::kTiny ? 10 : n / 2));
    std::string id = "q";
    id += std::to_string(1000 + i);  // (not "q" + ...: GCC 12 -Wrestrict false positive)
    json r = {{"id", id}, {"arrival_step", step}, {"prompt", prompt}, {"max_tokens", max_tokens}};
    if (priority) r["priority"] = rng.uniform_int(0, 4);
    if (extras) {
      if (rng.uniform01() < 0.6) r["lora_id"] = rng.uniform_int(1, 4);
      if (rng.uniform01() < 0.4) {
        r["eos_token_id"] = rng.uniform01() < 0.5 ? 2 : 1003;
        if (rng.uniform01() < 0.7) r["eos_at_output"] = rng.uniform_int(1, 12);
      }
      // min_tokens overrides the max_model_len stop: keep it reachable, as real cases do.
      if (rng.uniform01() < 0.3)
        r["min_tokens"] = rng.uniform_int(0, std::min<std::int64_t>(max_tokens, mml - 1 - len));
      if (rng.uniform01() < 0.3) r["stop_token_ids"] = {1000 + rng.uniform_int(0, 15)};
      if (rng.uniform01() < 0.6) r["spec_accept"] = {rng.uniform_int(0, k), rng.uniform_int(0, k)};
      if (rng.uniform01() < 0.4) r["spec_drafts"] = {rng.uniform_int(0, k), rng.uniform_int(0, k)};
    }
    if (rng.uniform01() < 0.5)
      r["arrival_time"] =
          static_cast<double>(step) + 0.001 * static_cast<double>(rng.uniform_int(0, 3));
    reqs.push_back(r);
  }
  json aborts = json::array();
  const auto num_aborts = kind == Kind::kAsyncAborts ? n / 3 : rng.uniform_int(0, n / 6);
  for (std::int64_t i = 0; i < num_aborts; ++i) {
    json a = {
        {"id",
         rng.uniform01() < 0.9
             ? reqs[static_cast<std::size_t>(rng.uniform_int(0, n - 1))]["id"].get<std::string>()
             : std::string("unknown")},
        {"step", rng.uniform_int(0, n)}};
    if (async) a["phase"] = rng.uniform01() < 0.5 ? "input" : "during_step";
    aborts.push_back(a);
  }
  json c = {{"description", std::string("stress ") + name(kind)},
            {"config", cfg},
            {"aborts", aborts},
            {"max_steps", 100000},
            {"requests", reqs}};
  if (kind == Kind::kMetricsPressure) {
    // ext/FORMAT.md section 1: a power-of-two step length and the dump steps.
    c["metrics"] = {{"step_seconds", 1.0 / static_cast<double>(1 << rng.uniform_int(1, 6))},
                    {"dump_steps", {0, rng.uniform_int(1, 10), rng.uniform_int(11, 40)}}};
  }
  return c;
}

// The oracle's own check (FORMAT.md "Compared"): every request's delivered tokens are the
// token function over positions 0..n-1, the EOS at eos_at_output.
void expect_token_function(const json& input, const json& trace) {
  const bool per_request = input["config"].value("token_fn", "index") == "per_request";
  std::map<std::string, std::vector<std::int32_t>> got;
  for (const json& st : trace["steps"]) {
    if (!st.contains("delivered")) continue;
    for (const auto& [id, toks] : st["delivered"].items()) {
      for (const json& t : toks) got[id].push_back(t.get<std::int32_t>());
    }
  }
  for (std::size_t i = 0; i < input["requests"].size(); ++i) {
    const json& r = input["requests"][i];
    const std::string id = r["id"];
    const std::int32_t n = trace["requests"][id]["num_output_tokens"];
    std::vector<std::int32_t> want;
    for (std::int32_t p = 0; p < n; ++p) {
      const bool eos = r.value("eos_at_output", 0) == p + 1;
      want.push_back(eos ? r["eos_token_id"].get<std::int32_t>()
                         : 1000 + (per_request ? 100000 * static_cast<std::int32_t>(i) : 0) + p);
    }
    EXPECT_EQ(got[id], want) << id;
  }
}

// The value of every sample line of `family` in a Prometheus text, summed.
double sum_samples(const std::string& prom, const std::string& family) {
  double total = 0;
  std::size_t at = 0;
  while ((at = prom.find("\n" + family + "{", at)) != std::string::npos) {
    const std::size_t eol = prom.find('\n', at + 1);
    const std::size_t sp = prom.rfind(' ', eol);
    total += std::stod(prom.substr(sp + 1, eol - sp - 1));
    at = eol;
  }
  return total;
}

// Metrics traces (ext/FORMAT.md section 6): a preemption is counted when the request next
// emits, so never more than the scheduler made; every request that was not aborted finishes
// with one request_success sample.
void expect_metrics_consistent(const json& input, const json& trace) {
  std::int64_t preempted = 0;
  for (const json& st : trace["steps"]) {
    if (st.contains("preempted")) preempted += static_cast<std::int64_t>(st["preempted"].size());
  }
  const std::string prom = trace["final"];
  EXPECT_LE(sum_samples(prom, "vllm:num_preemptions_total"), static_cast<double>(preempted));
  const double finished = sum_samples(prom, "vllm:request_success_total");
  EXPECT_LE(finished, static_cast<double>(input["requests"].size()));
  if (input["aborts"].empty()) {
    EXPECT_EQ(finished, static_cast<double>(input["requests"].size()));
  }
}

class Stress : public ::testing::TestWithParam<Kind> {};

TEST_P(Stress, ConformNeverFailsAndCompletesDeterministically) {
  for (std::uint64_t seed = 1; seed <= static_cast<std::uint64_t>(blis::test::sanitizer_share(8));
       ++seed) {
    const std::string input = make_case(GetParam(), seed).dump();
    // As `blis conform` dispatches: an input with "metrics" is an ext case.
    const auto run = [](const std::string& in) {
      return is_ext_input(in) ? run_ext_conformance(in) : run_conformance(in);
    };
    const ConformOutcome a = run(input);
    ASSERT_TRUE(a.ok) << name(GetParam()) << " seed " << seed << ": "
                      << (a.diagnostics.empty() ? "" : format_diagnostic(a.diagnostics[0]));
    const json trace = json::parse(a.trace_json);
    EXPECT_TRUE(trace["completed"].get<bool>()) << name(GetParam()) << " seed " << seed;
    if (GetParam() == Kind::kMetricsPressure) {
      expect_metrics_consistent(make_case(GetParam(), seed), trace);
      EXPECT_EQ(run(input).trace_json, a.trace_json) << "not deterministic";
      continue;
    }
    for (const auto& [id, r] : trace["requests"].items()) {
      EXPECT_FALSE(r["finish_reason"].is_null())
          << name(GetParam()) << " seed " << seed << " " << id;
    }
    EXPECT_EQ(run_conformance(input).trace_json, a.trace_json) << "not deterministic";
    if (GetParam() == Kind::kSpecLoraStops)
      expect_token_function(make_case(GetParam(), seed), trace);
  }
}

// Drives EngineCore directly with the same inputs, checking the invariants after every
// schedule and every applied batch.
TEST_P(Stress, InvariantsHoldAfterEveryStep) {
  for (std::uint64_t seed = 11; seed <= 16; ++seed) {
    const json c = make_case(GetParam(), seed);
    const json& jc = c["config"];
    VllmConfig cfg;
    cfg.block_size = jc["block_size"];
    cfg.num_gpu_blocks = jc["num_gpu_blocks"];
    cfg.max_num_seqs = jc["max_num_seqs"];
    cfg.max_num_batched_tokens = jc["max_num_batched_tokens"];
    cfg.max_model_len = jc["max_model_len"];
    cfg.enable_chunked_prefill = jc["enable_chunked_prefill"];
    cfg.long_prefill_token_threshold = jc["long_prefill_token_threshold"];
    cfg.enable_prefix_caching = jc["enable_prefix_caching"];
    cfg.policy = jc["policy"] == "priority" ? SchedulingPolicy::kPriority : SchedulingPolicy::kFcfs;
    cfg.async_scheduling = jc["async_scheduling"];
    cfg.scheduler_reserve_full_isl = jc.value("scheduler_reserve_full_isl", true);
    cfg.watermark = jc.value("watermark", 0.0);
    cfg.num_speculative_tokens = jc.value("num_speculative_tokens", 0);
    if (jc.contains("speculative_method"))
      spec_method_from_string(jc["speculative_method"].get<std::string>(), cfg.speculative_method);
    cfg.max_loras = jc.value("max_loras", 0);
    EngineCore core(cfg);
    std::vector<ReqRef> refs(c["requests"].size());
    std::vector<std::vector<std::int32_t>> prompts;
    for (const auto& r : c["requests"])
      prompts.push_back(r["prompt"].get<std::vector<std::int32_t>>());
    UpdateResult res;
    Rng rng(seed);
    std::int32_t step = 0;
    for (; step < 100000; ++step) {
      for (std::size_t i = 0; i < refs.size(); ++i) {
        const json& r = c["requests"][i];
        if (r["arrival_step"] != step) continue;
        NewRequest nr;
        nr.request_id = r["id"];
        nr.key = i;
        nr.prompt_token_ids = prompts[i];
        nr.max_tokens = r["max_tokens"];
        nr.priority = r.value("priority", 0);
        nr.arrival_time = r.value("arrival_time", static_cast<double>(step));
        nr.lora_id = r.value("lora_id", 0);
        refs[i] = core.scheduler().add_request(nr);
      }
      for (const auto& a : c["aborts"]) {
        if (a["step"] != step) continue;
        for (std::size_t i = 0; i < refs.size(); ++i) {
          if (c["requests"][i]["id"] != a["id"] || refs[i].index < 0) continue;
          if (a.value("phase", "input") == "during_step" && core.in_flight() > 0) {
            core.queue_abort(refs[i]);
          } else {
            core.abort_now(refs[i]);
          }
        }
      }
      const bool arrived_all = step >= 100000 || [&] {
        for (const auto& r : c["requests"]) {
          if (r["arrival_step"] > step) return false;
        }
        return true;
      }();
      if (core.can_schedule()) {
        InFlightBatch& b = core.schedule_batch();
        const std::string v = testing::check_scheduler_invariants(core.scheduler());
        ASSERT_EQ(v, "") << name(GetParam()) << " seed " << seed << " step " << step
                         << " after schedule";
        b.sampled.clear();
        for (const ScheduledRequest& e : b.output.scheduled) {
          const std::int32_t t = static_cast<std::int32_t>(rng.uniform_int(0, 30000));
          b.sampled.add(&t, e.samples ? 1 : 0);
        }
      }
      // Apply when the queue is full or nothing more can be scheduled (async: sometimes early).
      if (core.in_flight() > 0 && (core.in_flight() == core.batch_queue_size() ||
                                   !core.can_schedule() || rng.uniform01() < 0.5)) {
        core.apply_oldest(res, nullptr);
        const std::string v = testing::check_scheduler_invariants(core.scheduler());
        ASSERT_EQ(v, "") << name(GetParam()) << " seed " << seed << " step " << step
                         << " after update";
      }
      if (arrived_all && !core.scheduler().has_requests() && core.in_flight() == 0) break;
    }
    EXPECT_LT(step, 100000) << name(GetParam()) << " seed " << seed << " did not finish";
    EXPECT_EQ(core.scheduler().kv_cache_manager().num_free_blocks(), cfg.num_gpu_blocks - 1);
  }
}

INSTANTIATE_TEST_SUITE_P(Kinds, Stress,
                         ::testing::Values(Kind::kRandomMix, Kind::kPriorityPressure,
                                           Kind::kAsyncAborts, Kind::kTiny, Kind::kPrefixHeavy,
                                           Kind::kSpecLoraStops, Kind::kMetricsPressure),
                         [](const ::testing::TestParamInfo<Kind>& i) {
                           std::string n = name(i.param);
                           for (char& ch : n) {
                             if (ch == '-') ch = '_';
                           }
                           return n;
                         });

}  // namespace
}  // namespace blis::vllm
