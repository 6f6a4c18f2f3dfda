// blis price: the KV block count and a worked table of step times for one deployment, with
// the breakdown of each step by resource (core/kernel).

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "command_registry.h"
#include "engine/engine.h"
#include "file_access.h"
#include "kernel/deployment.h"
#include "kernel/kv_capacity.h"
#include "kernel/step_pricer.h"
#include "util/units.h"

namespace blis::cli::cmd_price {
namespace {

constexpr const char* kUsage =
    "usage: blis price --hardware ID (--model ID | --model-file ENTRY.json) --tp N [--pp N]\n"
    "                  [--max-num-batched-tokens N] [--max-num-seqs N] [--block-size N]\n"
    "                  [--gpu-memory-utilization X] [--max-model-len N]\n"
    "                  [--kv-cache-dtype auto|fp8] [--enforce-eager]\n"
    "                  [--legacy-memory-profile] [--json]\n"
    "\n"
    "Prints the number of KV-cache blocks vLLM would allocate (\"# GPU blocks\"), the memory\n"
    "budget behind it, and step times for prefill chunks and decode batches, each broken\n"
    "down by resource. Defaults are vLLM 0.32.0's for the GPU, from its rules pack (8192\n"
    "tokens / 1024 sequences on >= 70 GiB GPUs other than A100, else 2048 / 256),\n"
    "block size 16 (64 for MLA on Hopper\n"
    "and Blackwell), gpu_memory_utilization 0.9, max_model_len from the model.\n"
    "--model-file adds a model entry (e.g. from `blis catalog import`) to the catalog and\n"
    "prices it (--model defaults to its id). Prices of a model no calibration run covers on\n"
    "this GPU are estimates and say so (\"estimate\" in --json).\n"
    "--legacy-memory-profile sizes the KV cache as vLLM <= 0.15 did (sort-based sampler\n"
    "warm-up, CUDA graphs outside the budget; catalog/coefficients/vllm-memory.json): the\n"
    "memory profile \"vllm-0.15\", as a scenario's engine.memory_profile selects it.\n"
    "Exit status 2 for unknown ids, bad arguments, or a deployment that does not fit.";

struct Args {
  std::string hardware, model, model_file, kv_cache_dtype;
  std::int32_t tp = 0, pp = 1;
  std::int64_t max_num_batched_tokens = -1, max_num_seqs = -1, block_size = -1, max_model_len = -1;
  double gpu_memory_utilization = 0;
  bool has_gpu_memory_utilization = false, enforce_eager = false, json = false;
  bool legacy_memory_profile = false;
};

bool parse_int(const std::string& s, std::int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const long long v = std::strtoll(s.c_str(), &end, 10);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

bool parse_double(const std::string& s, double* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

// Returns an error message, or "" when the arguments parse.
std::string parse_args(const std::vector<std::string>& args, Args* a) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& k = args[i];
    if (k == "--json") {
      a->json = true;
      continue;
    }
    if (k == "--enforce-eager") {
      a->enforce_eager = true;
      continue;
    }
    if (k == "--legacy-memory-profile") {
      a->legacy_memory_profile = true;
      continue;
    }
    if (i + 1 >= args.size()) return "missing value after " + k;
    const std::string& v = args[++i];
    std::int64_t n = 0;
    if (k == "--hardware") {
      a->hardware = v;
    } else if (k == "--model") {
      a->model = v;
    } else if (k == "--model-file") {
      a->model_file = v;
    } else if (k == "--kv-cache-dtype") {
      a->kv_cache_dtype = v;
    } else if (k == "--gpu-memory-utilization") {
      if (!parse_double(v, &a->gpu_memory_utilization)) return k + ": expected a number, got " + v;
      a->has_gpu_memory_utilization = true;
    } else if (k == "--tp" || k == "--pp" || k == "--max-num-batched-tokens" ||
               k == "--max-num-seqs" || k == "--block-size" || k == "--max-model-len") {
      if (!parse_int(v, &n) || n < 1 || n > 1000000000) {
        return k + ": expected a positive integer, got " + v;
      }
      if (k == "--tp") a->tp = static_cast<std::int32_t>(n);
      if (k == "--pp") a->pp = static_cast<std::int32_t>(n);
      if (k == "--max-num-batched-tokens") a->max_num_batched_tokens = n;
      if (k == "--max-num-seqs") a->max_num_seqs = n;
      if (k == "--block-size") a->block_size = n;
      if (k == "--max-model-len") a->max_model_len = n;
    } else {
      return "unknown argument " + k;
    }
  }
  if (a->hardware.empty()) return "--hardware is required";
  if (a->model.empty() && a->model_file.empty()) return "--model or --model-file is required";
  if (a->tp == 0) return "--tp is required";
  return "";
}

std::string with_commas(std::int64_t v) {
  std::string digits = std::to_string(v < 0 ? -v : v);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}

double gib(std::int64_t b) {
  return util::to_gib(b);
}

// Why these prices are estimates: no real run of the model on this GPU went into the
// kernel's calibration (catalog model "calibrated_on"). "" when one did.
std::string estimate_reason(const kernel::Deployment& d) {
  if (d.model.calibrated_for(d.gpu.id)) return "";
  std::string on;
  for (const auto& g : d.model.calibrated_on) on += (on.empty() ? "" : ", ") + g;
  return "no calibration run covers " + d.model.id + " on " + d.gpu.id +
         (on.empty() ? std::string(" (nor on any GPU)") : " (calibrated on " + on + ")") +
         "; the step times come from the kernel's physical terms alone";
}

struct StepRow {
  std::string kind;
  std::int32_t requests, new_tokens;
  std::int64_t cached;
  kernel::StepCost cost;
};

// The worked table: prefill chunks at several cached prefixes, and decode batches at several
// context lengths, limited to what the deployment admits (batch limits, max_model_len and the
// KV blocks).
std::vector<StepRow> step_table(const kernel::Deployment& d, const kernel::KvCapacity& kv) {
  const kernel::StepPricer pricer(d);
  std::vector<StepRow> rows;
  engine::Batch batch;
  const std::int64_t mml = d.effective_max_model_len();
  const std::int64_t kv_tokens = kv.kv_cache_tokens;
  std::vector<std::int32_t> chunks;
  for (std::int32_t c : {128, 512, 2048, d.max_num_batched_tokens}) {
    if (c <= d.max_num_batched_tokens && (chunks.empty() || c > chunks.back())) chunks.push_back(c);
  }
  for (std::int32_t c : chunks) {
    for (std::int64_t cached : {0, 4096, 32768}) {
      if (cached + c > mml || cached + c > kv_tokens) continue;
      batch.requests.assign(
          1, engine::ScheduledRequest{1, c, c, static_cast<std::int32_t>(cached), 0, true});
      rows.push_back({"prefill", 1, c, cached, pricer.price(batch)});
    }
  }
  std::vector<std::int32_t> sizes;
  for (std::int32_t b : {1, 8, 32, 128, 256, 512, d.max_num_seqs}) {
    if (b <= d.max_num_seqs && (sizes.empty() || b > sizes.back())) sizes.push_back(b);
  }
  for (std::int32_t b : sizes) {
    for (std::int64_t ctx : {1024, 4096, 16384}) {
      // Each request holds ctx + 1 tokens of KV, rounded up to whole blocks.
      const std::int64_t blocks_needed =
          static_cast<std::int64_t>(b) * ((ctx + d.block_size) / d.block_size);
      if (ctx + 1 > mml || blocks_needed > kv.num_gpu_blocks) continue;
      batch.requests.assign(
          static_cast<std::size_t>(b),
          engine::ScheduledRequest{1, 1, 0, static_cast<std::int32_t>(ctx), 0, true});
      rows.push_back({"decode", b, b, ctx, pricer.price(batch)});
    }
  }
  return rows;
}

nlohmann::json cost_json(const kernel::StepCost& c) {
  return {{"total_us", c.total},
          {"gemm_us", c.gemm_us},
          {"prefill_attention_us", c.prefill_attention_us},
          {"decode_attention_us", c.decode_attention_us},
          {"moe_us", c.moe_us},
          {"tp_comm_us", c.tp_comm_us},
          {"other_memory_us", c.other_memory_us},
          {"sampler_us", c.sampler_us},
          {"host_us", c.host_us}};
}

nlohmann::json memory_json(const kernel::KvCapacity& k) {
  const auto& w = k.weights;
  return {{"total_bytes", k.total_memory_bytes},
          {"requested_bytes", k.requested_memory_bytes},
          {"weights_bytes", k.weights_bytes},
          {"activation_peak_bytes", k.activation_peak_bytes},
          {"non_torch_bytes", k.non_torch_bytes},
          {"cuda_graph_bytes", k.cuda_graph_bytes},
          {"available_kv_bytes", k.available_kv_bytes},
          {"kv_bytes_for_max_model_len", k.kv_bytes_for_max_model_len},
          {"weights",
           {{"embedding", w.embedding},
            {"lm_head", w.lm_head},
            {"attention", w.attention},
            {"dense_mlp", w.dense_mlp},
            {"experts", w.experts},
            {"shared_experts", w.shared_experts},
            {"router", w.router},
            {"norms", w.norms},
            {"rotary_cache", w.rotary_cache},
            {"extra", w.extra}}},
          {"profile",
           {{"forward_peak_bytes", k.profile.forward_peak_bytes},
            {"sampler_peak_bytes", k.profile.sampler_peak_bytes},
            {"cuda_graph_count", k.profile.cuda_graph_count}}}};
}

void print_text(const kernel::Deployment& d, const kernel::KvCapacity& k,
                const std::vector<StepRow>& rows) {
  std::printf("%s x%d (tp=%d, pp=%d) serving %s\n", d.gpu.id.c_str(), d.tp * d.pp, d.tp, d.pp,
              d.model.id.c_str());
  if (k.total_memory_bytes == 0) {  // settings vLLM rejects before sizing anything
    std::printf("\nDoes not fit: %s\n", k.reason.c_str());
    return;
  }
  std::printf(
      "  max_num_batched_tokens %d, max_num_seqs %d, block_size %d, "
      "gpu_memory_utilization %g, max_model_len %s, kv_cache_dtype %s%s\n\n",
      d.max_num_batched_tokens, d.max_num_seqs, d.block_size, d.gpu_memory_utilization,
      with_commas(d.effective_max_model_len()).c_str(), d.kv_cache_dtype.c_str(),
      d.enforce_eager ? ", enforce_eager" : "");
  std::printf("Memory per GPU: %.2f GiB x %g = %.2f GiB requested\n", gib(k.total_memory_bytes),
              d.gpu_memory_utilization, gib(k.requested_memory_bytes));
  const auto& w = k.weights;
  std::printf(
      "  weights        %8.2f GiB  (embedding %.2f, lm_head %.2f, attention %.2f, "
      "mlp %.2f, experts %.2f, other %.2f)\n",
      gib(k.weights_bytes), gib(w.embedding), gib(w.lm_head), gib(w.attention), gib(w.dense_mlp),
      gib(w.experts + w.shared_experts + w.router), gib(w.norms + w.rotary_cache + w.extra));
  std::printf("  activations    %8.2f GiB  (profile run: forward %.2f, sampler %.2f)\n",
              gib(k.activation_peak_bytes), gib(k.profile.forward_peak_bytes),
              gib(k.profile.sampler_peak_bytes));
  std::printf("  non-torch      %8.2f GiB\n", gib(k.non_torch_bytes));
  std::printf("  CUDA graphs    %8.2f GiB  (%d graphs)\n", gib(k.cuda_graph_bytes),
              k.profile.cuda_graph_count);
  std::printf(
      "  KV cache       %8.2f GiB  (%.2f MiB per block: %d tokens x %d layers x "
      "%.1f KiB)\n\n",
      gib(k.available_kv_bytes), static_cast<double>(k.bytes_per_block) / 1048576.0, d.block_size,
      k.layers_per_group, static_cast<double>(k.page_bytes) / d.block_size / 1024.0);
  if (!k.fits) {
    std::printf("Does not fit: %s\n", k.reason.c_str());
    return;
  }
  std::printf(
      "KV cache: %s GPU blocks (# GPU blocks), %s tokens, %.2fx concurrency at %s "
      "tokens per request\n",
      with_commas(k.num_gpu_blocks).c_str(), with_commas(k.kv_cache_tokens).c_str(),
      k.max_concurrency, with_commas(k.max_model_len).c_str());
  if (k.kv_cache_groups > 1) {
    std::printf(
        "  hybrid KV cache: %d groups of %d layers share a pool of %s blocks; the count above "
        "is one full-attention group's share\n",
        k.kv_cache_groups, k.layers_per_group, with_commas(k.pool_blocks).c_str());
  }
  std::printf("\n");
  std::printf("Step times (microseconds)\n");
  std::printf("  %-8s %5s %6s %7s %9s %9s %9s %9s %8s %8s %8s %7s %7s\n", "kind", "reqs", "new",
              "cached", "total", "gemm", "prefill", "decode", "moe", "comm", "other", "sampler",
              "host");
  for (const auto& r : rows) {
    const auto& c = r.cost;
    std::printf("  %-8s %5d %6d %7s %9lld %9.1f %9.1f %9.1f %8.1f %8.1f %8.1f %7.1f %7.1f\n",
                r.kind.c_str(), r.requests, r.new_tokens, with_commas(r.cached).c_str(),
                static_cast<long long>(c.total), c.gemm_us, c.prefill_attention_us,
                c.decode_attention_us, c.moe_us, c.tp_comm_us, c.other_memory_us, c.sampler_us,
                c.host_us);
  }
  std::printf(
      "  (prefill: one request, `new` prompt tokens on `cached` cached ones; decode: "
      "`reqs` requests of `cached` tokens each)\n");
}

int run_price(const std::vector<std::string>& argv) {
  Args a;
  const std::string err = parse_args(argv, &a);
  if (!err.empty()) {
    std::fprintf(stderr, "blis price: %s\n%s\n", err.c_str(), kUsage);
    return 2;
  }
  catalog::Catalog cat = catalog::Catalog::builtin();
  if (!a.model_file.empty()) {
    const auto text = read_named_file("blis price", a.model_file);
    if (!text) return 2;
    const Diagnostics added = cat.add_inline(catalog::Kind::kModel, *text, "");
    for (const auto& x : added) {
      std::fprintf(stderr, "blis price: %s: %s\n", a.model_file.c_str(),
                   format_diagnostic(x).c_str());
    }
    if (has_errors(added)) return 2;
    if (a.model.empty()) {
      const nlohmann::json j = nlohmann::json::parse(*text, nullptr, false);
      a.model = j.is_object() ? j.value("id", std::string()) : std::string();
    }
  }
  kernel::Deployment d;
  Diagnostics diags = kernel::make_deployment(cat, a.hardware, a.model, a.tp, &d);
  const bool unknown_id = cat.find_gpu(a.hardware) == nullptr || cat.find_model(a.model) == nullptr;
  if (!unknown_id) {
    d.pp = a.pp;
    if (a.max_num_batched_tokens > 0) {
      d.max_num_batched_tokens = static_cast<std::int32_t>(a.max_num_batched_tokens);
    }
    if (a.max_num_seqs > 0) d.max_num_seqs = static_cast<std::int32_t>(a.max_num_seqs);
    if (a.block_size > 0) d.block_size = static_cast<std::int32_t>(a.block_size);
    if (a.max_model_len > 0) d.max_model_len = a.max_model_len;
    if (a.has_gpu_memory_utilization) d.gpu_memory_utilization = a.gpu_memory_utilization;
    if (!a.kv_cache_dtype.empty()) d.kv_cache_dtype = a.kv_cache_dtype;
    d.enforce_eager = a.enforce_eager;
    if (a.legacy_memory_profile) d.memory_profile = kernel::kMemoryProfileVllm015;
    diags.clear();  // kv_capacity reports invalid settings as "does not fit", with vLLM's reason
  }
  if (has_errors(diags)) {
    if (a.json) {
      nlohmann::json errors = nlohmann::json::array();
      for (const auto& x : diags)
        errors.push_back({{"pointer", x.pointer}, {"message", x.message}});
      std::printf("%s\n", nlohmann::json{{"errors", errors}}.dump(2).c_str());
    }
    for (const auto& x : diags)
      std::fprintf(stderr, "blis price: %s\n", format_diagnostic(x).c_str());
    return 2;
  }
  const kernel::KvCapacity kv = kernel::kv_capacity(d);
  const std::string estimate = estimate_reason(d);
  const std::vector<StepRow> rows = kv.fits ? step_table(d, kv) : std::vector<StepRow>{};
  if (a.json) {
    nlohmann::json steps = nlohmann::json::array();
    for (const auto& r : rows) {
      nlohmann::json s = {{"kind", r.kind},
                          {"requests", r.requests},
                          {"new_tokens", r.new_tokens},
                          {"cached_tokens", r.cached}};
      s.update(cost_json(r.cost));
      steps.push_back(s);
    }
    const nlohmann::json out = {{"hardware", d.gpu.id},
                                {"model", d.model.id},
                                {"tp", d.tp},
                                {"pp", d.pp},
                                {"settings",
                                 {{"max_num_batched_tokens", d.max_num_batched_tokens},
                                  {"max_num_seqs", d.max_num_seqs},
                                  {"block_size", d.block_size},
                                  {"gpu_memory_utilization", d.gpu_memory_utilization},
                                  {"max_model_len", d.effective_max_model_len()},
                                  {"kv_cache_dtype", d.kv_cache_dtype},
                                  {"enforce_eager", d.enforce_eager},
                                  {"legacy_memory_profile", a.legacy_memory_profile},
                                  {"memory_profile", d.memory_profile}}},
                                {"estimate", !estimate.empty()},
                                {"estimate_reason", estimate},
                                {"fits", kv.fits},
                                {"reason", kv.reason},
                                {"kv_blocks", kv.num_gpu_blocks},
                                {"kv_pool_blocks", kv.pool_blocks},
                                {"kv_cache_groups", kv.kv_cache_groups},
                                {"kv_cache_tokens", kv.kv_cache_tokens},
                                {"max_concurrency", kv.max_concurrency},
                                {"bytes_per_block", kv.bytes_per_block},
                                {"kv_bytes_per_token", kv.kv_bytes_per_token},
                                {"memory", memory_json(kv)},
                                {"steps", steps}};
    std::printf("%s\n", out.dump(2).c_str());
  } else {
    print_text(d, kv, rows);
    if (!estimate.empty() && kv.fits) std::printf("\nEstimate: %s\n", estimate.c_str());
  }
  if (!kv.fits) {
    std::fprintf(stderr, "blis price: %s on %s at tp=%d does not fit: %s\n", d.model.id.c_str(),
                 d.gpu.id.c_str(), d.tp, kv.reason.c_str());
    return 2;
  }
  return 0;
}

}  // namespace

BLIS_REGISTER_COMMAND("price", "KV blocks and step times of one deployment (latency kernel)",
                      kUsage, run_price);

}  // namespace blis::cli::cmd_price
