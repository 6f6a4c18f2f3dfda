// Valid documents decode to the expected typed values, with every default filled in.

#include <gtest/gtest.h>

#include "diagnostics_text.h"

#include "documents.h"
#include "kernel/deployment.h"
#include "scenario/scenario_decode.h"
#include "scenario/trace_csv.h"

namespace blis::scenario {
namespace {

using ::blis::testing::all_diagnostics;

DecodeOptions data_reader() {
  DecodeOptions o;
  o.read_file = [](const std::string& path, std::string* err) -> std::optional<std::string> {
    std::ifstream in(testing::data_path(path), std::ios::binary);
    if (!in) {
      *err = "no such file";
      return std::nullopt;
    }
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
  };
  return o;
}

TEST(DecodeGood, EveryKeyDocument) {
  const DecodeResult r = decode_scenario(testing::read_data("full.json"), data_reader());
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  EXPECT_FALSE(has_errors(r.diagnostics));
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.name, "every key");
  EXPECT_EQ(s.seed, 18446744073709551615ULL);
  EXPECT_EQ(s.horizon.duration_s, 600.0);
  EXPECT_EQ(s.horizon.max_requests, 5000);
  EXPECT_FALSE(s.horizon.drain);
  EXPECT_EQ(s.fabric, "ib-ndr");

  ASSERT_EQ(s.pools.size(), 2u);
  const Pool& p = s.pools[0];
  EXPECT_EQ(p.name, "prefill");
  EXPECT_EQ(p.role, "prefill");
  EXPECT_EQ(p.instances, 2);
  EXPECT_EQ(p.parallelism.tp, 2);
  EXPECT_EQ(p.engine.release, "0.31.0");
  EXPECT_EQ(p.engine.memory_profile, "vllm-0.15");
  EXPECT_EQ(s.pools[1].engine.memory_profile, "current");  // the default
  const VllmArgs& a = p.engine.args;
  EXPECT_EQ(a.max_model_len, 8000);           // "8k"
  EXPECT_EQ(a.max_num_batched_tokens, 8192);  // "8K"
  EXPECT_EQ(a.max_num_seqs, 64);
  EXPECT_EQ(a.block_size, 32);
  EXPECT_DOUBLE_EQ(a.gpu_memory_utilization, 0.85);
  EXPECT_EQ(a.kv_cache_dtype, "fp8_e4m3");
  EXPECT_EQ(a.dtype, "bfloat16");
  EXPECT_EQ(a.long_prefill_token_threshold, 2048);
  EXPECT_EQ(a.max_num_partial_prefills, 2);
  EXPECT_EQ(a.scheduling_policy, "priority");
  EXPECT_FALSE(a.async_scheduling);
  EXPECT_FALSE(a.scheduler_reserve_full_isl);
  EXPECT_EQ(a.prefix_caching_hash_algo, "sha256_cbor");
  EXPECT_TRUE(a.enforce_eager);
  ASSERT_TRUE(a.kv_transfer_config);
  EXPECT_EQ(a.kv_transfer_config->kv_connector, "NixlConnector");
  EXPECT_EQ(a.kv_transfer_config->kv_role, "kv_producer");

  const VllmArgs& d = s.pools[1].engine.args;
  EXPECT_EQ(s.pools[1].engine.release, "0.32.0");
  EXPECT_EQ(s.pools[1].parallelism.tp, 1);  // default
  EXPECT_EQ(d.kv_cache_memory_bytes, 40LL << 30);
  EXPECT_EQ(d.num_gpu_blocks_override, 20000);
  EXPECT_TRUE(d.enable_lora);
  EXPECT_EQ(d.max_loras, 2);
  EXPECT_EQ(d.max_lora_rank, 64);
  EXPECT_EQ(d.max_cpu_loras, 4);
  ASSERT_TRUE(d.speculative_config);
  EXPECT_EQ(d.speculative_config->method, "eagle3");
  EXPECT_EQ(d.speculative_config->num_speculative_tokens, 3);
  EXPECT_DOUBLE_EQ(d.speculative_config->acceptance_rate, 0.6);
  EXPECT_TRUE(d.async_scheduling);  // EAGLE keeps async scheduling on
  EXPECT_DOUBLE_EQ(d.gpu_memory_utilization, 0.92);
  EXPECT_EQ(d.kv_transfer_config->kv_role, "kv_consumer");

