#include "cluster/vllm_backend.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "cluster/dense_dp_engine.h"
#include "cluster/dp_engine.h"
#include "cluster/dp_step_cost.h"
#include "cluster/kernel_step_cost.h"
#include "engine/vllm/connector/nixl_connector.h"
#include "engine/vllm/connector/offloading_connector.h"
#include "engine/vllm/vllm_config.h"
#include "engine/vllm/vllm_engine.h"
#include "kernel/kv_capacity.h"
#include "kernel/parallel_cost.h"
#include "scenario/pool_deployment.h"
#include "util/text.h"

namespace blis::cluster {
namespace {

// Maps a kernel deployment pointer ("/tp", "/block_size", ...) to the scenario's.
std::string scenario_pointer(const std::string& pool_ptr, const std::string& dep_ptr) {
  if (dep_ptr.empty()) return pool_ptr;
  if (dep_ptr == "/tp" || dep_ptr == "/pp") return pool_ptr + "/parallelism" + dep_ptr;
  if (dep_ptr == "/memory_profile") return pool_ptr + "/engine" + dep_ptr;
  return pool_ptr + "/engine/args" + dep_ptr;
}

void append(Diagnostics& out, const Diagnostics& in, const std::string& pool_ptr) {
  for (const auto& d : in)
    out.push_back({scenario_pointer(pool_ptr, d.pointer), d.message, d.severity});
}

vllm::VllmConfig engine_config(const scenario::Pool& pool, std::int64_t num_gpu_blocks) {
  const scenario::VllmArgs& a = pool.engine.args;
  vllm::VllmConfig c;
  c.pipeline_parallel_size = pool.parallelism.pp;
  c.block_size = a.block_size;
  c.num_gpu_blocks = static_cast<std::int32_t>(num_gpu_blocks);
  c.enable_prefix_caching = a.enable_prefix_caching;
  c.max_num_seqs = a.max_num_seqs;
  c.max_num_batched_tokens = a.max_num_batched_tokens;
  // Unset (-1 in the engine's config) derives the budget as vLLM does (VllmConfig.token_budget);
  // 0 is a budget of 0, as vLLM's Scheduler takes it.
  c.max_num_scheduled_tokens = a.max_num_scheduled_tokens.value_or(-1);
  c.max_model_len = a.max_model_len;
  c.enable_chunked_prefill = a.enable_chunked_prefill;
  c.long_prefill_token_threshold = a.long_prefill_token_threshold;
  c.policy = a.scheduling_policy == "priority" ? vllm::SchedulingPolicy::kPriority
                                               : vllm::SchedulingPolicy::kFcfs;
  c.async_scheduling = a.async_scheduling;
  // Under PP a request's next pass needs the token its previous pass sampled on the last
  // stage (vllm/v1/core/sched/scheduler.py: with PP+async the first stage takes it from a
  // GPU broadcast of the last stage's output), so it cannot enter the pipeline before that
  // pass has left it: the pipeline fills with other requests. BLIS models this with the
  // synchronous scheduler, which does not reschedule a request in flight; the batch queue
  // keeps vLLM's depth (max_concurrent_batches = pp either way with the V1 model runner).
  if (pool.parallelism.pp > 1) c.async_scheduling = false;
  c.scheduler_reserve_full_isl = a.scheduler_reserve_full_isl;
  c.watermark = a.watermark;
  c.max_loras = a.enable_lora ? a.max_loras : 0;
  if (a.speculative_config) {
    c.num_speculative_tokens = a.speculative_config->num_speculative_tokens;
    const std::string& m = a.speculative_config->method;
    c.speculative_method = m == "eagle" || m == "eagle3" ? vllm::SpecMethod::kEagle
                           : m == "mtp"                  ? vllm::SpecMethod::kMtp
                           : m == "draft_model"          ? vllm::SpecMethod::kDraftModel
                                                         : vllm::SpecMethod::kNgram;
  }
  // KVTransferConfig.kv_load_failure_policy (vLLM's default "fail").
  const auto& kt = a.kv_transfer_config;
  c.recompute_kv_load_failures = kt && kt->kv_load_failure_policy.value_or("fail") == "recompute";
  return c;
}

// Placement (kernel/parallel_cost.h): the links inside a node (the GPU's scale_up fabric)
// and between nodes (the scenario's fabric when it is a scale-out one, else ib-ndr, an
// estimate that is reported).
// The warnings about a placement are the decoder's (scenario::placement_warnings), so validate
// and run report the same.
void place(const catalog::Catalog& cat, const scenario::Scenario& s, kernel::Deployment* d) {
  if (const catalog::Fabric* f = cat.find_fabric(d->gpu.scale_up.fabric)) d->intra_node_link = *f;
  if (kernel::instance_nodes(*d) <= 1) return;
  const catalog::Fabric* f = s.fabric.empty() ? nullptr : cat.find_fabric(s.fabric);
  if (f != nullptr && f->scope == "scale-out") {
    d->inter_node_link = *f;
  } else if (const catalog::Fabric* ib = cat.find_fabric("ib-ndr")) {
    d->inter_node_link = *ib;
  }
}

}  // namespace

Diagnostics pool_deployment(const catalog::Catalog& catalog, const scenario::Scenario& s,
                            std::size_t p, kernel::Deployment* out) {
  const scenario::Pool& pool = s.pools[p];
  const std::string ptr = json_pointer_append("/pools", p);
  Diagnostics ds;
  // The decoder checks catalog ids; a Scenario built in code may not have been decoded.
  if (catalog.find_gpu(pool.hardware) == nullptr) {
    ds.push_back({ptr + "/hardware", "unknown GPU '" + pool.hardware + "'"});
  }
  if (catalog.find_model(pool.model) == nullptr) {
    ds.push_back({ptr + "/model", "unknown model '" + pool.model + "'"});
  }
  if (has_errors(ds)) return ds;
  append(ds, kernel::make_deployment(catalog, pool.hardware, pool.model, pool.parallelism.tp, out),
         ptr);
  if (has_errors(ds)) return ds;
  // The decoder's mapping of engine.args to the kernel (scenario/pool_deployment.h), so a run
  // prices the deployment `blis validate` checked.
  // One node size for the whole cluster: the network's (the P/D topology places on it too).
  out->gpus_per_node = s.network.gpus_per_node;
  if (!scenario::apply_engine_args(pool, out)) {
    ds.push_back({ptr + "/engine/args/quantization",
                  quote_excerpt(pool.engine.args.quantization) +
                      " is not modelled by BLIS Playground's latency kernel"});
    return ds;
  }
  append(ds, kernel::validate_deployment(*out), ptr);
  place(catalog, s, out);
  return ds;
}

Diagnostics VllmBackend::load_catalog(const scenario::Scenario& s) {
  Diagnostics ds;
  catalog_ = std::make_unique<catalog::Catalog>(catalog::Catalog::builtin());
  for (std::size_t i = 0; i < coefficient_overrides_.size(); ++i) {
    for (auto& d : catalog_->add_inline(catalog::Kind::kCoefficients, coefficient_overrides_[i],
                                        json_pointer_append("/coefficients", i))) {
      ds.push_back(std::move(d));
    }
  }
  // Fabrics first: GPUs name them.
  const struct {
    catalog::Kind kind;
    const std::vector<std::string>* entries;
    const char* key;
  } parts[] = {{catalog::Kind::kFabric, &s.catalog.fabrics, "/catalog/fabrics"},
               {catalog::Kind::kGpu, &s.catalog.gpus, "/catalog/gpus"},
               {catalog::Kind::kModel, &s.catalog.models, "/catalog/models"}};
  for (const auto& part : parts) {
    for (std::size_t i = 0; i < part.entries->size(); ++i) {
      for (auto& d :
           catalog_->add_inline(part.kind, (*part.entries)[i], json_pointer_append(part.key, i))) {
        ds.push_back(std::move(d));
      }
    }
  }
  return ds;
}

namespace {

// A GPU's link as priced: its fabric's catalog entry (latency, efficiency) with the bandwidth
// capped at what the GPU declares on that link; nothing when the fabric is unknown.
std::optional<catalog::Fabric> gpu_link(const catalog::Catalog& cat, const catalog::Link& link) {
  const catalog::Fabric* f = cat.find_fabric(link.fabric);
  if (f == nullptr) return std::nullopt;
  catalog::Fabric capped = *f;
  if (link.bandwidth_bytes_per_s > 0)
    capped.bandwidth_bytes_per_s =
        std::min(capped.bandwidth_bytes_per_s, link.bandwidth_bytes_per_s);
  return capped;
}

// The drafter a speculative_config runs (kernel/drafter_cost.h): the CPU n-gram search for
// the prompt-lookup methods, the draft model's own passes for draft_model (at the target's
// tensor parallelism: vllm config/speculative.py _verify_and_get_draft_tp defaults
// draft_tensor_parallel_size to the target's), and a one-layer head for EAGLE, MTP and the
// other model-based proposers.
kernel::DrafterCost drafter_for(const catalog::Catalog& catalog,
                                const scenario::SpeculativeConfig& sc,
                                const kernel::Deployment& target, const std::string& ptr,
                                Diagnostics& ds) {
  const std::int32_t k = sc.num_speculative_tokens;
  const std::string& m = sc.method;
  if (m == "ngram" || m == "ngram_gpu" || m == "suffix") return kernel::DrafterCost::ngram(k);
  if (m == "draft_model") {
    if (const catalog::Model* draft = catalog.find_model(sc.model)) {
      kernel::Deployment dd = target;
      dd.model = *draft;
      return kernel::DrafterCost::passes(dd, k);
    }
    ds.push_back({ptr + "/model",
                  "draft model '" + sc.model +
                      "' is not in the catalog: its passes are priced as a one-layer head "
                      "of the target (an estimate); add it under catalog.models to price it",
                  Severity::kWarning});
  }
  return kernel::DrafterCost::passes(kernel::eagle_head_deployment(target), k);
}

}  // namespace

Diagnostics VllmBackend::prepare_pool(const scenario::Scenario& s, std::size_t p,
                                      PoolResources& out) {
  Diagnostics ds;
  if (!catalog_) ds = load_catalog(s);
  if (has_errors(ds)) return ds;
  const scenario::Pool& pool = s.pools[p];
  const std::string ptr = json_pointer_append("/pools", p);
  if (pool.engine.kind != "vllm") {
    ds.push_back(
        {ptr + "/engine/kind", "unknown engine kind '" + pool.engine.kind + "' (expected vllm)"});
    return ds;
  }
  kernel::Deployment d;
  for (auto& x : pool_deployment(*catalog_, s, p, &d)) ds.push_back(std::move(x));
  if (has_errors(ds)) return ds;

  const kernel::KvCapacity cap = kernel::kv_capacity(d);
  if (!cap.fits) {
    ds.push_back({ptr, cap.reason});
    return ds;
  }
  out.gpu_blocks = cap.num_gpu_blocks;  // one full-attention group's share of the pool
  out.kv_bytes_per_block = kernel::kv_bytes_per_token(d) * d.block_size;
  if (s.fabric.empty() && (pool.role == "prefill" || pool.role == "decode")) {
    ds.push_back({"/fabric",
                  "missing: a prefill/decode deployment needs the fabric its KV "
                  "transfers cross (e.g. \"nvlink4\" or \"ib-ndr\")"});
    return ds;
  }
  if (!s.fabric.empty()) {
    const catalog::Fabric* f = catalog_->find_fabric(s.fabric);
    if (f == nullptr) {
      ds.push_back({"/fabric", "unknown fabric '" + s.fabric + "'"});
      return ds;
    }
    out.kv_fabric = *f;
  }
  // The host link: the GPU's own fabric entry (latency, efficiency), capped at the GPU's
  // declared bandwidth on it (an H100 SXM: pcie-gen5 at 64 GB/s per direction); the scale-up
  // link the same way.
  if (auto host = gpu_link(*catalog_, d.gpu.host_link)) out.host_fabric = *host;
  if (auto local = gpu_link(*catalog_, d.gpu.scale_up)) out.local_fabric = *local;
  auto pricer = std::make_shared<KernelStepCost>(d);
  if (pool.engine.args.speculative_config)
    pricer->set_drafter(drafter_for(*catalog_, *pool.engine.args.speculative_config, d,
                                    ptr + "/engine/args/speculative_config", ds));
  // Data parallelism of an MoE model: the ranks step in lockstep, each priced by the kernel
  // (dp_step_cost.h). A dense model's ranks step on their own (dense_dp_engine.h), each pass
  // priced as one engine's.
  out.moe = d.model.moe.num_experts > 0;
  if (pool.parallelism.dp > 1 && out.moe) {
    out.pricer = std::make_shared<DpStepCost>(std::move(pricer), pool.parallelism.dp);
  } else {
    out.pricer = std::move(pricer);
  }
  if (pool.engine.args.enable_lora)
    out.lora_cost = std::make_shared<kernel::LoraCost>(d, pool.engine.args.max_lora_rank);
  const catalog::GpuCoefficients& c = d.coefficients;
  out.overheads.request_us = c.serving_request_us;
  out.overheads.tokenize_per_token_us = c.serving_tokenize_per_token_us;
  out.overheads.output_step_us = c.serving_output_step_us;
  out.overheads.output_per_request_us = c.serving_output_per_request_us;
  const bool measured = catalog_->has_measured_coefficients(pool.hardware);
  const std::string coeff_id = measured ? pool.hardware : std::string("default");
  const std::string coeff_origin = catalog_->entry_origin(catalog::Kind::kCoefficients, coeff_id);
  out.overheads.source = coeff_origin.empty() ? coeff_id : coeff_origin;
  if (pool.engine.args.speculative_config) {
    out.spec_acceptance = pool.engine.args.speculative_config->acceptance_rate;
  }
  auto origin = [&](catalog::Kind k, const std::string& id) {
    const std::string o = catalog_->entry_origin(k, id);
    return o.empty() ? id : id + " (" + o + ")";
  };
  // A model no calibration run covers on this GPU is priced by the kernel's physical terms
  // alone: the provenance says the prices are estimates.
  const std::string estimate = d.model.calibrated_for(pool.hardware)
                                   ? std::string()
                                   : "; estimate: no calibration run covers it on " + pool.hardware;
  out.catalog_entries = {"gpu " + origin(catalog::Kind::kGpu, pool.hardware),
                         "model " + origin(catalog::Kind::kModel, pool.model) + estimate};
  if (!s.fabric.empty())
    out.catalog_entries.push_back("fabric " + origin(catalog::Kind::kFabric, s.fabric));
  if (pool.cost_per_gpu_hour) {
    out.usd_per_gpu_hour = *pool.cost_per_gpu_hour;
    out.price_source = "scenario " + ptr + "/cost_per_gpu_hour";
  } else if (d.gpu.usd_per_gpu_hour > 0) {
    out.usd_per_gpu_hour = d.gpu.usd_per_gpu_hour;
    out.price_source = "catalog " + pool.hardware + ": indicative, " + d.gpu.price_source +
                       ", as of " + d.gpu.price_as_of;
  }
  out.coefficient_sources = {
      out.overheads.source,
      catalog_->entry_origin(catalog::Kind::kCoefficients, catalog_->memory_coefficients().id)};
  return ds;
}

namespace {

// One engine core of pool `pool` (a whole instance, or one DP rank of it), with the pool's KV
// connector. `engine_id` is its KVTransferConfig.engine_id.
std::unique_ptr<engine::Engine> engine_core(const scenario::Pool& pool, std::int32_t instance,
                                            const std::string& engine_id,
                                            const PoolResources& res) {
  auto eng = std::make_unique<vllm::VllmEngine>(engine_config(pool, res.gpu_blocks));
  eng->set_report_common_prefix(false);  // nothing in the cluster reads it; it costs O(blocks)
  // Prefill and decode pools hand KV over with NIXL (the rules pack sets their
  // kv_transfer_config to NixlConnector, kv_both, unless the scenario names it).
  if (pool.role == "prefill" || pool.role == "decode") {
    vllm::NixlConfig nc;
    nc.instance = instance;
    nc.block_size = pool.engine.args.block_size;
    nc.engine_id = engine_id;
    nc.tp_size = pool.parallelism.tp;
    // The engine registers NixlPromMetrics' families with it (metrics/*.prom).
    eng->own_connector(std::make_unique<vllm::NixlConnector>(nc));
    return eng;
  }
  // CPU offload (kv_offloading_size, or kv_transfer_config naming OffloadingConnector; the
  // rules pack resolved both into cpu_bytes_to_use and the offloaded block size).
  const auto& kt = pool.engine.args.kv_transfer_config;
  if (kt && kt->kv_connector == "OffloadingConnector") {
    vllm::OffloadingConfig oc;
    oc.gpu_block_size = pool.engine.args.block_size;
    const std::int32_t offload_block_size = kt->offload_block_size.value_or(oc.gpu_block_size);
    // OffloadingSpec: blocks_per_chunk = offloaded block size / GPU block size (the rules
    // pack checked that it divides).
    oc.blocks_per_chunk = std::max(1, offload_block_size / oc.gpu_block_size);
    oc.enable_prefix_caching = pool.engine.args.enable_prefix_caching;
    // cpu_bytes_to_use is the total over one engine's GPUs (vllm config/cache.py
    // kv_offloading_size: "summed across all TP ranks"; every DP rank is an engine with the
    // same config, so each has that much); one offload block holds every GPU's share of
    // offload_block_size tokens.
    const std::int64_t gpus = static_cast<std::int64_t>(pool.parallelism.tp) * pool.parallelism.pp;
    const std::int64_t block_bytes = res.kv_bytes_per_block * gpus * oc.blocks_per_chunk;
    oc.num_cpu_blocks = block_bytes > 0 ? kt->cpu_bytes_to_use.value_or(0) / block_bytes : 0;
    // CPUOffloadingSpec: eviction_policy (default "lru"; the rules pack checked the name) and
    // store_threshold (default 0).
    oc.cpu.cache_policy = vllm::cache_policy_kind(kt->eviction_policy.value_or("lru"))
                              .value_or(vllm::CachePolicyKind::kLru);
    oc.cpu.store_threshold = kt->store_threshold.value_or(0);
    // The engine registers OffloadPromMetrics' families with it (metrics/*.prom).
    eng->own_connector(std::make_unique<vllm::OffloadingConnector>(oc));
  }
  return eng;
}

}  // namespace

std::unique_ptr<engine::Engine> VllmBackend::make_engine(const scenario::Scenario& s, std::size_t p,
                                                         std::int32_t instance,
                                                         const PoolResources& res) {
  const scenario::Pool& pool = s.pools[p];
  const std::string engine_id = "instance-" + std::to_string(instance);
  if (pool.parallelism.dp <= 1) return engine_core(pool, instance, engine_id, res);
  // Data parallelism: dp engine-core ranks behind the internal load balancer, one API server
  // per rank (vllm entrypoints/cli/serve.py: internal LB defaults api_server_count to
  // data_parallel_size). Each rank's connector has its own engine_id (vllm v1/engine/core.py
  // run_engine_core: engine_id + "_dp<rank>").
  std::vector<std::unique_ptr<engine::Engine>> ranks;
  for (std::int32_t r = 0; r < pool.parallelism.dp; ++r)
    ranks.push_back(engine_core(pool, instance, engine_id + "_dp" + std::to_string(r), res));
  // core.py run_engine_core: an MoE model's ranks run DPEngineCoreProc (lockstep waves); a
  // dense model's are independent EngineCoreProcs.
  if (res.moe) return std::make_unique<DpEngine>(std::move(ranks), pool.parallelism.dp);
  return std::make_unique<DenseDpEngine>(std::move(ranks), pool.parallelism.dp);
}

}  // namespace blis::cluster
