// The parity table (parity_rows.h) for vLLM's cross-field checks of the parallelism and
// offloading keys that need another pool than the default one (rules/check_unmodelled.cpp):
// a tensor-parallel pool, a data-parallel pool of a MoE model, a MoE model on one GPU, and
// MultiModalConfig's fields on a multimodal model (parity_rows_multimodal).
// Files under vllm/ at 8d9b52f7; each row's value is one vLLM's config classes accept or refuse.

#include <gtest/gtest.h>

#include "parity_rows.h"

namespace blis::rules::testing {

namespace {

// deepseek-ai/DeepSeek-V2-Lite: MLA and 64 routed experts (ModelConfig.is_moe).
ModelFacts dsv2_lite_moe() {
  ModelFacts m = mla_model();
  m.is_moe = true;
  return m;
}

// A model vLLM runs as multimodal (catalog::Model::is_multimodal, e.g. Llama-4-Scout's
// Llama4ForConditionalGeneration): Llama-3.1-8B's sizes with MultiModalConfig built.
ModelFacts multimodal() {
  ModelFacts m = llama31_8b();
  m.is_multimodal = true;
  return m;
}

DeploymentFacts pool(ModelFacts m, int tp, int dp) {
  DeploymentFacts f = deployment(h100(), m, tp);
  f.dp = dp;
  return f;
}

std::vector<Row> tp2_rows() {
  return {
      {"nnodes", R"({"nnodes": 2})", A, "/nnodes", kAsDefault,
       "engine/arg_utils.py:2074 world 2 % nnodes 2 == 0"},
      {"nnodes", R"({"nnodes": 2, "node_rank": 1})", A, "/nnodes", kAsDefault,
       "engine/arg_utils.py:2082 0 <= node_rank < nnodes"},
      {"node_rank", R"({"nnodes": 2, "node_rank": 2})", R, "/node_rank",
       "node_rank must be between 0 and 1", "engine/arg_utils.py:2082 node_rank < nnodes"},
      {"nnodes", R"({"nnodes": 2, "data_parallel_backend": "ray"})", R, "/nnodes",
       "requires data_parallel_backend \"mp\"", "engine/arg_utils.py:2056 nnodes > 1 needs mp"},
      {"nnodes", R"({"nnodes": 2, "distributed_executor_backend": "ray"})", R,
       "/distributed_executor_backend", "nnodes > 1 can only be set",
       "config/parallel.py:963 ray with nnodes > 1"},
      {"decode_context_parallel_size", R"({"decode_context_parallel_size": 2})", R,
       "/decode_context_parallel_size", "greater than the model's total number of KV heads",
       "config/model.py:1421 GQA: tp 2 <= 8 KV heads (the MLA pool below accepts dcp 2)"},
      {"decode_context_parallel_size", R"({"decode_context_parallel_size": 4})", R,
       "/decode_context_parallel_size", "must be divisible by dcp_size=4",
       "config/parallel.py:531 tp % dcp"},
      {"prefill_context_parallel_size",
       R"({"prefill_context_parallel_size": 2, "decode_context_parallel_size": 3})", R,
       "/decode_context_parallel_size", "valid: 1, 2, 4",
       "config/parallel.py:533 dcp in (1, pcp, tp*pcp)"},
      {"ray_workers_use_nsight",
       R"({"ray_workers_use_nsight": true, "data_parallel_backend": "ray"})", A,
       "/ray_workers_use_nsight", "", "config/parallel.py:916 unset backend -> ray"},
  };
}

std::vector<Row> moe_dp4_rows() {
  return {
      {"data_parallel_rank", R"({"data_parallel_rank": 2})", A, "/data_parallel_rank", "",
       "engine/arg_utils.py:2106 external LB with a rank"},
      {"data_parallel_rank", R"({"data_parallel_rank": 4})", R, "/data_parallel_rank",
       "must be in the range [0, 4)", "config/parallel.py:886 0 <= rank < dp"},
      {"data_parallel_external_lb",
       R"({"data_parallel_external_lb": true, "data_parallel_rank": 1})", A,
       "/data_parallel_external_lb", kAsDefault, "engine/arg_utils.py:2126 rank given"},
      {"data_parallel_external_lb", R"({"data_parallel_rank": 1, "data_parallel_size_local": 2})",
       R, "/data_parallel_size_local", "requires data_parallel_size_local 1",
       "engine/arg_utils.py:2135 external rank with size_local 2"},
      {"data_parallel_hybrid_lb",
       R"({"data_parallel_hybrid_lb": true, "data_parallel_size_local": 2, "data_parallel_start_rank": 2})",
       A, "/data_parallel_hybrid_lb", kAsDefault,
       "engine/arg_utils.py:2145 hybrid with size_local"},
      {"data_parallel_hybrid_lb",
       R"({"data_parallel_hybrid_lb": true, "data_parallel_size_local": 1})", A,
       "/data_parallel_hybrid_lb", "switches to data_parallel_external_lb",
       "engine/arg_utils.py:2152 hybrid with size_local 1 -> external"},
      {"data_parallel_size_local", R"({"data_parallel_size_local": 8})", R,
       "/data_parallel_size_local", "must be <= data_parallel_size (4)",
       "config/parallel.py:475 size_local > dp"},
      {"data_parallel_start_rank",
       R"({"data_parallel_size_local": 2, "data_parallel_start_rank": 4})", R,
       "/data_parallel_start_rank", "must be in the range [0, 4)",
       "engine/arg_utils.py:2166 rank = start_rank; config/parallel.py:886"},
      {"enable_fault_tolerance", R"({"enable_fault_tolerance": true, "data_parallel_rank": 0})", A,
       "/enable_fault_tolerance", "", "engine/arg_utils.py:2109 external LB"},
      {"fault_tolerance_config",
       R"({"fault_tolerance_config": {"engine_recovery_timeout_sec": 60}, "data_parallel_rank": 3})",
       A, "/fault_tolerance_config", "", "config/fault_tolerance.py:12 int"},
      {"enable_eplb",
       R"({"enable_eplb": true, "enable_expert_parallel": true, "eplb_config": {"num_redundant_experts": 2}})",
       A, "/enable_eplb", kAsDefault, "config/parallel.py:493 EPLB with EP over dp 4"},
      {"enable_elastic_ep",
       R"({"enable_elastic_ep": true, "enable_eplb": true, "enable_expert_parallel": true, "eplb_config": {"use_async": false}})",
       A, "/enable_elastic_ep", kAsDefault, "config/parallel.py:843 elastic EP with EPLB"},
      {"enable_elastic_ep",
       R"({"enable_elastic_ep": true, "enable_eplb": true, "enable_expert_parallel": true, "data_parallel_rank": 0})",
       R, "/enable_elastic_ep", "not compatible with data_parallel_external_lb",
       "config/parallel.py:851 elastic EP with external LB"},
      {"prefill_context_parallel_size", R"({"prefill_context_parallel_size": 2})", R,
       "/prefill_context_parallel_size", "PCP does not support data parallelism",
       "config/parallel.py:527 pcp > 1 with dp > 1"},
  };
}

// Decode context parallelism on an MLA model (ModelConfig.verify_with_parallel_config checks
// the KV heads only without MLA).
std::vector<Row> mla_tp2_rows() {
  return {
      {"dcp_comm_backend", R"({"dcp_comm_backend": "a2a", "decode_context_parallel_size": 2})", A,
       "/dcp_comm_backend", kAsDefault, "config/parallel.py:541 a2a with dcp 2"},
      {"prefill_context_parallel_size",
       R"({"prefill_context_parallel_size": 2, "decode_context_parallel_size": 2})", A,
       "/prefill_context_parallel_size", kAsDefault, "config/parallel.py:533 dcp == pcp"},
  };
}

std::vector<Row> dense_dp2_rows() {
  return {
      {"data_parallel_rank", R"({"data_parallel_rank": 1})", R, "/data_parallel_rank",
       "non-MoE models do not support external data parallel mode",
       "engine/arg_utils.py:2114 external DP on a dense model"},
      {"data_parallel_size_local", R"({"data_parallel_size_local": 1})", A,
       "/data_parallel_size_local", "", "engine/arg_utils.py:2145 internal LB, one local rank"},
  };
}

std::vector<Row> moe_tp1_rows() {
  return {
      {"enable_eplb", R"({"enable_eplb": true, "enable_expert_parallel": true})", R, "/enable_eplb",
       "EPLB requires tensor, prefill-context, or data parallelism",
       "config/parallel.py:503 tp x pcp x dp <= 1"},
  };
}

}  // namespace

std::vector<PoolRows> parity_rows_cross() {
  return {
      {"tp 2, Llama-3.1-8B", pool(llama31_8b(), 2, 1), tp2_rows()},
      {"dp 4, DeepSeek-V2-Lite (MoE)", pool(dsv2_lite_moe(), 1, 4), moe_dp4_rows()},
      {"dp 2, Llama-3.1-8B (dense)", pool(llama31_8b(), 1, 2), dense_dp2_rows()},
      {"tp 2, DeepSeek-V2-Lite (MLA)", pool(mla_model(), 2, 1), mla_tp2_rows()},
      {"tp 1, DeepSeek-V2-Lite (MoE)", pool(dsv2_lite_moe(), 1, 1), moe_tp1_rows()},
      {"tp 1, a multimodal model", pool(multimodal(), 1, 1), parity_rows_multimodal()},
  };
}

namespace {

TEST(VllmConfigParity, CrossFieldChecksOnOtherPools) {
  for (const auto& table : parity_rows_cross()) {
    SCOPED_TRACE(table.name);
    check_rows(table.rows, table.facts);
  }
}

}  // namespace
}  // namespace blis::rules::testing