  EXPECT_EQ(s.router.policy, "weighted");
  ASSERT_EQ(s.router.scorers.size(), 3u);
  EXPECT_EQ(s.router.scorers[1].name, "kv-utilization");
  EXPECT_DOUBLE_EQ(s.router.scorers[1].weight, 0.5);
  EXPECT_DOUBLE_EQ(s.router.signal_staleness_ms, 50);

  ASSERT_EQ(s.workload.clients.size(), 4u);
  const Client& chat = s.workload.clients[0];
  EXPECT_EQ(chat.load.kind, Load::Kind::kStages);
  ASSERT_EQ(chat.load.stages.size(), 2u);
  EXPECT_DOUBLE_EQ(chat.load.stages[1].rate, 20);
  EXPECT_EQ(chat.load.arrival.kind, ArrivalProcess::Kind::kGamma);
  EXPECT_DOUBLE_EQ(chat.load.arrival.cv, 2.0);
  ASSERT_TRUE(chat.shared_prefix);
  EXPECT_EQ(chat.shared_prefix->question_tokens, 447);
  EXPECT_TRUE(chat.shared_prefix->multi_turn);
  EXPECT_EQ(chat.priority, 1);
  EXPECT_EQ(chat.slo_class, "interactive");

  const Client& batch = s.workload.clients[1];
  EXPECT_EQ(batch.load.kind, Load::Kind::kRate);
  EXPECT_DOUBLE_EQ(batch.load.rate, 2.5);
  EXPECT_EQ(batch.load.arrival.kind, ArrivalProcess::Kind::kConstant);
  ASSERT_TRUE(batch.prompt_tokens);
  EXPECT_EQ(batch.prompt_tokens->kind, LengthDist::Kind::kLognormal);
  EXPECT_DOUBLE_EQ(batch.prompt_tokens->mean, 1500);
  EXPECT_DOUBLE_EQ(batch.prompt_tokens->std, 400);
  EXPECT_EQ(batch.prompt_tokens->min, 10.0);
  EXPECT_EQ(batch.prompt_tokens->max, 6000.0);
  EXPECT_EQ(batch.output_tokens->kind, LengthDist::Kind::kNormal);
  ASSERT_TRUE(batch.prefix);
  EXPECT_EQ(batch.prefix->groups, 4);
  EXPECT_FALSE(batch.ignore_eos);
  EXPECT_EQ(batch.lora, 1);

  const Client& agents = s.workload.clients[2];
  EXPECT_EQ(agents.load.kind, Load::Kind::kConcurrency);
  EXPECT_EQ(agents.load.concurrency, 16);
  EXPECT_DOUBLE_EQ(agents.load.think_time_s, 1.5);
  EXPECT_EQ(agents.prompt_tokens->kind, LengthDist::Kind::kUniform);
  EXPECT_EQ(agents.output_tokens->kind, LengthDist::Kind::kExponential);
  EXPECT_TRUE(agents.ignore_eos);  // default

  const Client& replay = s.workload.clients[3];
  ASSERT_TRUE(replay.trace);
  EXPECT_EQ(replay.trace->path, "trace.csv");
  EXPECT_EQ(replay.trace->csv, testing::read_data("trace.csv"));

