// KV blocks against the 13 real H100 runs of the public sim-to-real campaign's training /
// validation set (vLLM 0.15.1). Each run's settings and vLLM's logged counts come from its
// tests/accuracy/trainval/<run>/measured.json: "GPU KV cache size: N tokens" / 16 per GPU
// rank and, for the runs with CPU offloading, the CPU blocks of the 8 GiB offload buffer,
// extracted by inference-sim/sim-to-real-accuracy-validation (commit dcec3fd,
// experiment/kv_cache_extractor.py) and recorded in inference-sim/inference-sim (commit
// f90a1e3a, testdata/trained_physics_iter29.json). vLLM 0.15 sized the KV cache with the
// legacy memory profile (sort-based sampler warm-up, CUDA graphs outside the budget;
// catalog/coefficients/vllm-memory.json legacy_profile). The per-run table in
// docs/latency-model.md ("KV blocks of the real runs") is checked against these numbers. The
// thirteenth run, 20260217-155451-llama-2-7b-tp1-codegen, has run 67's settings and logged
// counts (7463 GPU, 1023 CPU blocks; tests/accuracy/trainval/README.md) and is not repeated.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "kernel/kv_capacity.h"
#include "kernel_test_support.h"

namespace blis::kernel {
namespace {

using testing::deploy;

constexpr const char* kRuns[] = {
    "17-llama-4-scout-17b-16e-tp2-general-lite-2-1",
    "20-llama-4-scout-17b-16e-tp2-codegen-2",
    "21-llama-4-scout-17b-16e-tp2-roleplay-2",
    "48-llama-4-scout-17b-16e-tp2-reasoning-lite-2-1",
    "67-llama-2-7b-hf-tp1-reasoning-lite-1-1",
    "60-llama-3-1-70b-tp4-general-lite-4-1",
    "61-llama-3-1-70b-tp4-codegen-4-1",
    "62-mistral-nemo-12b-tp2-general-lite-2-1",
    "63-mistral-nemo-12b-tp1-codegen-1-1",
    "64-qwen2-5-7b-instruct-tp1-roleplay-1-1",
    "66-qwen2-5-7b-instruct-tp1-reasoning-lite-1-1",
    "65-01-ai-yi-34b-tp2-general-lite-2-1",
};

struct TrainvalRun {
  std::string experiment, model, hardware;
  int tp = 1;
  Deployment d;                  // the run's settings, current memory profile
  std::int64_t vllm_blocks = 0;  // logged GPU KV cache tokens / 16
  std::int64_t vllm_cpu_blocks = 0;
  std::int64_t cpu_bytes = 0;  // --kv-offloading-size (0: no offloading)
  bool scout() const { return model.find("Llama-4-Scout") != std::string::npos; }
};

TrainvalRun load_run(const std::string& experiment) {
  TrainvalRun r;
  r.experiment = experiment;
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/tests/accuracy/trainval/" + experiment +
                   "/measured.json");
  EXPECT_TRUE(in.good()) << experiment;
  const nlohmann::json m = nlohmann::json::parse(in, nullptr, false);
  EXPECT_FALSE(m.is_discarded()) << experiment;
  if (m.is_discarded()) return r;
  r.model = m.at("model").get<std::string>();
  r.hardware = m.at("hardware").at("catalog_id").get<std::string>();
  r.tp = m.at("tp").get<int>();
  const nlohmann::json& e = m.at("engine");
  r.d = deploy(r.hardware, r.model, r.tp);
  r.d.max_model_len = e.at("max_model_len").get<std::int64_t>();
  r.d.max_num_batched_tokens = e.at("max_num_batched_tokens").get<int>();
  r.d.max_num_seqs = e.at("max_num_seqs").get<int>();
  r.d.gpu_memory_utilization = e.at("gpu_memory_utilization").get<double>();
  r.d.block_size = e.at("block_size").get<int>();
  const nlohmann::json& kv = m.at("kv_blocks");
  r.vllm_blocks = kv.at("total_kv_blocks").get<std::int64_t>();
  r.vllm_cpu_blocks = kv.at("cpu_kv_blocks").get<std::int64_t>();
  const nlohmann::json& off = e.at("cpu_kv_offload");
  if (off.is_object()) r.cpu_bytes = off.at("cpu_bytes_to_use").get<std::int64_t>();
  return r;
}

KvCapacity legacy_capacity(const TrainvalRun& r) {
  Deployment d = r.d;
  d.memory_profile = kMemoryProfileVllm015;  // as engine.memory_profile "vllm-0.15" selects it
  return kv_capacity(d);
}

double error_of(std::int64_t vllm, std::int64_t ours) {
  return (static_cast<double>(ours) - static_cast<double>(vllm)) / static_cast<double>(vllm);
}

// kv_cache_extractor.py extract_cpu_kv_blocks: cpu_bytes_to_use / (bytes per token x 16), the
// bytes per token being "Available KV cache memory" over "GPU KV cache size" tokens, i.e. one
// GPU's KV bytes per token over all its layers (for hybrid models too: every group caches
// every token at these lengths).
std::int64_t cpu_blocks_of(const TrainvalRun& r, const KvCapacity& k) {
  return r.cpu_bytes / (k.kv_bytes_per_token * r.d.block_size);
}

std::string pct(double e) {
  char b[16];
  std::snprintf(b, sizeof b, "%+.2f%%", 100.0 * e);
  return b;
}

// One row of the docs/latency-model.md table.
std::string doc_row(const TrainvalRun& r) {
  const KvCapacity legacy = legacy_capacity(r);
  const KvCapacity now = kv_capacity(r.d);
  std::ostringstream s;
  s << "| " << r.experiment << " | " << r.vllm_blocks << " | " << legacy.num_gpu_blocks << " | "
    << pct(error_of(r.vllm_blocks, legacy.num_gpu_blocks)) << " | " << now.num_gpu_blocks << " | "
    << pct(error_of(r.vllm_blocks, now.num_gpu_blocks)) << " | ";
  if (r.cpu_bytes > 0) {
    s << r.vllm_cpu_blocks << " / " << cpu_blocks_of(r, legacy);
  } else {
    s << "-";
  }
  s << " |";
  return s.str();
}

// Dense models: within 2% of what vLLM logged, with the memory profile of vLLM 0.15.
TEST(KvCapacityTrainval, DenseRunsWithinTwoPercent) {
  for (const char* name : kRuns) {
    const TrainvalRun r = load_run(name);
    if (r.scout()) continue;
    const KvCapacity k = legacy_capacity(r);
    ASSERT_TRUE(k.fits) << r.experiment << ": " << k.reason;
    const double e = error_of(r.vllm_blocks, k.num_gpu_blocks);
    std::printf("[ trainval ] %-48s vLLM %6lld ours %6lld %+6.2f%%\n", r.experiment.c_str(),
                static_cast<long long>(r.vllm_blocks), static_cast<long long>(k.num_gpu_blocks),
                100.0 * e);
    EXPECT_LT(std::fabs(e), 0.02) << r.experiment;
  }
}

// The logged CPU block counts fix vLLM's KV bytes per GPU block (8 GiB over them): ours agree
// for every offloading run, Llama-4-Scout's hybrid layout included (48 layers x 16 tokens x
// 2 KiB = 1.5 MiB per block per GPU). The extractor divides by the logged "Available KV cache
// memory" rounded to 0.01 GiB, hence the 0.2% tolerance.
TEST(KvCapacityTrainval, CpuBlocksFixTheBytesPerBlock) {
  int checked = 0;
  for (const char* name : kRuns) {
    const TrainvalRun r = load_run(name);
    if (r.cpu_bytes == 0) {
      EXPECT_EQ(r.vllm_cpu_blocks, 0) << r.experiment;
      continue;
    }
    const KvCapacity k = legacy_capacity(r);
    ASSERT_TRUE(k.fits) << r.experiment << ": " << k.reason;
    EXPECT_LT(std::fabs(error_of(r.vllm_cpu_blocks, cpu_blocks_of(r, k))), 0.002) << r.experiment;
    ++checked;
  }
  EXPECT_EQ(checked, 9);
}

// Llama-4-Scout: 36 chunked-local layers and 12 global ones form 4 KV-cache groups of 12
// layers sharing one pool; the logged count is the pool over the groups. KNOWN GAP: vLLM had
// 8253 x 1.5 MiB = 12.09 GiB per GPU for the KV cache (the CPU blocks of run 48 confirm the
// 1.5 MiB per block, so the difference is memory, not grouping); we leave 13.61 GiB, about
// 1.52 GiB more. Not traced to a part of vLLM's start-up (docs/latency-model.md lists what
// was checked). This test pins the grouping and the size of the gap so a fix shows up here.
TEST(KvCapacityTrainval, ScoutHybridGroupsAndKnownGap) {
  for (const char* name : kRuns) {
    const TrainvalRun r = load_run(name);
    if (!r.scout()) continue;
    const KvCapacity k = legacy_capacity(r);
    ASSERT_TRUE(k.fits) << k.reason;
    EXPECT_EQ(k.kv_cache_groups, 4);
    EXPECT_EQ(k.layers_per_group, 12);
    EXPECT_EQ(k.num_gpu_blocks, k.pool_blocks / 4);
    EXPECT_EQ(k.kv_cache_tokens / 16, k.num_gpu_blocks);
    const double e = error_of(r.vllm_blocks, k.num_gpu_blocks);
    std::printf("[ trainval ] %-48s vLLM %6lld ours %6lld %+6.2f%% (known gap)\n",
                r.experiment.c_str(), static_cast<long long>(r.vllm_blocks),
                static_cast<long long>(k.num_gpu_blocks), 100.0 * e);
    EXPECT_GT(e, 0.12);
    EXPECT_LT(e, 0.14);
  }
}

// Without the legacy profile (vLLM 0.21 and later: CUDA graphs in the budget, Triton top-k/
// top-p in the sampler warm-up) the same deployments get fewer blocks.
TEST(KvCapacityTrainval, CurrentProfileReservesCudaGraphs) {
  const TrainvalRun r = load_run("60-llama-3-1-70b-tp4-general-lite-4-1");
  const KvCapacity now = kv_capacity(r.d);
  const KvCapacity legacy = legacy_capacity(r);
  EXPECT_GT(now.cuda_graph_bytes, 0);
  EXPECT_EQ(legacy.cuda_graph_bytes, 0);
  EXPECT_LT(now.num_gpu_blocks, legacy.num_gpu_blocks);
}

// docs/latency-model.md carries one row per run with the numbers above.
TEST(KvCapacityTrainval, DocTableMatches) {
  std::ifstream in(std::string(BLIS_SOURCE_DIR) + "/docs/latency-model.md");
  ASSERT_TRUE(in.good());
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string doc = buf.str();
  for (const char* name : kRuns) {
    const std::string row = doc_row(load_run(name));
    EXPECT_NE(doc.find(row + "\n"), std::string::npos)
        << "docs/latency-model.md lacks the row (update it):\n"
        << row;
  }
}

}  // namespace
}  // namespace blis::kernel