  EXPECT_EQ(s.slo.ttft_ms, 500.0);
  EXPECT_EQ(s.slo.e2e_ms, 20000.0);
  ASSERT_EQ(s.slo_classes.size(), 2u);
  EXPECT_EQ(s.slo_classes[0].slo.itl_ms, 30.0);
  EXPECT_FALSE(s.slo_classes[1].slo.ttft_ms.has_value());
  EXPECT_DOUBLE_EQ(s.outputs.timeseries_interval_ms, 500);
  EXPECT_FALSE(s.outputs.per_request);
}

TEST(DecodeGood, OffloadingTraceDocument) {
  const DecodeResult r = decode_scenario(testing::read_data("unified_offload.json"));
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  const Scenario& s = *r.scenario;
  EXPECT_EQ(s.seed, 1u);  // default
  EXPECT_TRUE(s.horizon.drain);
  const VllmArgs& a = s.pools[0].engine.args;
  EXPECT_EQ(s.pools[0].engine.release, "0.29.1");
  EXPECT_EQ(a.quantization, "fp8_per_tensor");
  EXPECT_EQ(a.performance_mode, "throughput");
  ASSERT_TRUE(a.kv_transfer_config);
  EXPECT_EQ(a.kv_transfer_config->kv_connector, "OffloadingConnector");
  EXPECT_EQ(a.kv_transfer_config->cpu_bytes_to_use, 64LL << 30);
  EXPECT_EQ(a.kv_offloading_size_gib, 64.0);
  EXPECT_FALSE(a.async_scheduling);  // ngram turns async scheduling off (with a warning)
  EXPECT_EQ(s.router.policy, "least-loaded");
  ASSERT_TRUE(s.workload.trace_csv);
  EXPECT_TRUE(s.workload.clients.empty());
  bool warned = false;
  for (const auto& d : r.diagnostics) {
    warned |= d.pointer == "/pools/0/engine/args/speculative_config/method" &&
              d.severity == Severity::kWarning;
  }
  EXPECT_TRUE(warned) << all_diagnostics(r.diagnostics);
}

TEST(DecodeGood, DefaultsOfAMinimalDocument) {
  const DecodeResult r = decode_scenario(testing::base_unified().dump());
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  EXPECT_TRUE(r.diagnostics.empty()) << all_diagnostics(r.diagnostics);
  const Scenario& s = *r.scenario;
  const Pool& p = s.pools[0];
  EXPECT_EQ(p.role, "unified");
  EXPECT_EQ(p.instances, 1);
  EXPECT_EQ(p.engine.kind, "vllm");
  EXPECT_EQ(p.engine.memory_profile, kernel::kMemoryProfileCurrent);
  EXPECT_EQ(s.router.policy, "round-robin");
  EXPECT_DOUBLE_EQ(s.outputs.timeseries_interval_ms, 1000);
  EXPECT_TRUE(s.outputs.per_request);
  const Client& c = s.workload.clients[0];
  EXPECT_EQ(c.load.arrival.kind, ArrivalProcess::Kind::kPoisson);
  EXPECT_EQ(c.prompt_tokens->kind, LengthDist::Kind::kConstant);
  EXPECT_DOUBLE_EQ(c.prompt_tokens->value, 512);
}

TEST(DecodeGood, PdDocumentGetsNixlOnBothPools) {
  const DecodeResult r = decode_scenario(testing::base_pd().dump());
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  for (const auto& p : r.scenario->pools) {
    ASSERT_TRUE(p.engine.args.kv_transfer_config) << p.name;
    EXPECT_EQ(p.engine.args.kv_transfer_config->kv_connector, "NixlConnector");
  }
  EXPECT_EQ(r.scenario->workload.clients[0].name, "client-0");
  EXPECT_EQ(r.scenario->pools[0].engine.release, "0.32.0");
}

// Hardware-dependent defaults reach the decoded scenario through the catalog
// (EngineArgs.get_batch_defaults, OPENAI_API_SERVER usage context).
TEST(DecodeGood, BatchDefaultsFollowTheGpu) {
  struct Row {
    const char* gpu;
    int mnbt, mns;
  };
  for (const Row& row : {Row{"H100-SXM-80GB", 8192, 1024}, Row{"H200-SXM-141GB", 8192, 1024},
                         Row{"B200-SXM-180GB", 8192, 1024}, Row{"MI300X-192GB", 8192, 1024},
                         Row{"A100-SXM-80GB", 2048, 256}, Row{"L40S-48GB", 2048, 256}}) {
    nlohmann::json doc = testing::base_unified();
    doc["pools"][0]["hardware"] = row.gpu;
    const DecodeResult r = decode_scenario(doc.dump());
    ASSERT_TRUE(r.scenario) << row.gpu << "\n" << all_diagnostics(r.diagnostics);
    EXPECT_EQ(r.scenario->pools[0].engine.args.max_num_batched_tokens, row.mnbt) << row.gpu;
    EXPECT_EQ(r.scenario->pools[0].engine.args.max_num_seqs, row.mns) << row.gpu;
  }
}

TEST(DecodeGood, MaxModelLenDefaultsToTheModel) {
  const DecodeResult r = decode_scenario(testing::base_pd().dump());
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.scenario->pools[0].engine.args.max_model_len, 131072);
}

TEST(DecodeGood, MlaModelsGetFlashMlaBlocks) {
  nlohmann::json doc = testing::base_unified();
  doc["pools"][0]["hardware"] = "B200-SXM-180GB";
  doc["pools"][0]["model"] = "deepseek-ai/DeepSeek-V3";
  doc["pools"][0]["parallelism"] = {{"tp", 8}};
  const DecodeResult r = decode_scenario(doc.dump());
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.scenario->pools[0].engine.args.block_size, 64);
}

// vLLM 0.32 takes any multiple of 16 on CUDA; the kernel prices any positive block size.
TEST(DecodeGood, BlockSizeOtherThanAPowerOfTwo) {
  nlohmann::json doc = testing::base_unified();
  doc["pools"][0]["engine"]["args"]["block_size"] = 48;
  const DecodeResult r = decode_scenario(doc.dump());
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.scenario->pools[0].engine.args.block_size, 48);
}

TEST(DecodeGood, InlineCatalogEntryIsUsable) {
  nlohmann::json gpu =
      nlohmann::json::parse(testing::read_data("../../../catalog/gpus/H100-SXM-80GB.json"));
  gpu["id"] = "my-lab-gpu";
  nlohmann::json doc = testing::base_unified();
  doc["catalog"] = {{"gpus", {gpu}}};
  doc["pools"][0]["hardware"] = "my-lab-gpu";
  const DecodeResult r = decode_scenario(doc.dump());
  ASSERT_TRUE(r.scenario) << all_diagnostics(r.diagnostics);
  EXPECT_EQ(r.scenario->catalog.gpus.size(), 1u);
  EXPECT_EQ(r.scenario->pools[0].engine.args.max_num_seqs, 1024);
}

// Every row of `csv` (the one reader the decoder and the workload share); fails the test on
// an error.
std::vector<TraceRow> rows_of(const std::string& csv) {
  EXPECT_TRUE(validate_trace_csv(csv, "/p").empty())
      << all_diagnostics(validate_trace_csv(csv, "/p"));
  std::vector<TraceRow> rows;
  TraceCsvReader reader(csv);
  TraceRow row;
  while (reader.next(row)) rows.push_back(row);
  return rows;
}

TEST(TraceCsv, ParsesRowsAndOptionalColumns) {
  const auto rows = rows_of(testing::read_data("trace.csv"));
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_DOUBLE_EQ(rows[1].arrival_s, 0.25);
  EXPECT_EQ(rows[1].prompt_tokens, 1024);
  EXPECT_EQ(rows[1].prefix_group, -1);
  EXPECT_GE(rows[1].session, 0);  // session "2"
  EXPECT_EQ(rows[2].prefix_group, 1);
  EXPECT_EQ(rows[3].output_tokens, 256);
  EXPECT_EQ(rows[3].session, -1);  // no session
}

TEST(TraceCsv, HeaderlessAndOtherHeaders) {
  for (const char* csv :
       {"0,10,5\n0.5,20,6,3,user-a\n", "time,in,out\n0,10,5\n0.5,20,6,3,user-a\n"}) {
    const auto rows = rows_of(csv);
    ASSERT_EQ(rows.size(), 2u) << csv;
    EXPECT_EQ(rows[1].prefix_group, 3);
    EXPECT_EQ(rows[1].session, 0);  // "user-a", the first session
  }
}

TEST(TraceCsv, ColumnsInAnyOrder) {
  const auto rows = rows_of(
      "output_tokens,prefix_tokens,prefix_group,arrival_s,prompt_tokens\r\n7,5,2,0.5,10\r\n");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].output_tokens, 7);
  EXPECT_EQ(rows[0].prefix_tokens, 5);
  EXPECT_EQ(rows[0].prefix_group, 2);
  EXPECT_EQ(rows[0].prompt_tokens, 10);
}

TEST(Validate, SameDiagnosticsWithoutFileAccess) {
  const std::string text = testing::read_data("full.json");
  const Diagnostics ds = validate_scenario_text(text);
  bool trace_error = false;
  for (const auto& d : ds) {
    trace_error |= d.pointer == "/workload/clients/3/trace/path" &&
                   d.message.find("give the CSV inline as \"csv\"") != std::string::npos;
  }
  EXPECT_TRUE(trace_error) << all_diagnostics(ds);
  const Diagnostics ok = validate_scenario_text(testing::base_unified().dump());
  EXPECT_TRUE(ok.empty()) << all_diagnostics(ok);
}

}  // namespace
}  // namespace blis::scenario
